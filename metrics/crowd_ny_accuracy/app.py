"""Gradio widget of the crowd_ny_accuracy metric Space (run `python app.py`)."""

from pathlib import Path

from nycc_bench.metric_widget import Field, metric_widget

MODULE = Path(__file__).resolve().parent / "crowd_ny_accuracy.py"
FIELDS = [
    Field("predictions", '["A", "B", "B", "A"]'),
    Field("references", '["A", "A", "B", "A"]'),
    Field("winner_sources", '["crowd_winner", "crowd_winner", "official_winner", "official_winner"]'),
    Field("folds", optional=True),
]
SUMMARY = "Quality-ranking accuracy overall, on crowd winners (CrowdAcc) and official winners (NYAcc)."
demo = metric_widget(MODULE, "crowd_ny_accuracy", SUMMARY, FIELDS)

if __name__ == "__main__":
    demo.launch()
