"""Any OpenAI-compatible chat endpoint (OpenAI, vLLM, TGI, Ollama) through the judge engine's client.

Sharing the engine gives systems the judge's cache, bounded concurrency, retries and cost accounting: a
re-run of `nycc-bench run` with an OpenAI system makes no new calls for instances already answered.
"""

from __future__ import annotations

import base64
import io
from typing import Any

from ..judge import JudgeConfig, JudgeEngine, generate_chats
from ..tasks import Task
from ..tasks.instances import Instance
from .base import Output, System


def image_url(image: Any) -> str | None:
    """A PIL image as a PNG data URL (None stays None)."""
    if image is None:
        return None
    buf = io.BytesIO()
    image.save(buf, format="PNG")
    return "data:image/png;base64," + base64.b64encode(buf.getvalue()).decode()


def image_part(image: Any) -> dict[str, Any]:
    """A PIL image as an OpenAI `image_url` content part."""
    return {"type": "image_url", "image_url": {"url": image_url(image)}}


def to_messages(inst: Instance) -> list[dict[str, Any]]:
    """An instance as OpenAI chat messages (the image, when there is one, goes before the text)."""
    messages: list[dict[str, Any]] = [{"role": "system", "content": inst.system}] if inst.system else []
    if inst.image is not None:
        messages.append({"role": "user", "content": [image_part(inst.image), {"type": "text", "text": inst.user}]})
    else:
        messages.append({"role": "user", "content": inst.user})
    return messages


class OpenAISystem(System):
    """Generation through the chat-completions API; multiple choice by parsing the generated answer."""

    batch_size = 64

    def __init__(self, model: str, base_url: str | None = None, temperature: float = 0.0,
                 max_tokens: int = 1024, max_concurrency: int = 16, cache_dir: str | None = None) -> None:
        self.spec = f"openai:{model}"
        self.config = JudgeConfig(backend="openai", model=model, base_url=base_url, temperature=temperature,
                                  max_tokens=max_tokens, max_concurrency=max_concurrency, cache_dir=cache_dir,
                                  progress=False)
        self.engine = JudgeEngine(self.config)

    def generate(self, task: Task, instances: list[Instance]) -> list[Output]:
        records = generate_chats([to_messages(i) for i in instances], self.engine,
                                 prompt_version=task.prompt_version)
        return [Output(raw=r["text"] if not r.get("error") else None) for r in records]

    def describe(self) -> dict[str, Any]:
        return {"spec": self.spec, "judge_config": self.config.to_dict()}
