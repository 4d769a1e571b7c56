"""The reward model's input features: frozen caption embeddings, optionally tied to the cartoon description."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from nycc_bench.scoring.checks import is_missing

from .encoder import Embedder

# name -> what it adds to a caption's feature vector (in this order)
FEATURES: dict[str, str] = {
    "caption": "the caption's unit-norm sentence embedding",
    "description_product": "element-wise product of caption and description embeddings (zeros without description)",
    "description_cosine": "cosine of caption and description embeddings (0 without description)",
    "log_words": "log(1 + number of whitespace-separated words of the caption)",
}
DESCRIPTION_FEATURES = frozenset({"description_product", "description_cosine"})


def check_features(names: Sequence[str]) -> list[str]:
    """Validate feature names; "caption" must come first, each name once."""
    names = list(names)
    unknown = [n for n in names if n not in FEATURES]
    if unknown:
        raise ValueError(f"unknown feature(s) {unknown}; known: {', '.join(FEATURES)}")
    if not names or names[0] != "caption" or len(set(names)) != len(names):
        raise ValueError(f"features must start with 'caption' and name each feature once, got {names}")
    return names


def feature_matrix(
    captions: Sequence[str],
    descriptions: Sequence[str | None] | None,
    features: Sequence[str],
    embedder: Embedder,
    *,
    caption_embeddings: np.ndarray | None = None,
    progress: bool | None = None,
) -> np.ndarray:
    """(len(captions), width) float64 features; `caption_embeddings` skips re-embedding the captions."""
    e = embedder.embed(captions, progress=progress) if caption_embeddings is None else caption_embeddings
    e = np.asarray(e, dtype=np.float64)
    columns = [e]
    needs_description = DESCRIPTION_FEATURES.intersection(features)
    d = np.zeros_like(e)
    if needs_description and descriptions is not None:
        present = [i for i, text in enumerate(descriptions) if not is_missing(text) and text.strip()]
        if present:
            d[present] = embedder.embed([descriptions[i] for i in present], progress=False)
    for name in features[1:]:
        if name == "description_product":
            columns.append(e * d)
        elif name == "description_cosine":
            columns.append(np.einsum("ij,ij->i", e, d)[:, None])
        elif name == "log_words":
            columns.append(np.log1p([len(c.split()) for c in captions])[:, None])
    return np.hstack(columns)


# Hashed n-gram branch: no vocabulary to store, so the saved head is just the weight vector.
DEFAULT_NGRAMS: dict[str, Any] = {"analyzer": "word", "ngram_range": [1, 2], "n_features": 2**20, "lowercase": True}


def ngram_matrix(captions: Sequence[str], spec: dict[str, Any]):  # -> scipy.sparse.csr_matrix
    """L2-normalized hashed n-gram counts of the captions (scikit-learn's HashingVectorizer, signless)."""
    from sklearn.feature_extraction.text import HashingVectorizer

    if spec.get("analyzer") not in ("word", "char_wb", "char"):
        raise ValueError(f"ngram analyzer must be 'word', 'char_wb' or 'char', got {spec.get('analyzer')!r}")
    vectorizer = HashingVectorizer(
        analyzer=spec["analyzer"], ngram_range=tuple(spec["ngram_range"]), n_features=int(spec["n_features"]),
        lowercase=bool(spec.get("lowercase", True)), alternate_sign=False, norm="l2", dtype=np.float64,
    )
    return vectorizer.transform(list(captions))
