"""Gradio widget of the ead_diversity metric Space (run `python app.py`)."""

from pathlib import Path

from nycc_bench.metric_widget import Field, metric_widget

MODULE = Path(__file__).resolve().parent / "ead_diversity.py"
FIELDS = [
    Field("predictions", '[["The brochure said it was cozy.", "Nobody tell the landlord about the moat."], '
                         '["My lawyer will call the goldfish.", "My attorney will email the goldfish."]]', lines=3),
    Field("sbert_model", optional=True, json=False),
]
SUMMARY = "Average EAD and SBERT diversity of caption groups (Zhang et al. 2024); one list of captions per contest."
demo = metric_widget(MODULE, "ead_diversity", SUMMARY, FIELDS)

if __name__ == "__main__":
    demo.launch()
