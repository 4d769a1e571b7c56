"""Baselines that need no network: random (seeded), caption length, and SBERT similarity / retrieval."""

from __future__ import annotations

import random
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..kinds import Instance
from ..kinds import stable_seed as _seed
from ..splits import read_rows
from ..tasks import Task
from .base import Output, System, SystemCannotAnswer
from .registry import register_system

if TYPE_CHECKING:
    import numpy as np

POOL_TOP_RANKS = 200  # retrieval pools hold each train contest's 200 best-rated captions


def pool_source(task: Task) -> tuple[str, str]:
    """The (config, split) a retrieval baseline draws `task`'s answers from (see `text_pool`)."""
    return ("caption_ratings", "train") if task.outputs.count > 1 else ("explanation", "train")


def text_pool(task: Task, dataset: str) -> list[str]:
    """Train-split texts a retrieval baseline may answer with (never the split being scored).

    Captions: the best-rated captions of every train contest's primary rating run. Explanations: the human
    explanations of Hessel's `explanation` train split (also used for HumorBench, which has no train split).
    """
    if task.outputs.count > 1:  # several captions per item
        import pyarrow.compute as pc

        ratings = read_rows(dataset, *pool_source(task)).table
        ratings = ratings.filter(pc.and_(ratings["is_primary"], pc.less(ratings["rank"], POOL_TOP_RANKS)))
        pool = list(dict.fromkeys(ratings["caption"].to_pylist()))
    else:
        pool = list(dict.fromkeys(read_rows(dataset, *pool_source(task))["label"]))
    if not pool:
        raise ValueError(f"dataset: no train texts to draw {task.name} answers from")
    return pool


@register_system("random", form="random[:SEED]", baseline="Random baseline",
                 help="uniform random letters; random train texts for generation (seeded per instance)",
                 limitation="Chance level by construction: a floor to compare against, not a model of humor.")
class RandomSystem(System):
    """Uniform random letters; for generation, random train texts. Seeded per instance, so order-independent."""

    def __init__(self, dataset: str, seed: int = 0) -> None:
        self.spec, self.dataset, self.seed = f"random:{seed}" if seed else "random", dataset, seed

    @classmethod
    def from_spec(cls, arg: str, dataset: str, base_url: str | None = None) -> RandomSystem:
        """`random` or `random:SEED`."""
        if arg and not arg.isdigit():
            raise ValueError(f"system: random takes a whole-number seed (random:7), got {f'random:{arg}'!r}")
        return cls(dataset, int(arg or 0))

    def choose(self, task: Task, instances: list[Instance]) -> list[Output]:
        out = []
        for inst in instances:
            letter = random.Random(_seed(self.seed, inst.instance_id)).choice(inst.letters)
            out.append(Output(raw=letter, letter=letter))
        return out

    def generate(self, task: Task, instances: list[Instance]) -> list[Output]:
        pools = self.__dict__.setdefault("_pools", {})  # read once per pool for every batch of this run
        key = (pool_source(task), task.outputs.count > 1)
        pool = pools[key] if key in pools else pools.setdefault(key, text_pool(task, self.dataset))
        k = task.outputs.count
        out = []
        for inst in instances:
            picked = random.Random(_seed(self.seed, inst.instance_id)).sample(pool, min(k, len(pool)))
            out.append(Output(raw="\n".join(f"{i}. {t}" for i, t in enumerate(picked, 1)) if k > 1 else picked[0]))
        return out

    def reads(self, task: Task) -> list[tuple[str, str]]:
        return [pool_source(task)] if task.kind == "generation" else []

    def describe(self) -> dict:
        return {"spec": self.spec, "seed": self.seed}


@register_system("length", baseline="Longest-caption baseline", help="the longest caption (multiple choice only)",
                 limitation="Multiple-choice tasks only. It measures how far an answer key rewards the longest "
                            "caption.")
class LengthSystem(System):
    """Pick the longest caption (characters; ties go to the earlier letter): a test of length bias."""

    spec = "length"
    answers = frozenset({"choice"})

    def choose(self, task: Task, instances: list[Instance]) -> list[Output]:
        import numpy as np

        out = []
        for inst in instances:
            letter = inst.letters[int(np.argmax([len(c) for c in inst.choices]))]
            out.append(Output(raw=letter, letter=letter))
        return out

    def generate(self, task: Task, instances: list[Instance]) -> list[Output]:
        raise SystemCannotAnswer(f"system: length answers multiple-choice tasks only, not {task.name}")


@register_system(
    "sbert", form="sbert:<model>", baseline="SBERT similarity baseline (all-MiniLM-L6-v2)",
    baseline_spec="sbert:all-MiniLM-L6-v2", hub_model=True,
    help="sentence-transformers similarity of description and caption; retrieval of train texts for generation "
         "(sbert:all-MiniLM-L6-v2 works offline)",
    limitation="It ranks by similarity to the scene description, not by humor. It needs a text description, so it "
               "never runs from pixels. Generation is retrieval of train-split human texts, so its explanation and "
               "caption scores measure overlap with retrieved human writing.")
class SbertSystem(System):
    """Sentence-embedding similarity between the cartoon description and each candidate text.

    Choice tasks: the caption closest to the description. Generation: retrieval of the closest train texts
    (10 captions for caption generation, one explanation otherwise).
    """

    inputs = frozenset({"description"})

    def __init__(self, model: str, dataset: str, batch_size: int = 64) -> None:
        from ..scoring.sbert import resolve_model_path
        from .hub_check import check_hub_model

        self.spec, self.model_name, self.dataset, self.batch_size = f"sbert:{model}", model, dataset, batch_size
        self._path = str(resolve_model_path(model))
        hub_id = self._path if "/" in self._path else f"sentence-transformers/{self._path}"  # a bare name's repo
        # checked now, before the heavy imports: an unknown or unreachable model fails in seconds, in one line
        self._local_only = not Path(self._path).is_dir() and check_hub_model(self.spec, hub_id)

    @classmethod
    def from_spec(cls, arg: str, dataset: str, base_url: str | None = None, **options: Any) -> SbertSystem:
        """`sbert:<model>` (a sentence-transformers name, Hub id or folder)."""
        return cls(arg, dataset, **options)

    @cached_property
    def model(self) -> Any:  # sentence_transformers is imported lazily: it is an optional extra
        from sentence_transformers import SentenceTransformer

        from .hub_check import load_error

        try:
            return SentenceTransformer(self._path, device="cpu", local_files_only=self._local_only)
        except (OSError, ValueError) as err:
            raise load_error(self.spec, self._path, err) from None

    def _embed(self, texts: list[str]) -> np.ndarray:
        """Unit-norm embeddings of `texts`, one row each: a local model's through the embedding cache (a text
        embedded before, in another fold or run, is read back and the model loads only for new text)."""
        if not Path(self._path).is_dir():  # a Hub id: loaded as the Hub check said (cached only, when offline)
            return self.model.encode(texts, batch_size=self.batch_size, normalize_embeddings=True,
                                     convert_to_numpy=True, show_progress_bar=False)
        from ..scoring.sbert import embed
        from .hub_check import load_error

        try:
            return embed(texts, self._path, batch_size=self.batch_size, device="cpu")
        except (OSError, ValueError) as err:
            raise load_error(self.spec, self._path, err) from None

    def _check(self, task: Task, instances: list[Instance]) -> None:
        if missing := [i.instance_id for i in instances if not i.context]:
            raise SystemCannotAnswer(f"system: sbert needs a text description, and {task.name} instance {missing[0]} "
                             "has none (from-pixels tasks: use clip:<model>)")

    def choose(self, task: Task, instances: list[Instance]) -> list[Output]:
        import numpy as np

        self._check(task, instances)
        contexts = self._embed([i.context for i in instances])
        choices = [c for inst in instances for c in inst.choices]
        rows = dict(zip(choices, self._embed(choices), strict=True)) if choices else {}  # one encode for all
        out = []
        for inst, ctx in zip(instances, contexts, strict=True):
            sims = np.stack([rows[c] for c in inst.choices]) @ ctx
            letter = inst.letters[int(np.argmax(sims))]
            out.append(Output(raw={"similarities": [round(float(s), 6) for s in sims]}, letter=letter))
        return out

    def generate(self, task: Task, instances: list[Instance]) -> list[Output]:
        import numpy as np

        self._check(task, instances)
        pool = text_pool(task, self.dataset)
        pool_emb = self._embed(pool)
        k = task.outputs.count
        sims = self._embed([i.context for i in instances]) @ pool_emb.T
        out = []
        for row in sims:
            best = np.argsort(-row, kind="stable")[:k]
            texts = [pool[j] for j in best]
            out.append(Output(raw="\n".join(f"{i}. {t}" for i, t in enumerate(texts, 1)) if k > 1 else texts[0]))
        return out

    def reads(self, task: Task) -> list[tuple[str, str]]:
        return [pool_source(task)] if task.kind == "generation" else []

    def describe(self) -> dict:
        return {"spec": self.spec, "model": self.model_name}
