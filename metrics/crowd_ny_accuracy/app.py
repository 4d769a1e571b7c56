"""Gradio widget for the crowd_ny_accuracy metric: paste JSON inputs, press Compute (run `python app.py`)."""

import json
from functools import cache
from pathlib import Path

import evaluate
import gradio as gr

MODULE = Path(__file__).resolve().parent / "crowd_ny_accuracy.py"
DESCRIPTION = (
    "# crowd_ny_accuracy\n\nQuality-ranking accuracy overall, on crowd "
    "winners (CrowdAcc) and official winners (NYAcc). Inputs are JSON; see "
    "the card for definitions."
)


@cache
def _metric() -> evaluate.EvaluationModule:
    return evaluate.load(str(MODULE))


def compute(predictions: str, references: str, winner_sources: str, folds: str) -> dict:
    """Parse the JSON inputs and run the metric; an input error is shown as {"error": ...}, not raised."""
    try:
        kwargs = {}
        kwargs["predictions"] = json.loads(predictions)
        kwargs["references"] = json.loads(references)
        kwargs["winner_sources"] = json.loads(winner_sources)
        if folds.strip():
            kwargs["folds"] = json.loads(folds)
        result = _metric().compute(**kwargs)
    except (ValueError, TypeError) as error:  # json.JSONDecodeError is a ValueError
        return {"error": str(error)}
    return json.loads(json.dumps(result))  # fold ids and other int keys become JSON strings


with gr.Blocks(title="crowd_ny_accuracy") as demo:
    gr.Markdown(DESCRIPTION)
    predictions = gr.Textbox(
        label="predictions",
        value='["A", "B", "B", "A"]',
        lines=1,
    )
    references = gr.Textbox(
        label="references",
        value='["A", "A", "B", "A"]',
        lines=1,
    )
    winner_sources = gr.Textbox(
        label="winner_sources",
        value='["crowd_winner", "crowd_winner", "official_winner", "official_winner"]',
        lines=1,
    )
    folds = gr.Textbox(
        label="folds (optional)",
        value="",
        lines=1,
    )
    button = gr.Button("Compute", variant="primary")
    result = gr.JSON(label="result")
    button.click(compute, inputs=[predictions, references, winner_sources, folds], outputs=result)

if __name__ == "__main__":
    demo.launch()
