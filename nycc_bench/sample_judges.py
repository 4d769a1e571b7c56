"""The offline judges of the embedded sample, named `reward:sample` and `embedding:sample`: trained on first use
(deterministic, about a minute on 2 cores) into the cache, keyed by the sample and the code that builds and
trains on it, so the leaderboard seed, the model cards, the demo and the tests name one judge whose recorded
command reruns as written on any machine."""

from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
from pathlib import Path
from typing import Any

from .errors import NyccBenchError
from .paths import PACKAGE, SAMPLE_DIR, cache_dir

SAMPLE = "sample"
"""The model of `reward:sample` / `embedding:sample` (a folder called sample is given as `./sample`)."""
PUBLIC = "public"
"""The model of `reward:public` / `embedding:public`: trained on the public data by `nycc-bench judges train`."""
DEFAULT = "default"
"""`reward:default` / `embedding:default`: the public judges where they are trained here, else the sample's
(`default_offline_model`, the one rule)."""
TRAINED_ON = {SAMPLE: "trained on the invented sample (offline demo)",
              PUBLIC: "trained on the public data (crowd ratings, human rubric labels)"}
"""How records, cards, the leaderboard and the About tab say what a named offline judge was trained on."""
FOLDERS = {"reward": "reward_model", "embedding": "element_grader"}
"""Each offline judge backend -> its folder in a set of offline judges."""
MINILM = "all-MiniLM-L6-v2"
SAMPLE_EVAL = {"eval_max_contests": 10, "eval_pairs_per_contest": 25}
"""The sample reward model's held-out checks: each on a seeded sample of at most 10 contests (of the 91
caption-generation contests), 25 preference pairs a contest: embedding every held-out group and 50 pairs a contest
was most of a fresh demo's time, for figures about invented data (both recorded in its config and card)."""
RUBRIC = Path("humorbench_reubennarad") / "rubric"  # the HumorBench rubric inside a source folder
# what the judges' weights and verdicts depend on, besides the sample
_TRAINING_CODE = ("reward", "builders", "sample_judges.py")


def train_judge_folders(dataset: str | Path, out: Path, rubric: Path | list[Path], data_source: str = "sample",
                        embedder: Any = None, max_per_contest: int | None = None,
                        progress: bool | None = None, **evaluation: int) -> dict[str, Path]:
    """Train the reward model and the element grader into `out` (deterministic); backend -> folder. `data_source`
    ("sample" or "public") is said at the top of each card; `embedder` (one Embedder for both, e.g. with its disk
    store), `max_per_contest` (the reward model's captions embedded per contest; None: its default) and
    `evaluation` (`eval_max_contests`, `eval_pairs_per_contest` of `train_reward_model`), all recorded, bound the
    work."""
    from .reward import train_grader, train_reward_model

    folders = {backend: out / name for backend, name in FOLDERS.items()}
    bound = {} if max_per_contest is None else {"max_per_contest": max_per_contest}
    train_reward_model(str(dataset), MINILM, folders["reward"], data_source=data_source, embedder=embedder,
                       progress=progress, **evaluation, **bound)
    # balanced: the sample rubric is mostly PASS, so plain accuracy would fit a threshold that passes everything
    train_grader(rubric, folders["embedding"], MINILM, objective="balanced", data_source=data_source,
                 embedder=embedder)
    return folders


def _files(root: Path) -> list[Path]:
    return sorted(p for p in root.rglob("*") if p.is_file() and "__pycache__" not in p.parts)


def sample_key() -> str:
    """A digest of the sample's files and of the building and training code: a change to either is a new set."""
    digest = hashlib.sha256(MINILM.encode())
    code = [(PACKAGE, f) for name in _TRAINING_CODE
            for f in (_files(PACKAGE / name) if (PACKAGE / name).is_dir() else [PACKAGE / name])]
    for root, path in [*((SAMPLE_DIR, f) for f in _files(SAMPLE_DIR)), *code]:
        digest.update(path.relative_to(root).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()[:16]


def sample_judges_dir(built: Path | None = None) -> Path:
    """The folder of the sample's offline judges (`$NYCC_BENCH_CACHE/judges/sample-<key>`), trained there first
    if it is missing; concurrent callers (test workers, a seed beside a demo) wait for one training. `built`: the
    sample as this code just built it (the demo's), trained on instead of building a copy."""
    from filelock import FileLock

    from .builders import build_dataset
    from .reward import Embedder

    folder = cache_dir("judges") / f"{SAMPLE}-{sample_key()}"
    if all((folder / name / "config.json").is_file() for name in FOLDERS.values()):
        return folder
    folder.parent.mkdir(parents=True, exist_ok=True)
    with FileLock(str(folder) + ".lock"):
        if all((folder / name / "config.json").is_file() for name in FOLDERS.values()):
            return folder
        with tempfile.TemporaryDirectory(prefix=f".{folder.name}-", dir=folder.parent) as tmp:
            work = Path(tmp)
            if built is None:
                built = work / "dataset"
                build_dataset(SAMPLE_DIR, built, progress=False)
            # share: the captions it encodes are the sbert baseline's retrieval pool, read back from the disk
            # cache instead of encoded twice (the judges' own rows stay fresh: their bits name the fingerprint)
            train_judge_folders(built, work / "judges", SAMPLE_DIR / RUBRIC,
                                embedder=Embedder(MINILM, share=True), **SAMPLE_EVAL)
            shutil.rmtree(folder, ignore_errors=True)
            os.replace(work / "judges", folder)  # whole or absent: a killed training leaves no half set
    return folder


def public_judges_dir() -> Path:
    """Where `nycc-bench judges train` puts the judges trained on the public data (`reward:public`,
    `embedding:public`)."""
    return cache_dir("judges") / PUBLIC


def public_judges_trained() -> bool:
    """Whether `nycc-bench judges train` has put both judges trained on the public data here."""
    return all((public_judges_dir() / name / "config.json").is_file() for name in FOLDERS.values())


def default_offline_model() -> tuple[str, str]:
    """THE rule of which offline judges are the default (`reward:default`, a leaderboard on the real data, the
    baselines' cards of real data): the ones trained on the public data where `nycc-bench judges train` has made
    them here, else the sample's; (model, why), the why recorded with the judge."""
    if public_judges_trained():
        return PUBLIC, f"the default offline judge: {TRAINED_ON[PUBLIC]} (`nycc-bench judges train`)"
    return SAMPLE, (f"the default offline judge fell back to the sample's, {TRAINED_ON[SAMPLE]}: no judges trained "
                    "on the public data here (`nycc-bench judges train --source DIR` makes them)")


def trained_on(backend: str, model: str) -> str | None:
    """What a named offline judge was trained on (`TRAINED_ON`); a folder's own card says it (None here)."""
    if backend not in FOLDERS or model not in TRAINED_ON or Path(model).exists():
        return None
    return TRAINED_ON[model]


def judge_folder(backend: str, model: str) -> str:
    """Where an offline judge's model is: `sample` is the sample's judge of that backend (trained if needed),
    `public` the one `nycc-bench judges train` trained on the public data; anything else is already a folder or a
    Hub repo id."""
    if model == DEFAULT and not Path(model).exists():
        model = default_offline_model()[0]
    if model == PUBLIC and not Path(model).exists():
        folder = public_judges_dir() / FOLDERS[backend]
        if not (folder / "config.json").is_file():
            raise NyccBenchError(f"judge: {backend}:{PUBLIC} is not trained here yet; run `nycc-bench judges train "
                                 "--source DIR` (DIR: the public upstream data) first")
        return str(folder)
    if model != SAMPLE:
        return model
    return str(sample_judges_dir() / FOLDERS[backend])


def train_public_judges(source: str | Path | list[str | Path], out: Path | None = None, progress: bool = True,
                        max_per_contest: int | None = None) -> dict[str, Path]:
    """Build the dataset from the public upstream files below `source` (one folder or several: the rating summaries
    of all, the HumorBench rubric wherever it is) and train both judges on it (the rating summaries of the train
    contests; the human rubric labels) into `out` (default: where `reward:public` / `embedding:public` look).
    Every embedding is kept in the disk embedding cache, so a rerun embeds only new text."""
    from .builders import build_dataset
    from .reward import Embedder

    roots = [Path(s) for s in (source if isinstance(source, list) else [source])]
    if missing := [str(r) for r in roots if not r.is_dir()]:
        raise NyccBenchError(f"source: {missing[0]} is not a folder; pass the folder of the public data")
    # os.walk with followlinks: an upstream mirror is often symlinked folders, which Path.rglob does not enter
    rubric = sorted(Path(top) / name for r in roots for top, _, names in os.walk(r, followlinks=True)
                    for name in names if name.endswith(".csv") and Path(top).name == RUBRIC.name)
    if not rubric:
        raise NyccBenchError(f"source: no HumorBench rubric/*.csv below {', '.join(map(str, roots))}; pass the "
                             "folder of the public data")
    if max_per_contest is not None and max_per_contest < 100:
        raise NyccBenchError(f"max_per_contest: {max_per_contest} is fewer than the 100 best-ranked captions "
                             "kept per contest; give 100 or more")
    target = Path(out) if out is not None else public_judges_dir()
    target.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix=".public-", dir=target.parent) as tmp:
        work = Path(tmp)
        build_dataset(roots if len(roots) > 1 else roots[0], work / "dataset", progress=progress)
        folders = train_judge_folders(work / "dataset", work / "judges", rubric, data_source="public",
                                      embedder=Embedder(MINILM, cache=True, store=True),
                                      max_per_contest=max_per_contest, progress=progress)
        shutil.rmtree(target, ignore_errors=True)
        os.replace(work / "judges", target)
    return {backend: target / folder.name for backend, folder in folders.items()}
