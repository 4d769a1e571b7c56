"""Frozen sentence-transformers embeddings for the offline judges: one loaded model per path, texts deduplicated."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from nycc_bench.progress import PROGRESS_FROM  # inputs this long get a bar unless the caller says otherwise
from nycc_bench.scoring.sbert import TEST_MODEL, load_encoder

DEFAULT_MODEL = TEST_MODEL
DEFAULT_BATCH_SIZE = 128


class Embedder:
    """Unit-norm float32 embeddings of texts with one sentence-transformers model.

    `model` is a Hub id or a local folder; all-MiniLM-L6-v2 and all-mpnet-base-v2 resolve to their offline
    PyPI packages when installed (`nycc_bench.scoring.resolve_model_path`). Each distinct text is embedded
    once per call; with `cache=True` also once per Embedder (the benchmarks reuse embeddings across folds).
    Embeddings depend on the model, the text and, in the last bits of float32, on the other texts of the call
    (padding changes the matrix shapes); the same set of texts always gives the same output, in any order.
    `store=True` also keeps every vector in the embedding cache on disk (`nycc_bench.scoring.sbert`: by model and
    text hash), so a second training on the same data (`nycc-bench judges train`) embeds only new text; its rows
    then match a fresh encoding within float32 kernel noise, not bit for bit, so the sample's judges (whose
    fingerprints the seed names) never read it. `share=True` only writes there: every vector encoded is kept for
    later readers (the sbert baseline's retrieval pool and diversity read the same model's rows), while this
    Embedder's own rows are always encoded fresh (the sample's judges: their bits stay a function of the texts).
    """

    def __init__(
        self, model: str = DEFAULT_MODEL, *, device: str | None = None, batch_size: int = DEFAULT_BATCH_SIZE,
        cache: bool = False, store: bool = False, share: bool = False,
    ) -> None:
        if not isinstance(model, str) or not model:
            raise ValueError(f"embedding model must be a Hub id or a folder, got {model!r}")
        self.model_id = model
        self.device = device
        self.batch_size = batch_size
        self._cache: dict[str, np.ndarray] | None = {} if cache else None
        self.store = store
        self.share = share
        self.n_stored_hits = 0  # texts read back from the disk store instead of embedded

    @property
    def n_cached(self) -> int:
        """How many distinct texts the cache holds (0 without a cache)."""
        return len(self._cache or {})

    @property
    def dimension(self) -> int:
        """Width of the embeddings."""
        encoder = load_encoder(self.model_id, self.device)
        get = getattr(encoder, "get_embedding_dimension", None) or encoder.get_sentence_embedding_dimension
        return int(get())

    @property
    def tokenizer(self) -> Any:
        """The model's own tokenizer (its word-piece vocabulary tells invented strings from words: `textcheck`)."""
        return load_encoder(self.model_id, self.device).tokenizer

    def embed(self, texts: Sequence[str], *, progress: bool | None = None, desc: str = "embed") -> np.ndarray:
        """(len(texts), dimension) float32, one unit-norm row per text, in input order."""
        texts = list(texts)
        # sorted, so the batches (and the last float bits) depend on the set of texts, not on their order
        unique = sorted(set(texts))
        todo = unique if self._cache is None else [t for t in unique if t not in self._cache]
        rows: dict[str, np.ndarray] = {} if self._cache is None else self._cache
        if todo and self.store:
            from nycc_bench.scoring.sbert import embedding_cache, model_key

            found = embedding_cache().get(model_key(self.model_id), todo)
            self.n_stored_hits += len(found)
            rows.update(found)
            todo = [t for t in todo if t not in found]
        if todo:
            encoder = load_encoder(self.model_id, self.device)
            show = len(todo) >= PROGRESS_FROM if progress is None else progress
            vectors = encoder.encode(
                todo, batch_size=self.batch_size, convert_to_numpy=True, normalize_embeddings=True,
                show_progress_bar=show,
            )
            vectors = np.asarray(vectors, dtype=np.float32)
            if self.store or self.share:
                from nycc_bench.scoring.sbert import embedding_cache, model_key

                embedding_cache().put(model_key(self.model_id), todo, vectors)
            rows.update(zip(todo, vectors, strict=True))
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        return np.stack([rows[t] for t in texts])

