"""HumorBench element grading without an LLM: embedding similarity of element and explanation, thresholded.

The grader's score for an (element, explanation) row is a cosine similarity of unit-norm sentence embeddings:

- ``max_sentence`` (default): the highest similarity of the element to one sentence of the explanation;
- ``top2_mean``: the mean of the two highest sentence similarities;
- ``whole``: the similarity to the whole explanation.

PASS iff score ≥ threshold and the explanation is one (``nycc_bench.textcheck``), the threshold fitted on
human-labelled rows (``rubric/*.csv``) to maximize accuracy (or balanced accuracy). `cross_validate_grader`
measures it on rows it was not fitted on (grouped k-fold by element ``idx``, so an element is never graded by
a threshold fitted on it). Records mirror the LLM autograder's
(``nycc_bench.judge.protocols.humorbench.grade_elements``)::

    {"index", "verdict": "PASS"|"FAIL", "reasoning", "graded_explanation", "raw", "prompt_version", "error"}

No cross-encoder (NLI) model can be had offline here, so none is offered.
"""

from __future__ import annotations

import hashlib
import json
import re
import time
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from nycc_bench.scoring.checks import check_strings
from nycc_bench.textcheck import check_texts

from .encoder import DEFAULT_MODEL, Embedder
from .folder import CARD_FILE, CONFIG_FILE, WEIGHTS_FILE, read_config, read_tensors, resolve_folder, write_folder

FORMAT = "nycc-bench-embedding-grader"
FORMAT_VERSION = 1
SCORES = ("max_sentence", "top2_mean", "whole")
OBJECTIVES = ("accuracy", "balanced")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+|\n+")


def split_sentences(text: str) -> list[str]:
    """Sentences of an explanation: split after . ! ? followed by space, and at line breaks.

    >>> split_sentences("It is a pun. The wife is a lawyer!\\nHence the joke")
    ['It is a pun.', 'The wife is a lawyer!', 'Hence the joke']
    >>> split_sentences("   ")
    ['']
    """
    parts = [p.strip() for p in _SENTENCE_END.split(text.strip())]
    return [p for p in parts if p] or [""]


def similarity_scores(
    elements: Sequence[str], explanations: Sequence[str], score: str, embedder: Embedder
) -> np.ndarray:
    """The grader score (see the module docstring) of each (element, explanation) row."""
    if score not in SCORES:
        raise ValueError(f"score must be one of {SCORES}, got {score!r}")
    elements = check_strings(elements, "elements")
    explanations = check_strings(explanations, "explanations")
    if len(elements) != len(explanations):
        raise ValueError(f"elements has {len(elements)} items, explanations {len(explanations)}: expected one each")
    pieces = [[text] if score == "whole" else split_sentences(text) for text in explanations]
    flat = [p for row in pieces for p in row]
    vectors = embedder.embed(list(elements) + flat)
    e, s = vectors[: len(elements)].astype(np.float64), vectors[len(elements) :].astype(np.float64)
    out = np.empty(len(elements))
    start = 0
    for i, row in enumerate(pieces):
        sims = np.sort(s[start : start + len(row)] @ e[i])[::-1]
        out[i] = sims[:2].mean() if score == "top2_mean" else sims[0]
        start += len(row)
    return out


def fit_threshold(scores: Sequence[float], passed: Sequence[bool], objective: str = "accuracy") -> float:
    """The cut (PASS iff score ≥ cut) maximizing accuracy or balanced accuracy on labelled rows.

    Candidates are the midpoints between consecutive distinct scores and one below/above all; ties keep the
    lowest cut.

    >>> fit_threshold([0.1, 0.2, 0.8, 0.9], [False, False, True, True])
    0.5
    """
    if objective not in OBJECTIVES:
        raise ValueError(f"objective must be one of {OBJECTIVES}, got {objective!r}")
    s = np.asarray(scores, dtype=np.float64)
    y = np.asarray(passed, dtype=bool)
    if s.ndim != 1 or len(s) != len(y) or len(s) == 0:
        raise ValueError("scores and labels must be non-empty and of equal length")
    values = np.unique(s)
    cuts = np.concatenate([[values[0] - 1.0], (values[1:] + values[:-1]) / 2, [values[-1] + 1.0]])
    predicted = s[None, :] >= cuts[:, None]
    if objective == "accuracy":
        gain = (predicted == y[None, :]).mean(axis=1)
    else:
        tpr = (predicted & y).sum(axis=1) / max(1, y.sum())
        tnr = (~predicted & ~y).sum(axis=1) / max(1, (~y).sum())
        gain = (tpr + tnr) / 2
    return float(cuts[int(np.argmax(gain))])


class EmbeddingGrader:
    """PASS iff the element–explanation similarity (`config["score"]`) is at least `threshold`."""

    def __init__(self, threshold: float, config: Mapping[str, Any], *, embedder: Embedder | None = None) -> None:
        self.threshold = float(threshold)
        self.config = dict(config)
        if self.config.get("score") not in SCORES:
            raise ValueError(f"score must be one of {SCORES}, got {self.config.get('score')!r}")
        self.embedder = embedder or Embedder(self.config["embedding_model"])

    @property
    def fingerprint(self) -> str:
        """Short hash of model, score and threshold: names the grader in its records."""
        text = f"{self.config['embedding_model']}|{self.config['score']}|{self.threshold!r}"
        return hashlib.sha256(text.encode()).hexdigest()[:12]

    def similarity(self, elements: Sequence[str], explanations: Sequence[str]) -> np.ndarray:
        """The similarity score of each row."""
        return similarity_scores(elements, explanations, self.config["score"], self.embedder)

    def grade(self, elements: Sequence[str], explanations: Sequence[str]) -> list[str]:
        """"PASS" or "FAIL" per row."""
        return ["PASS" if s >= self.threshold else "FAIL" for s in self.similarity(elements, explanations)]

    def save(self, out_dir: str | Path) -> Path:
        """Write config.json, head.safetensors (the threshold) and README.md (the card)."""
        from .card import grader_card

        config = {
            **self.config, "format": FORMAT, "format_version": FORMAT_VERSION, "threshold": self.threshold,
            "fingerprint": self.fingerprint,
        }
        return write_folder(out_dir, config, {"threshold": np.array([self.threshold])}, grader_card(config))

    @classmethod
    def load(cls, path_or_repo: str | Path, *, embedder: Embedder | None = None) -> EmbeddingGrader:
        """Reload a saved folder, or download a Hub repo id first when no such local path exists."""
        folder = resolve_folder(path_or_repo, [CONFIG_FILE, WEIGHTS_FILE, CARD_FILE], "embedding grader")
        config = read_config(folder, FORMAT)
        threshold = read_tensors(folder).get("threshold")
        if threshold is None:
            raise ValueError(f"{folder / WEIGHTS_FILE} lacks 'threshold'")
        return cls(float(threshold[0]), config, embedder=embedder)


def fit_grader(
    rows: Sequence[Mapping[str, Any]],
    embedding_model: str = DEFAULT_MODEL,
    *,
    score: str = "max_sentence",
    objective: str = "accuracy",
    embedder: Embedder | None = None,
) -> EmbeddingGrader:
    """Fit the threshold on human-labelled rows (dicts with `element`, `explanation`, `label` PASS/FAIL)."""
    rows = _check_rows(rows)
    embedder = embedder or Embedder(embedding_model)
    scores = similarity_scores([r["element"] for r in rows], [r["explanation"] for r in rows], score, embedder)
    passed = [r["label"] == "PASS" for r in rows]
    config = {
        "embedding_model": embedder.model_id, "score": score, "objective": objective, "n_train": len(rows),
        "train_pass_rate": float(np.mean(passed)),
    }
    return EmbeddingGrader(fit_threshold(scores, passed, objective), config, embedder=embedder)


def cross_validate_grader(
    rows: Sequence[Mapping[str, Any]],
    embedding_model: str = DEFAULT_MODEL,
    *,
    score: str = "max_sentence",
    objective: str = "accuracy",
    n_folds: int = 5,
    seed: int = 0,
    embedder: Embedder | None = None,
) -> dict[str, Any]:
    """Grouped k-fold validation against human labels: each fold's rows are graded with a threshold fitted
    on the other folds only; folds group rows by element `idx` (all explainers of an element together).

    Returns `nycc_bench.scoring.validation_scores` of the pooled out-of-fold verdicts (accuracy with a
    bootstrap CI over captions, fpr, fnr, tp, fp, tn, fn, n) plus `majority_accuracy` (always PASS),
    `thresholds` (one per fold), `n_folds`, `score`, `objective`, `verdicts`.
    """
    from nycc_bench.scoring.autograder import validation_scores

    rows = _check_rows(rows)
    embedder = embedder or Embedder(embedding_model)
    scores = similarity_scores([r["element"] for r in rows], [r["explanation"] for r in rows], score, embedder)
    labels = [r["label"] for r in rows]
    passed = np.array([label == "PASS" for label in labels])
    keys = [str(r.get("idx", i)) for i, r in enumerate(rows)]
    unique = sorted(set(keys))
    if len(unique) < n_folds:
        raise ValueError(f"{len(unique)} distinct elements (idx) cannot fill {n_folds} folds")
    order = np.random.default_rng(seed).permutation(len(unique))
    fold_of = {unique[j]: k % n_folds for k, j in enumerate(order)}
    folds = np.array([fold_of[k] for k in keys])
    verdicts = np.empty(len(rows), dtype=object)
    thresholds = []
    for fold in range(n_folds):
        test = folds == fold
        cut = fit_threshold(scores[~test], passed[~test], objective)
        thresholds.append(cut)
        verdicts[test] = np.where(scores[test] >= cut, "PASS", "FAIL")
    captions = [r.get("caption", i) for i, r in enumerate(rows)]
    metrics = validation_scores(list(verdicts), labels, captions, seed=seed)
    return {
        **metrics,
        "majority_accuracy": float(max(passed.mean(), 1 - passed.mean())),
        "thresholds": thresholds,
        "n_folds": n_folds,
        "score": score,
        "objective": objective,
        "verdicts": list(verdicts),
    }


def grade_elements_embedding(
    descriptions: Sequence[str],
    captions: Sequence[str],
    elements: Sequence[str],
    explanations: Sequence[str],
    grader: EmbeddingGrader | str | Path,
    last_k_tokens: int | None = None,
    tokenizer: Any = None,
) -> list[dict[str, Any]]:
    """Grade each explanation against its element: PASS or FAIL, in input order, as the LLM autograder's records.

    `descriptions` and `captions` are checked for length but unused (the grader reads element and
    explanation only); `grader` is an EmbeddingGrader or a saved folder / Hub id; `last_k_tokens` keeps only
    the explanation's last k tokens first (HumorBench's length control).
    """
    from nycc_bench.judge.protocols.humorbench import truncate_last_k

    columns = {"descriptions": descriptions, "captions": captions, "elements": elements,
               "explanations": explanations}
    lengths = {name: len(check_strings(values, name)) for name, values in columns.items()}
    if len(set(lengths.values())) > 1:
        raise ValueError(f"inputs differ in length: {lengths}")
    grader = grader if isinstance(grader, EmbeddingGrader) else EmbeddingGrader.load(grader)
    graded = [truncate_last_k(text, last_k_tokens, tokenizer) for text in explanations]
    scores = grader.similarity(elements, graded)
    # an explanation that is not one (textcheck: garbage, another language, a copy of the caption or the
    # description, ...) fails every element whatever its similarity
    flags = check_texts(graded, "explanation", [[d, c] for d, c in zip(descriptions, captions, strict=True)],
                        tokenizer=grader.embedder.tokenizer)
    version = f"embedding-grader:{grader.fingerprint}"
    records = []
    for i, (text, value, flag) in enumerate(zip(graded, scores, flags, strict=True)):
        verdict = "PASS" if value >= grader.threshold and flag is None else "FAIL"
        reasoning = f"{grader.config['score']} similarity {value:.4f} " \
                    f"{'>=' if value >= grader.threshold else '<'} threshold {grader.threshold:.4f}"
        records.append({
            "index": i,
            "verdict": verdict,
            "reasoning": reasoning if flag is None else f"not an explanation ({flag}); {reasoning}",
            "graded_explanation": text,
            "raw": json.dumps({"similarity": float(value), "threshold": grader.threshold,
                               **({"flag": flag.to_dict()} if flag is not None else {})}),
            "prompt_version": version,
            "error": None,
            **({"flagged": flag.to_dict()} if flag is not None else {}),
        })
    return records


def train_grader(
    rubric: str | Path | Iterable[str | Path],
    out_dir: str | Path,
    embedding_model: str = DEFAULT_MODEL,
    *,
    score: str = "max_sentence",
    objective: str = "accuracy",
    n_folds: int = 5,
    seed: int = 0,
    data_source: str | None = None,
    embedder: Embedder | None = None,
) -> dict[str, Any]:
    """Cross-validate on the labelled rubric rows, fit the threshold on all of them, save the folder (`data_source`:
    "sample" or "public", said at the top of the card; `embedder`: one to share, e.g. with a disk store).

    `rubric` is a `rubric/` folder, a CSV or several (unlabelled rows are skipped). Returns
    `{"out_dir", "threshold", "fingerprint", "cross_validation" (without verdicts), "n_skipped", "seconds"}`.
    """
    from nycc_bench.judge.protocols.humorbench import load_rubric

    start = time.perf_counter()
    rows, skipped = load_rubric(rubric)
    embedder = embedder or Embedder(embedding_model, cache=True)
    cv = cross_validate_grader(
        rows, embedding_model, score=score, objective=objective, n_folds=n_folds, seed=seed, embedder=embedder
    )
    cv.pop("verdicts")
    grader = fit_grader(rows, embedding_model, score=score, objective=objective, embedder=embedder)
    grader.config["cross_validation"] = cv
    grader.config["n_skipped_unlabelled"] = skipped
    if data_source:
        grader.config["data_source"] = data_source
    # the rows it was fitted on, by digest: `judges report` grades these by cross-validation, never in-sample
    grader.config["trained_rows"] = sorted({row_digest(r["element"], r["explanation"]) for r in rows})
    grader.save(out_dir)
    return {
        "out_dir": str(out_dir),
        "threshold": grader.threshold,
        "fingerprint": grader.fingerprint,
        "cross_validation": cv,
        "n_skipped": skipped,
        "seconds": round(time.perf_counter() - start, 2),
    }


def row_digest(element: str, explanation: str) -> str:
    """How a grader's config names a labelled row it was fitted on."""
    return hashlib.sha256(f"{element}\0{explanation}".encode()).hexdigest()[:16]


def _check_rows(rows: Sequence[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    rows = list(rows)
    if not rows:
        raise ValueError("no labelled rows: expected dicts with element, explanation and label PASS/FAIL")
    for i, row in enumerate(rows):
        for key in ("element", "explanation", "label"):
            if not isinstance(row.get(key), str):
                raise ValueError(f"rows[{i}][{key!r}] = {row.get(key)!r}; expected a string")
        if row["label"] not in ("PASS", "FAIL"):
            raise ValueError(f"rows[{i}]['label'] = {row['label']!r}; expected 'PASS' or 'FAIL'")
    return rows
