"""Gradio widget of the explanation_overlap metric Space (run `python app.py`)."""

from pathlib import Path

from nycc_bench.metric_widget import Field, metric_widget

MODULE = Path(__file__).resolve().parent / "explanation_overlap.py"
FIELDS = [
    Field("predictions", '["The man is a dog, so the leash joke is literal."]'),
    Field("references", '["The man is a dog, so the leash joke is literal."]'),
]
SUMMARY = "BLEU-4 (sacreBLEU) and ROUGE-L F1 of joke explanations against the human one."
demo = metric_widget(MODULE, "explanation_overlap", SUMMARY, FIELDS)

if __name__ == "__main__":
    demo.launch()
