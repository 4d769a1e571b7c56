"""Gradio widget for the ead_diversity metric: paste JSON inputs, press Compute (run `python app.py`)."""

import json
from functools import cache
from pathlib import Path

import evaluate
import gradio as gr

MODULE = Path(__file__).resolve().parent / "ead_diversity.py"
DESCRIPTION = (
    "# ead_diversity\n\nAverage EAD and SBERT diversity of caption groups "
    "(Zhang et al. 2024); one list of captions per contest. Inputs are "
    "JSON; see the card for definitions."
)


@cache
def _metric() -> evaluate.EvaluationModule:
    return evaluate.load(str(MODULE))


def compute(predictions: str, sbert_model: str) -> dict:
    """Parse the JSON inputs and run the metric; an input error is shown as {"error": ...}, not raised."""
    try:
        kwargs = {}
        kwargs["predictions"] = json.loads(predictions)
        if sbert_model.strip():
            kwargs["sbert_model"] = sbert_model.strip()
        result = _metric().compute(**kwargs)
    except (ValueError, TypeError) as error:  # json.JSONDecodeError is a ValueError
        return {"error": str(error)}
    return json.loads(json.dumps(result))  # fold ids and other int keys become JSON strings


with gr.Blocks(title="ead_diversity") as demo:
    gr.Markdown(DESCRIPTION)
    predictions = gr.Textbox(
        label="predictions",
        value=(
            '[["It looked smaller online.", "Well SOMEONE clogged the toilet."], '
            '["Have your guy call my guy.", "Have your person contact my person."]]'
        ),
        lines=3,
    )
    sbert_model = gr.Textbox(
        label="sbert_model (optional)",
        value="",
        lines=1,
    )
    button = gr.Button("Compute", variant="primary")
    result = gr.JSON(label="result")
    button.click(compute, inputs=[predictions, sbert_model], outputs=result)

if __name__ == "__main__":
    demo.launch()
