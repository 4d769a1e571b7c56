"""`vlm:<model>`: a transformers image-text-to-text model; answers by generation (the runner parses letters).

The cartoon goes in as an image content part after the text, as `api.to_messages` orders it for the API
systems; the processor's chat template and `apply_chat_template(tokenize=True)` place the model's own image
tokens, so any model `AutoModelForImageTextToText` loads works. Images are attached for the from-pixels tasks
only: the from-description settings are text-only by definition, even where the dataset row carries the image.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

from ..kinds import Instance
from ..tasks import Task
from .base import Output
from .hf import ModelRef, PretrainedSystem, generation_config, load_pretrained, seed_batch, sent_settings
from .registry import register_system


def hf_messages(inst: Instance, with_image: bool) -> list[dict[str, Any]]:
    """An instance as transformers chat messages (content parts; a PIL image part, not a data URL)."""
    messages: list[dict[str, Any]] = []
    if inst.system:
        messages.append({"role": "system", "content": [{"type": "text", "text": inst.system}]})
    messages += [{"role": t["role"], "content": [{"type": "text", "text": t["content"]}]} for t in inst.turns]
    image = [{"type": "image", "image": inst.image.convert("RGB")}] if with_image and inst.image is not None else []
    messages.append({"role": "user", "content": [{"type": "text", "text": inst.user}, *image]})
    return messages


def check_chat_template(spec: str) -> Callable[[Any], None]:
    """A check that refuses a processor without a chat template (before the weights load)."""
    def check(processor: Any) -> None:
        if getattr(processor, "chat_template", None) is None:
            raise ValueError(f"system: the processor of {spec!r} has no chat template; vlm: needs one")
    return check


@register_system("vlm", form="vlm:<model>[@revision]", decoding=True, hub_model=True,
                 help="an image-text-to-text model, for the from-pixels tasks")
class VisionLanguageSystem(PretrainedSystem):
    """Batched greedy generation (left padding) through the processor's chat template."""

    def __init__(self, ref: ModelRef, batch_size: int = 4, device: str | None = None, dtype: str | None = None,
                 trust_remote_code: bool = False) -> None:
        from transformers import AutoModelForImageTextToText, AutoProcessor

        self.ref, self.spec, self.batch_size = ref, ref.spec, batch_size
        self.processor, self.model, self.revision = load_pretrained(
            ref, AutoModelForImageTextToText, AutoProcessor, device, dtype, trust_remote_code,
            check_processor=check_chat_template(ref.spec))
        self.tokenizer = self.processor.tokenizer
        if self.tokenizer.pad_token is None and self.tokenizer.eos_token is not None:
            self.tokenizer.pad_token = self.tokenizer.eos_token
        self.tokenizer.padding_side = "left"
        self._processor_kwargs = "processor_kwargs" in inspect.signature(self.processor.apply_chat_template).parameters

    def generate(self, task: Task, instances: list[Instance]) -> list[Output]:
        import torch

        if task.from_pixels and (missing := [i.instance_id for i in instances if i.image is None]):
            raise ValueError(f"system: {task.name} instance {missing[0]} has no image")
        conversations = [hf_messages(i, task.from_pixels) for i in instances]
        padding = {"padding": True, "padding_side": "left"}
        # transformers >= 5.x takes the processor's arguments as `processor_kwargs`; earlier 5.x as plain keywords
        padding = {"processor_kwargs": padding} if self._processor_kwargs else padding
        enc = self.processor.apply_chat_template(
            conversations, add_generation_prompt=True, tokenize=True, return_dict=True, return_tensors="pt",
            **padding)
        enc = enc.to(self.model.device, dtype=self.model.dtype)
        decoding = self._decoding(task)
        config = generation_config(self.model, self.tokenizer, decoding)
        seed_batch(decoding, instances)
        with torch.inference_mode():
            out = self.model.generate(**enc, generation_config=config)
        texts = self.processor.batch_decode(out[:, enc["input_ids"].shape[1]:], skip_special_tokens=True)
        return [Output(raw=t) for t in texts]

    def _decoding(self, task: Task) -> dict[str, Any]:
        """The task's decoding; more than one sample per prompt is refused (this system generates one)."""
        decoding = self.decoding(task)
        if int(decoding.get("samples") or 1) != 1:
            raise ValueError(f"system: vlm: generates one text per prompt; samples={decoding['samples']} is for hf:")
        return decoding

    def effective(self, task: Task) -> dict[str, Any]:
        return {"request": sent_settings(self._decoding(task)), "answer_by": "generation"}

    def describe(self) -> dict[str, Any]:
        return {**super().describe(), "mc_mode": "generate",
                "batch_size": self.batch_size}
