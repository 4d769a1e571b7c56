"""Gradio widget of the group_win_rate metric Space (run `python app.py`)."""

from pathlib import Path

from nycc_bench.metric_widget import Field, metric_widget

MODULE = Path(__file__).resolve().parent / "group_win_rate.py"
FIELDS = [
    Field("judgments", '[{"contest_number": 543, "model_position": "A", "verdict": null, "delta_logprob": 4.1}, '
                       '{"contest_number": 543, "model_position": "B", "verdict": "A", "delta_logprob": null}]',
          lines=3),
]
SUMMARY = "Group win rate of a caption generator against a human group, from judge verdicts (Zhang et al. 2024)."
demo = metric_widget(MODULE, "group_win_rate", SUMMARY, FIELDS)

if __name__ == "__main__":
    demo.launch()
