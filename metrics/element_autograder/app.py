"""Gradio widget of the element_autograder metric Space (run `python app.py`)."""

from pathlib import Path

from nycc_bench.metric_widget import Field, metric_widget

MODULE = Path(__file__).resolve().parent / "element_autograder.py"
FIELDS = [
    Field("predictions", '["The boss sits by the window.", "The boss sits by the window.", "A pun on stop."]'),
    Field("references", '["Leadership rotates with the seating chart.", "President until the next stop.", '
                        '"Stop means quit."]', lines=3),
    Field("judgments", '["PASS", "FAIL", "PASS"]'),
    Field("caption_ids", optional=True),
    Field("categories", '[[], [], ["wordplay"]]', optional=True),
    Field("human_labels", optional=True),
]
SUMMARY = "HumorBench element accuracy from autograder verdicts; add human_labels to validate the autograder."
demo = metric_widget(MODULE, "element_autograder", SUMMARY, FIELDS)

if __name__ == "__main__":
    demo.launch()
