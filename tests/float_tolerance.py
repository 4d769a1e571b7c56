"""How closely a score computed again on this machine must match one written elsewhere (a golden value, the
committed seed, a recorded command's record), by where the number comes from."""

from __future__ import annotations

from collections.abc import Mapping

import pytest

ENCODER_ABS = 1e-6
"""A float through a neural encoder: float32 sentence embeddings (all-mpnet-base-v2), their cosine similarities
averaged over a caption group and over groups. torch's CPU kernels differ by instruction set and thread count in the
last bits of each float32 sum (float32's epsilon is 1.2e-7); the mean of a few hundred such similarities moves well
inside 1e-6 (two CPUs of CI's kind gave 0.7745735917289887 and ...881571043: 3.6e-9 apart), while a changed model,
text or formula moves it by far more than 1e-6."""

ARITHMETIC_REL = 1e-12
"""A float from Python/NumPy arithmetic on counts and text (accuracies, ROUGE, BLEU, EAD, win rates): deterministic
up to the order of a sum (3.12's `sum` is compensated), i.e. the last one or two of 17 digits."""

FROM_ENCODER = frozenset({"sbert_diversity"})
"""The score keys whose value and interval come through an encoder (the rest are counts of discrete decisions or
arithmetic on text: a judge's threshold turns its model's floats into verdicts)."""


def tolerance(key: str) -> dict[str, float]:
    """`pytest.approx` arguments for a score's value and interval: by its source (see above)."""
    return {"abs": ENCODER_ABS, "rel": 0} if key in FROM_ENCODER else {"rel": ARITHMETIC_REL, "abs": 1e-15}


def assert_scores_match(got: Mapping[str, Mapping], expected: Mapping[str, Mapping], where: str = "") -> None:
    """Two records' `scores` of one task agree: the same keys and counts, each float within its source's tolerance."""
    assert set(got) == set(expected), (where, sorted(got), sorted(expected))
    for key, score in expected.items():
        assert got[key].get("n") == score.get("n"), (where, key)
        for field in ("value", "ci_low", "ci_high"):
            want, have = score.get(field), got[key].get(field)
            if want is None or have is None:
                assert want is have, (where, key, field, have, want)
            else:
                assert have == pytest.approx(want, **tolerance(key)), (where, key, field, have, want)
