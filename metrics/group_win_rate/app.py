"""Gradio widget for the group_win_rate metric: paste JSON inputs, press Compute (run `python app.py`)."""

import json
from functools import cache
from pathlib import Path

import evaluate
import gradio as gr

MODULE = Path(__file__).resolve().parent / "group_win_rate.py"
DESCRIPTION = (
    "# group_win_rate\n\nGroup win rate of a caption generator against a "
    "human group, from judge verdicts (Zhang et al. 2024). Inputs are JSON;"
    " see the card for definitions."
)


@cache
def _metric() -> evaluate.EvaluationModule:
    return evaluate.load(str(MODULE))


def compute(judgments: str) -> dict:
    """Parse the JSON inputs and run the metric; an input error is shown as {"error": ...}, not raised."""
    try:
        kwargs = {}
        kwargs["judgments"] = json.loads(judgments)
        result = _metric().compute(**kwargs)
    except (ValueError, TypeError) as error:  # json.JSONDecodeError is a ValueError
        return {"error": str(error)}
    return json.loads(json.dumps(result))  # fold ids and other int keys become JSON strings


with gr.Blocks(title="group_win_rate") as demo:
    gr.Markdown(DESCRIPTION)
    judgments = gr.Textbox(
        label="judgments",
        value=(
            '[{"contest_number": 543, "model_position": "A", "verdict": null, '
            '"delta_logprob": 4.1}, {"contest_number": 543, "model_position": "B", '
            '"verdict": "A", "delta_logprob": null}]'
        ),
        lines=3,
    )
    button = gr.Button("Compute", variant="primary")
    result = gr.JSON(label="result")
    button.click(compute, inputs=[judgments], outputs=result)

if __name__ == "__main__":
    demo.launch()
