"""Training the humor reward model from `caption_ratings` (primary runs, train contests only by default)."""

from __future__ import annotations

import time
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from ..progress import stages
from .data import TARGETS, RewardData, contest_targets, load_reward_data, subsample
from .encoder import DEFAULT_MODEL, Embedder
from .evaluate import evaluate_reward_model
from .features import DEFAULT_NGRAMS, check_features, feature_matrix, ngram_matrix
from .model import RewardModel

DEFAULT_ALPHA = 10.0
DEFAULT_NGRAM_ALPHA = 30.0
DEFAULT_MAX_PER_CONTEST = 600
DEFAULT_TOP_PER_CONTEST = 100


def _ridge(x: Any, y: np.ndarray, alpha: float) -> tuple[np.ndarray, float]:
    """Ridge regression with an unpenalized intercept (scikit-learn; dense: Cholesky, sparse: CG)."""
    from scipy import sparse
    from sklearn.linear_model import Ridge

    solver = "sparse_cg" if sparse.issparse(x) else "cholesky"
    fitted = Ridge(alpha=alpha, solver=solver, tol=1e-6).fit(x, y)
    return np.asarray(fitted.coef_, dtype=np.float64), float(fitted.intercept_)


def _spread(values: np.ndarray) -> float:
    std = float(np.std(values))
    return 1.0 / std if std > 0 else 1.0


def train_reward_model(
    dataset: str | Path | RewardData,
    embedding_model: str = DEFAULT_MODEL,
    out_dir: str | Path | None = None,
    *,
    target: str = "zscore",
    features: Sequence[str] = ("caption",),
    ngrams: dict[str, Any] | None = DEFAULT_NGRAMS,
    alpha: float = DEFAULT_ALPHA,
    ngram_alpha: float = DEFAULT_NGRAM_ALPHA,
    splits: Sequence[str] = ("train",),
    exclude_contests: Iterable[int] = (),
    max_per_contest: int | None = DEFAULT_MAX_PER_CONTEST,
    top_per_contest: int = DEFAULT_TOP_PER_CONTEST,
    seed: int = 0,
    evaluate: bool = True,
    eval_pairs_per_contest: int | None = 50,
    eval_max_contests: int | None = None,
    embedder: Embedder | None = None,
    progress: bool | None = None,
    data_source: str | None = None,
    negatives: bool = True,
) -> RewardModel:
    """Fit the reward model on rated captions and (with `out_dir`) save it.

    - Data: `caption_ratings` of a built dataset folder / Hub repo (or a loaded `RewardData`), primary run
      of each contest, contests of `splits` (default: Zhang's train contests only) minus
      `exclude_contests`. The target (`zscore` | `percentile` | `mean`) is computed within each contest
      over all its captions.
    - Embedding branch: a ridge (`alpha`) over `features` of the caption embeddings of at most
      `max_per_contest` captions per contest (the `top_per_contest` best ranked plus a seeded uniform
      sample of the rest; None = every caption): embedding is the costly step on a CPU.
    - N-gram branch (`ngrams`, None to leave it out): a ridge (`ngram_alpha`) over hashed word n-grams of
      every caption of those contests (cheap).
    - Each branch is weighted by 1 / the std of its predictions on the embedded training captions.
    - `evaluate`: score the held-out checks of `nycc_bench.reward.evaluate` on every contest of the data
      not trained on (`eval_max_contests`: each check on a seeded sample of at most that many of its contests,
      recorded), and store them in config.json and the card.
    - `data_source` ("sample" or "public"): what the data is, said at the top of the card.
    - `negatives`: the dataset's prose sentences (`RewardData.prose`: descriptions, explanations, HumorBench
      elements) join both branches' training at a target one below the worst caption's, so fluent text that is not
      a caption (a news sentence, a recipe line) scores below the captions: trained on captions alone, the sample's
      model put such text above every human group.
    """
    steps = ["load the ratings", "embed", "fit", *(["evaluate"] if evaluate else []),
             *(["save"] if out_dir is not None else [])]  # each a bar's step: no silent minutes
    with stages(steps, "reward train", enable=progress is not False) as shown:
        start = time.perf_counter()
        if target not in TARGETS:
            raise ValueError(f"target must be one of {tuple(TARGETS)}, got {target!r}")
        features = check_features(features)
        shown.step("load the ratings")
        data = dataset if isinstance(dataset, RewardData) else load_reward_data(dataset)
        excluded = {int(c) for c in exclude_contests}
        ratings = data.ratings[data.ratings.split.isin(list(splits)) & ~data.ratings.contest_number.isin(excluded)]
        if ratings.empty:
            raise ValueError(f"no primary rated captions in splits {list(splits)} (minus excluded contests) to "
                             "train on")
        ratings = ratings.assign(target=contest_targets(ratings, target))
        sample = subsample(ratings, max_per_contest, top_per_contest, seed)
        embedder = embedder or Embedder(embedding_model)
        if embedder.model_id != embedding_model:
            raise ValueError(f"embedder runs {embedder.model_id!r} but embedding_model is {embedding_model!r}")

        shown.step(f"embed {len(sample)} captions")
        captions = sample.caption.tolist()
        descriptions: list[str | None] = [data.descriptions.get(int(c)) for c in sample.contest_number]
        prose = [t for t in data.prose if t not in set(ratings.caption)] if negatives else []
        floor = float(ratings.target.min()) - 1.0  # below every rated caption
        captions += prose
        descriptions += [None] * len(prose)
        x = feature_matrix(captions, descriptions, features, embedder, progress=progress)
        shown.step("fit the ridge heads")
        y = np.concatenate([sample.target.to_numpy(), np.full(len(prose), floor)])
        coef, intercept = _ridge(x, y, alpha)
        tensors = {"coef": coef, "intercept": np.array([intercept])}
        weights = {"embedding": _spread(x @ coef + intercept)}
        if ngrams:
            ngram_coef, ngram_intercept = _ridge(ngram_matrix(ratings.caption.tolist() + prose, ngrams),
                                                 np.concatenate([ratings.target.to_numpy(), y[len(sample):]]),
                                                 ngram_alpha)
            tensors["ngram_coef"] = ngram_coef.astype(np.float32)  # stored as float32: the in-memory model matches
            tensors["ngram_intercept"] = np.array([ngram_intercept])
            weights["ngrams"] = _spread(
                ngram_matrix(captions, ngrams) @ tensors["ngram_coef"].astype(np.float64) + ngram_intercept
            )
        contests = sorted(int(c) for c in ratings.contest_number.unique())
        config: dict[str, Any] = {
            "embedding_model": embedding_model,
            **({"data_source": data_source} if data_source else {}),
            "embedding_dim": embedder.dimension,
            "features": features,
            "ngrams": dict(ngrams) if ngrams else None,
            "weights": weights,
            "target": target,
            "target_description": TARGETS[target],
            "head": "ridge",
            "alpha": alpha,
            "ngram_alpha": ngram_alpha if ngrams else None,
            "training": {
                "dataset_config": "caption_ratings (primary runs)",
                "splits": list(splits),
                "excluded_contests": sorted(excluded),
                "contests": contests,
                "n_rated_captions": len(ratings),
                "n_captions": len(sample),
                "max_per_contest": max_per_contest,
                "top_per_contest": top_per_contest,
                "sampling": "every caption" if max_per_contest is None else (
                    f"embedding branch: the {top_per_contest} best ranked + a seeded uniform sample, at most "
                    f"{max_per_contest} per contest; n-gram branch: every caption"
                ),
                "seed": seed,
                "negatives": {"n": len(prose), "target": floor,
                              "source": "sentences of the dataset's descriptions, explanations and HumorBench "
                                        "elements (not captions), at one below the worst caption's target"}
                if prose else None,
            },
        }
        model = RewardModel(config, tensors, embedder=embedder)
        model.config["training"]["seconds"] = round(time.perf_counter() - start, 2)
        if evaluate:
            shown.step("evaluate on held-out contests")
            held = set(data.ratings.contest_number) | set(data.groups.contest_number) | set(data.pairs.contest_number)
            result = evaluate_reward_model(
                model, data, contests=held - set(contests), max_pairs_per_contest=eval_pairs_per_contest, seed=seed,
                max_contests=eval_max_contests,
            )
            result.pop("judgments")
            model.config["metrics"] = result
            model.config["training"]["eval_max_contests"] = eval_max_contests
            model.config["training"]["eval_pairs_per_contest"] = eval_pairs_per_contest
        if out_dir is not None:
            shown.step("save")
            model.save(out_dir)
        return model


def train(
    dataset: str | Path,
    out_dir: str | Path,
    embedding_model: str = DEFAULT_MODEL,
    **options: Any,
) -> dict[str, Any]:
    """`train_reward_model` for the command line: returns what it saved as a plain dict
    (`out_dir`, `fingerprint`, `training`, `metrics`, `seconds`)."""
    start = time.perf_counter()
    model = train_reward_model(dataset, embedding_model, out_dir, **options)
    return {
        "out_dir": str(out_dir),
        "fingerprint": model.fingerprint,
        "training": model.config["training"],
        "metrics": model.config.get("metrics"),
        "seconds": round(time.perf_counter() - start, 2),
    }
