"""The Gradio widget every metric Space shows (evaluate's own `launch_gradio_widget` is broken on gradio 6)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import evaluate


@dataclass(frozen=True)
class Field:
    """One input box: its argument name, an example value, and whether it is JSON or plain text."""

    name: str
    example: str = ""
    optional: bool = False
    json: bool = True
    lines: int = 1


@cache
def _load(module: str) -> evaluate.EvaluationModule:
    return evaluate.load(module)


def compute(module: str, fields: tuple[Field, ...], *values: str) -> dict[str, Any]:
    """Parse the boxes and run the metric; an input error is shown as {"error": ...}, not raised."""
    kwargs: dict[str, Any] = {}
    try:
        for field, value in zip(fields, values, strict=True):
            if field.optional and not value.strip():
                continue
            kwargs[field.name] = json.loads(value) if field.json else value.strip()
        result = _load(module).compute(**kwargs)
    except (ValueError, TypeError) as error:  # json.JSONDecodeError is a ValueError
        return {"error": str(error)}
    return json.loads(json.dumps(result, default=str))  # int keys (fold ids) become JSON strings


def metric_widget(module: Path, title: str, summary: str, fields: list[Field]) -> Any:
    """A Blocks app: one box per input (prefilled with a working example), Compute, the result as JSON."""
    import gradio as gr

    frozen = tuple(fields)
    with gr.Blocks(title=title) as demo:
        gr.Markdown(f"# {title}\n\n{summary} Inputs are JSON; see the card for the exact definitions.")
        boxes = [gr.Textbox(label=f.name + (" (optional)" if f.optional else ""), value=f.example, lines=f.lines)
                 for f in frozen]
        button = gr.Button("Compute", variant="primary")
        result = gr.JSON(label="result")
        button.click(lambda *values: compute(str(module), frozen, *values), inputs=boxes, outputs=result)
    return demo
