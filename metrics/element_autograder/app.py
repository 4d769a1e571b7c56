"""Gradio widget for the element_autograder metric: paste JSON inputs, press Compute (run `python app.py`)."""

import json
from functools import cache
from pathlib import Path

import evaluate
import gradio as gr

MODULE = Path(__file__).resolve().parent / "element_autograder.py"
DESCRIPTION = (
    "# element_autograder\n\nHumorBench element accuracy from autograder "
    "verdicts; add human_labels to validate the autograder. Inputs are "
    "JSON; see the card for definitions."
)


@cache
def _metric() -> evaluate.EvaluationModule:
    return evaluate.load(str(MODULE))


def compute(
    predictions: str, references: str, judgments: str, caption_ids: str, categories: str, human_labels: str
) -> dict:
    """Parse the JSON inputs and run the metric; an input error is shown as {"error": ...}, not raised."""
    try:
        kwargs = {}
        kwargs["predictions"] = json.loads(predictions)
        kwargs["references"] = json.loads(references)
        kwargs["judgments"] = json.loads(judgments)
        if caption_ids.strip():
            kwargs["caption_ids"] = json.loads(caption_ids)
        if categories.strip():
            kwargs["categories"] = json.loads(categories)
        if human_labels.strip():
            kwargs["human_labels"] = json.loads(human_labels)
        result = _metric().compute(**kwargs)
    except (ValueError, TypeError) as error:  # json.JSONDecodeError is a ValueError
        return {"error": str(error)}
    return json.loads(json.dumps(result))  # fold ids and other int keys become JSON strings


with gr.Blocks(title="element_autograder") as demo:
    gr.Markdown(DESCRIPTION)
    predictions = gr.Textbox(
        label="predictions",
        value=('["The boss rides the bus.", "The boss rides the bus.", "A pun on stop."]'),
        lines=1,
    )
    references = gr.Textbox(
        label="references",
        value=('["Leadership depends on who is riding.", "CEO until 63rd street.", "Stop means quit."]'),
        lines=3,
    )
    judgments = gr.Textbox(
        label="judgments",
        value='["PASS", "FAIL", "PASS"]',
        lines=1,
    )
    caption_ids = gr.Textbox(
        label="caption_ids (optional)",
        value="",
        lines=1,
    )
    categories = gr.Textbox(
        label="categories (optional)",
        value='[[], [], ["wordplay"]]',
        lines=1,
    )
    human_labels = gr.Textbox(
        label="human_labels (optional)",
        value="",
        lines=1,
    )
    button = gr.Button("Compute", variant="primary")
    result = gr.JSON(label="result")
    button.click(
        compute, inputs=[predictions, references, judgments, caption_ids, categories, human_labels], outputs=result
    )

if __name__ == "__main__":
    demo.launch()
