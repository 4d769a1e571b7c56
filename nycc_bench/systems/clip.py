"""`clip:<model>`: CLIP zero-shot for matching and ranking from pixels (Hessel et al. 2023's baseline prompt)."""

from __future__ import annotations

from typing import Any

from ..kinds import Instance
from ..tasks import Task, all_tasks
from .base import Output, SystemCannotAnswer
from .hf import ModelRef, PretrainedSystem, load_pretrained
from .registry import register_system

CAPTION_PROMPT = "a new yorker cartoon with winning caption: {caption}"


@register_system("clip", form="clip:<model>[@revision]", hub_model=True,
                 help="CLIP zero-shot for matching/ranking from pixels")
class ClipSystem(PretrainedSystem):
    """The caption whose prompt text has the highest cosine similarity to the cartoon; raw = every similarity."""

    answers, inputs = frozenset({"choice"}), frozenset({"pixels"})

    def __init__(self, ref: ModelRef, batch_size: int = 32, device: str | None = None, dtype: str | None = None,
                 trust_remote_code: bool = False) -> None:
        from transformers import AutoModel, AutoProcessor

        self.ref, self.spec, self.batch_size = ref, ref.spec, batch_size
        self.processor, self.model, self.revision = load_pretrained(ref, AutoModel, AutoProcessor, device, dtype,
                                                                    trust_remote_code)
        text_config = getattr(self.model.config, "text_config", None)
        self.max_length = getattr(text_config, "max_position_embeddings", 77)

    def choose(self, task: Task, instances: list[Instance]) -> list[Output]:
        import numpy as np
        import torch

        if not task.from_pixels:
            pixels = ", ".join(n for n, t in all_tasks().items() if t.from_pixels and t.kind == "choice")
            raise SystemCannotAnswer(f"system: clip answers the from-pixels tasks; {task.name} is from description "
                                     f"(use one of {pixels})")
        if missing := [i.instance_id for i in instances if i.image is None]:
            raise ValueError(f"system: clip scores captions against the cartoon image, and {task.name} instance "
                             f"{missing[0]} has none")
        texts = [CAPTION_PROMPT.format(caption=c) for i in instances for c in i.choices]
        enc = self.processor(text=texts, images=[i.image.convert("RGB") for i in instances], return_tensors="pt",
                             padding=True, truncation=True, max_length=self.max_length)
        with torch.inference_mode():
            out = self.model(**enc.to(self.model.device, dtype=self.model.dtype))
        # image_embeds and text_embeds come out L2-normalised: their dot product is the cosine similarity
        sims = (out.image_embeds.float() @ out.text_embeds.float().T).cpu().numpy()
        outputs, start = [], 0
        for row, inst in zip(sims, instances, strict=True):
            scores = row[start:start + len(inst.choices)]
            start += len(inst.choices)
            outputs.append(Output(raw={"similarities": [round(float(s), 6) for s in scores]},
                                  letter=inst.letters[int(np.argmax(scores))]))
        return outputs

    def generate(self, task: Task, instances: list[Instance]) -> list[Output]:
        raise SystemCannotAnswer(f"system: clip answers multiple-choice tasks (matching/ranking from pixels), "
                                 f"not {task.name}")

    def effective(self, task: Task) -> dict[str, Any]:
        return {"answer_by": "image-caption similarity"}

    def describe(self) -> dict[str, Any]:
        return {**super().describe(), "mc_mode": "similarity",
                "prompt": CAPTION_PROMPT, "batch_size": self.batch_size}
