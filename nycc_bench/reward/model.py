"""The humor reward model: a linear head over frozen sentence embeddings that predicts a caption's funniness."""

from __future__ import annotations

import hashlib
from collections import OrderedDict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from nycc_bench.scoring.checks import check_strings, is_missing

from .encoder import Embedder
from .features import DESCRIPTION_FEATURES, check_features, feature_matrix, ngram_matrix
from .folder import CARD_FILE, CONFIG_FILE, WEIGHTS_FILE, read_config, read_tensors, resolve_folder, write_folder

FORMAT = "nycc-bench-reward-model"
FORMAT_VERSION = 1
PROTOCOL_STATISTICS = {"overall": "mean", "best_pick": "max"}
RECENT_CALLS = 4
"""How many recent `score` calls a model remembers (their inputs and scores): a bounded memory in a long-running
worker, enough for each protocol of a run."""


def check_descriptions(descriptions: str | Sequence[str | None] | None, n: int) -> list[str | None] | None:
    """None, one text for every caption, or one text (or None) per caption."""
    if descriptions is None or isinstance(descriptions, str):
        return None if descriptions is None else [descriptions] * n
    descriptions = list(descriptions)
    if len(descriptions) != n:
        raise ValueError(f"descriptions has {len(descriptions)} items, expected {n} (one per caption)")
    for i, text in enumerate(descriptions):
        if not is_missing(text) and not isinstance(text, str):
            raise ValueError(f"descriptions[{i}] = {text!r}; expected a string or None")
    return [None if is_missing(t) else t for t in descriptions]


class RewardModel:
    """Predicted funniness of a caption (higher is funnier): a weighted sum of two linear branches,

    - `embedding`: features of the caption's frozen sentence embedding (and optionally of the cartoon
      description, `config["features"]`) · `coef` + `intercept`;
    - `ngrams` (optional, `config["ngrams"]`): hashed word n-grams of the caption · `ngram_coef` +
      `ngram_intercept`.

    `config["weights"]` scales each branch (by default 1 / the spread of its predictions on its training
    captions, so neither dominates). Scores rank captions of one cartoon; across cartoons they are not
    comparable. Build one with `nycc_bench.reward.train_reward_model`, reload one with `RewardModel.load`.
    """

    def __init__(
        self,
        config: dict[str, Any],
        tensors: dict[str, np.ndarray],
        *,
        embedder: Embedder | None = None,
    ) -> None:
        self.config = dict(config)
        self.features = check_features(self.config["features"])
        missing = [k for k in self.tensor_names() if k not in tensors]
        if missing:
            raise ValueError(f"reward model weights lack {', '.join(missing)}")
        self.tensors = {k: np.asarray(tensors[k]) for k in self.tensor_names()}
        self.embedder = embedder or Embedder(self.config["embedding_model"])
        self._recent: OrderedDict[tuple[tuple[str, ...], tuple[str | None, ...] | None], np.ndarray] = OrderedDict()
        if self.embedder.model_id != self.config["embedding_model"]:
            raise ValueError(
                f"the embedder runs {self.embedder.model_id!r}, the head was trained on "
                f"{self.config['embedding_model']!r}"
            )

    def tensor_names(self) -> list[str]:
        """The arrays this model's head.safetensors holds."""
        names = ["coef", "intercept"]
        return names + (["ngram_coef", "ngram_intercept"] if self.config.get("ngrams") else [])

    @property
    def fingerprint(self) -> str:
        """Short hash of the head and its embedding model: names the judge in every judgment it writes."""
        digest = hashlib.sha256()
        for name in self.tensor_names():
            digest.update(name.encode() + np.ascontiguousarray(self.tensors[name]).tobytes())
        digest.update(repr([self.config["embedding_model"], self.features, self.config.get("ngrams"),
                            self.config.get("weights")]).encode())
        return digest.hexdigest()[:12]

    @property
    def uses_descriptions(self) -> bool:
        """Whether a description changes the scores."""
        return bool(DESCRIPTION_FEATURES.intersection(self.features))

    def branch_scores(
        self,
        captions: Sequence[str],
        descriptions: Sequence[str | None] | None = None,
        *,
        progress: bool | None = None,
        caption_embeddings: np.ndarray | None = None,
    ) -> dict[str, np.ndarray]:
        """Each branch's unweighted prediction (inputs already checked)."""
        x = feature_matrix(
            captions, descriptions, self.features, self.embedder,
            caption_embeddings=caption_embeddings, progress=progress,
        )
        coef = self.tensors["coef"]
        if x.shape[1] != len(coef):
            raise ValueError(f"{x.shape[1]} features but the head has {len(coef)} weights: wrong embedder?")
        out = {"embedding": x @ coef + float(self.tensors["intercept"][0])}
        if self.config.get("ngrams"):
            z = ngram_matrix(captions, self.config["ngrams"])
            out["ngrams"] = z @ self.tensors["ngram_coef"].astype(np.float64) + float(
                self.tensors["ngram_intercept"][0]
            )
        return out

    def score(
        self,
        captions: Sequence[str],
        descriptions: str | Sequence[str | None] | None = None,
        *,
        progress: bool | None = None,
        caption_embeddings: np.ndarray | None = None,
    ) -> np.ndarray:
        """One float per caption, higher = funnier; `descriptions` is one text, one per caption, or None.

        Long inputs show a progress bar (`progress=None`: from 2,048 distinct texts). `caption_embeddings`
        (rows of this model's embedder for `captions`) skips embedding.
        """
        captions = check_strings(captions, "captions")
        descriptions = check_descriptions(descriptions, len(captions))
        key = (tuple(captions), None if descriptions is None else tuple(descriptions))
        if caption_embeddings is None and key in self._recent:
            self._recent.move_to_end(key)
            return self._recent[key].copy()
        parts = self.branch_scores(captions, descriptions, progress=progress, caption_embeddings=caption_embeddings)
        weights = self.config.get("weights", {})
        scores = sum(float(weights.get(name, 1.0)) * part for name, part in parts.items())
        if caption_embeddings is None:
            # the same call again (Overall then Best Pick score the same groups) is answered from here: identical
            # to scoring again, since one set of texts always embeds to the same rows (Embedder)
            self._recent[key] = scores.copy()
            while len(self._recent) > RECENT_CALLS:
                self._recent.popitem(last=False)
        return scores

    def compare_groups(
        self,
        group_a: Sequence[str],
        group_b: Sequence[str],
        description: str | None = None,
        protocol: str = "overall",
    ) -> str:
        """"A" or "B": the group with the higher mean score (Overall) or the higher best score (Best Pick).

        An exact tie (identical groups) answers "A"; over both orders that is one win and one loss.
        """
        return self._group_verdict(group_a, group_b, description, protocol)[0]

    def _group_verdict(
        self, group_a: Sequence[str], group_b: Sequence[str], description: str | None, protocol: str
    ) -> tuple[str, float, float]:
        if protocol not in PROTOCOL_STATISTICS:
            raise ValueError(f"protocol must be one of {tuple(PROTOCOL_STATISTICS)}, got {protocol!r}")
        group_a = check_strings(group_a, "group_a")
        group_b = check_strings(group_b, "group_b")
        scores = self.score(group_a + group_b, description, progress=False)
        reduce = np.mean if protocol == "overall" else np.max
        a, b = float(reduce(scores[: len(group_a)])), float(reduce(scores[len(group_a) :]))
        return ("A" if a >= b else "B"), a, b

    def compare_pair(self, caption_a: str, caption_b: str, description: str | None = None) -> str:
        """"A" or "B": the funnier of two captions ("A" on an exact tie)."""
        a, b = self.score([caption_a, caption_b], description, progress=False)
        return "A" if a >= b else "B"

    def rerank(self, candidates: Sequence[str], k: int = 1, description: str | None = None) -> list[str]:
        """Best-of-N: the `k` highest-scoring candidates, best first (ties keep input order)."""
        candidates = check_strings(candidates, "candidates")
        if isinstance(k, bool) or not isinstance(k, int) or k < 1:
            raise ValueError(f"k must be a positive integer, got {k!r}")
        scores = self.score(candidates, description, progress=False)
        order = np.argsort(-scores, kind="stable")[:k]
        return [candidates[i] for i in order]

    def save(self, out_dir: str | Path) -> Path:
        """Write the folder: head.safetensors (the branch weights), config.json, README.md (the model card)."""
        from .card import reward_card

        config = {**self.config, "format": FORMAT, "format_version": FORMAT_VERSION, "fingerprint": self.fingerprint}
        return write_folder(out_dir, config, self.tensors, reward_card(config))

    @classmethod
    def load(cls, path_or_repo: str | Path, *, embedder: Embedder | None = None) -> RewardModel:
        """Reload a saved folder, or download a Hub repo id first when no such local path exists."""
        folder = resolve_folder(path_or_repo, [CONFIG_FILE, WEIGHTS_FILE, CARD_FILE], "reward model")
        return cls(read_config(folder, FORMAT), read_tensors(folder), embedder=embedder)
