"""Gradio widget for the explanation_overlap metric: paste JSON inputs, press Compute (run `python app.py`)."""

import json
from functools import cache
from pathlib import Path

import evaluate
import gradio as gr

MODULE = Path(__file__).resolve().parent / "explanation_overlap.py"
DESCRIPTION = (
    "# explanation_overlap\n\nBLEU-4 (sacreBLEU) and ROUGE-L F1 of joke "
    "explanations against the human one. Inputs are JSON; see the card for "
    "definitions."
)


@cache
def _metric() -> evaluate.EvaluationModule:
    return evaluate.load(str(MODULE))


def compute(predictions: str, references: str) -> dict:
    """Parse the JSON inputs and run the metric; an input error is shown as {"error": ...}, not raised."""
    try:
        kwargs = {}
        kwargs["predictions"] = json.loads(predictions)
        kwargs["references"] = json.loads(references)
        result = _metric().compute(**kwargs)
    except (ValueError, TypeError) as error:  # json.JSONDecodeError is a ValueError
        return {"error": str(error)}
    return json.loads(json.dumps(result))  # fold ids and other int keys become JSON strings


with gr.Blocks(title="explanation_overlap") as demo:
    gr.Markdown(DESCRIPTION)
    predictions = gr.Textbox(
        label="predictions",
        value='["The man is a dog, so the leash joke is literal."]',
        lines=1,
    )
    references = gr.Textbox(
        label="references",
        value='["The man is a dog, so the leash joke is literal."]',
        lines=1,
    )
    button = gr.Button("Compute", variant="primary")
    result = gr.JSON(label="result")
    button.click(compute, inputs=[predictions, references], outputs=result)

if __name__ == "__main__":
    demo.launch()
