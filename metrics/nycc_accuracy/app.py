"""Gradio widget of the nycc_accuracy metric Space (run `python app.py`)."""

from pathlib import Path

from nycc_bench.metric_widget import Field, metric_widget

MODULE = Path(__file__).resolve().parent / "nycc_accuracy.py"
FIELDS = [
    Field("predictions", '["A", "C", "E", "B", "A"]'),
    Field("references", '["A", "C", "D", "B", "B"]'),
    Field("folds", '[0, 0, 0, 1, 1]', optional=True),
]
SUMMARY = "Matching accuracy (Hessel et al. 2023), fold-averaged when folds are given."
demo = metric_widget(MODULE, "nycc_accuracy", SUMMARY, FIELDS)

if __name__ == "__main__":
    demo.launch()
