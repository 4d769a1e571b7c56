"""Gradio widget for the nycc_accuracy metric: paste JSON inputs, press Compute (run `python app.py`)."""

import json
from functools import cache
from pathlib import Path

import evaluate
import gradio as gr

MODULE = Path(__file__).resolve().parent / "nycc_accuracy.py"
DESCRIPTION = (
    "# nycc_accuracy\n\nMatching accuracy (Hessel et al. 2023), fold-averaged"
    " when folds are given. Inputs are JSON; see the card for definitions."
)


@cache
def _metric() -> evaluate.EvaluationModule:
    return evaluate.load(str(MODULE))


def compute(predictions: str, references: str, folds: str) -> dict:
    """Parse the JSON inputs and run the metric; an input error is shown as {"error": ...}, not raised."""
    try:
        kwargs = {}
        kwargs["predictions"] = json.loads(predictions)
        kwargs["references"] = json.loads(references)
        if folds.strip():
            kwargs["folds"] = json.loads(folds)
        result = _metric().compute(**kwargs)
    except (ValueError, TypeError) as error:  # json.JSONDecodeError is a ValueError
        return {"error": str(error)}
    return json.loads(json.dumps(result))  # fold ids and other int keys become JSON strings


with gr.Blocks(title="nycc_accuracy") as demo:
    gr.Markdown(DESCRIPTION)
    predictions = gr.Textbox(
        label="predictions",
        value='["A", "C", "E", "B", "A"]',
        lines=1,
    )
    references = gr.Textbox(
        label="references",
        value='["A", "C", "D", "B", "B"]',
        lines=1,
    )
    folds = gr.Textbox(
        label="folds (optional)",
        value="[0, 0, 0, 1, 1]",
        lines=1,
    )
    button = gr.Button("Compute", variant="primary")
    result = gr.JSON(label="result")
    button.click(compute, inputs=[predictions, references, folds], outputs=result)

if __name__ == "__main__":
    demo.launch()
