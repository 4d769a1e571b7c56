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

from .errors import NyccBenchError
from .paths import PACKAGE, SAMPLE_DIR, cache_dir

SAMPLE = "sample"
PUBLIC = "public"
"""The model of `reward:public` / `embedding:public`: trained on the public data by `nycc-bench judges train`."""
"""The model of `reward:sample` / `embedding:sample` (a folder called sample is given as `./sample`)."""
FOLDERS = {"reward": "reward_model", "embedding": "element_grader"}
"""Each offline judge backend -> its folder in a set of offline judges."""
MINILM = "all-MiniLM-L6-v2"
RUBRIC = Path("humorbench_reubennarad") / "rubric"  # the HumorBench rubric inside a source folder
# what the judges' weights and verdicts depend on, besides the sample
_TRAINING_CODE = ("reward", "builders", "sample_judges.py")


def train_judge_folders(dataset: str | Path, out: Path, rubric: Path | list[Path],
                        data_source: str = "sample") -> dict[str, Path]:
    """Train the reward model and the element grader into `out` (deterministic); backend -> folder. `data_source`
    ("sample" or "public") is said at the top of each card."""
    from .reward import train_grader, train_reward_model

    folders = {backend: out / name for backend, name in FOLDERS.items()}
    train_reward_model(str(dataset), MINILM, folders["reward"], data_source=data_source)
    # balanced: the sample rubric is mostly PASS, so plain accuracy would fit a threshold that passes everything
    train_grader(rubric, folders["embedding"], MINILM, objective="balanced", data_source=data_source)
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


def sample_judges_dir() -> Path:
    """The folder of the sample's offline judges (`$NYCC_BENCH_CACHE/judges/sample-<key>`), trained there first
    if it is missing; concurrent callers (test workers, a seed beside a demo) wait for one training."""
    from filelock import FileLock

    from .builders import build_dataset

    folder = cache_dir("judges") / f"{SAMPLE}-{sample_key()}"
    if all((folder / name / "config.json").is_file() for name in FOLDERS.values()):
        return folder
    folder.parent.mkdir(parents=True, exist_ok=True)
    with FileLock(str(folder) + ".lock"):
        if all((folder / name / "config.json").is_file() for name in FOLDERS.values()):
            return folder
        with tempfile.TemporaryDirectory(prefix=f".{folder.name}-", dir=folder.parent) as tmp:
            work = Path(tmp)
            build_dataset(SAMPLE_DIR, work / "dataset", progress=False)
            train_judge_folders(work / "dataset", work / "judges", SAMPLE_DIR / RUBRIC)
            shutil.rmtree(folder, ignore_errors=True)
            os.replace(work / "judges", folder)  # whole or absent: a killed training leaves no half set
    return folder


def public_judges_dir() -> Path:
    """Where `nycc-bench judges train` puts the judges trained on the public data (`reward:public`,
    `embedding:public`)."""
    return cache_dir("judges") / PUBLIC


def judge_folder(backend: str, model: str) -> str:
    """Where an offline judge's model is: `sample` is the sample's judge of that backend (trained if needed),
    `public` the one `nycc-bench judges train` trained on the public data; anything else is already a folder or a
    Hub repo id."""
    if model == PUBLIC and not Path(model).exists():
        folder = public_judges_dir() / FOLDERS[backend]
        if not (folder / "config.json").is_file():
            raise NyccBenchError(f"judge: {backend}:{PUBLIC} is not trained here yet; run `nycc-bench judges train "
                                 "--source DIR` (DIR: the public upstream data) first")
        return str(folder)
    if model != SAMPLE:
        return model
    return str(sample_judges_dir() / FOLDERS[backend])


def train_public_judges(source: str | Path, out: Path | None = None, progress: bool = True) -> dict[str, Path]:
    """Build the dataset from the public upstream files below `source` and train both judges on it (the rating
    summaries; the human rubric labels) into `out` (default: where `reward:public` / `embedding:public` look)."""
    from .builders import build_dataset

    root = Path(source)
    rubric = sorted(p for p in root.rglob("*.csv") if p.parent.name == RUBRIC.name)
    if not rubric:
        raise NyccBenchError(f"source: no HumorBench rubric/*.csv below {source}; pass the folder of the public data")
    target = Path(out) if out is not None else public_judges_dir()
    target.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix=".public-", dir=target.parent) as tmp:
        work = Path(tmp)
        build_dataset(root, work / "dataset", progress=progress)
        folders = train_judge_folders(work / "dataset", work / "judges", rubric, data_source="public")
        shutil.rmtree(target, ignore_errors=True)
        os.replace(work / "judges", target)
    return {backend: target / folder.name for backend, folder in folders.items()}
