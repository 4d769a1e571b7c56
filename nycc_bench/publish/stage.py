"""Stage the folders to publish, one per Hub repo, exactly as they will be pushed, and check each one.

    <out>/datasets/<name>   the dataset repo: README.md + data/<config>/<split>-*.parquet
    <out>/spaces/<name>     a metric Space (evaluate's four files) or another Space (spaces/<name>/)
    <out>/models/<name>     a model repo: its card README.md only

Staged copies differ from their sources in two documented ways: a `requirements.txt` line naming nycc-bench is
replaced by the package spec (default `nycc-bench==<this version>`, keeping the line's extras; a pinned git URL
with `--package-spec`), and a Space card without `python_version` gets the one the package needs. A dry run and
a push stage identically, so what a dry run shows is what is pushed.
"""

from __future__ import annotations

import re
import shutil
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from huggingface_hub import DatasetCard
from huggingface_hub.utils import HFValidationError, validate_repo_id
from packaging.requirements import InvalidRequirement, Requirement
from packaging.utils import canonicalize_name

from ..builders import build_dataset
from ..paths import SEED_DIR
from ..results import read_results_dir
from . import DATASET_NAME, DEFAULT_PACKAGE_SPEC, KINDS, NAMESPACE, ROOT, SPACE_PYTHON, PublishError, dataset_id
from .cards import TEMPLATE, is_ours, render_card, slug
from .files import check_tree, copy_files, scan_secrets, select
from .validate import validate_dataset_card, validate_model_card, validate_space_card

MARKER = ".nycc-bench-staging"
FOLDERS = {"dataset": "datasets", "space": "spaces", "model": "models"}


@dataclass(frozen=True)
class Staged:
    """One staged repo: where it goes on the Hub and the folder that is its exact content."""

    kind: str  # dataset | metrics | spaces | models (the --only group)
    repo_type: str  # dataset | space | model
    repo_id: str
    folder: Path
    space_sdk: str | None = None


@dataclass(frozen=True)
class Skipped:
    """A repo left out of this publication, and why."""

    repo_id: str
    reason: str


@dataclass
class Sources:
    """Where staging reads from (defaults: this checkout)."""

    dataset_dir: Path | None = None
    source: str | None = None  # sample | upstream | a folder, built on the fly
    metrics_dir: Path = ROOT / "metrics"
    spaces_dir: Path = ROOT / "spaces"
    results_dir: Path = SEED_DIR / "results"  # the baselines on the sample (`nycc-bench seed`), as the cards are
    template: Path = TEMPLATE


@dataclass
class Options:
    """What to publish and how."""

    namespace: str = NAMESPACE
    kinds: Sequence[str] = KINDS
    package_spec: str = DEFAULT_PACKAGE_SPEC
    push_third_party: bool = False
    allow_sample: bool = False
    progress: bool = False


def check_package_spec(spec: str) -> str:
    """A requirement for nycc-bench that installs one known version on a Space: `nycc-bench==X` from an index, or a
    git URL pinned to a tag or commit."""
    try:
        req = Requirement(spec)
    except InvalidRequirement as err:
        raise PublishError(f"package-spec: {spec!r} is not a requirement ({err})") from err
    if canonicalize_name(req.name) != "nycc-bench":
        raise PublishError(f"package-spec: {spec!r} does not install nycc-bench")
    if req.url and not re.search(r"@[^/@]+$", req.url.split("#")[0]):
        raise PublishError(f"package-spec: {req.url} is not pinned; end it with @<tag or commit>")
    if not req.url and not (len(req.specifier) == 1 and next(iter(req.specifier)).operator == "=="):
        raise PublishError(f"package-spec: {spec!r} does not pin one version; use nycc-bench==<version>")
    return spec


def prepare_out(out: Path) -> Path:
    """An empty staging folder (a previous staging is replaced; any other non-empty folder is refused)."""
    out = Path(out)
    if out.exists() and any(out.iterdir()) and not (out / MARKER).exists():
        raise PublishError(f"out: {out} is not empty and was not made by upload.py; pass an empty or new folder")
    if out.exists():
        for child in FOLDERS.values():
            shutil.rmtree(out / child, ignore_errors=True)
    out.mkdir(parents=True, exist_ok=True)
    (out / MARKER).write_text("Staged by upload.py (nycc-bench); replaced on every run.\n", encoding="utf-8")
    return out


def _rewrite_requirements(folder: Path, package_spec: str) -> None:
    """Replace the line naming nycc-bench by the package spec, keeping the extras that line asked for."""
    path = folder / "requirements.txt"
    if not path.is_file():
        return
    lines = []
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            req = Requirement(line.split(" #")[0].strip())
        except InvalidRequirement:
            lines.append(line)
            continue
        if canonicalize_name(req.name) != "nycc-bench":
            lines.append(line)
        elif req.extras:
            spec = Requirement(package_spec)
            spec.extras = set(spec.extras) | set(req.extras)
            lines.append(str(spec))
        else:
            lines.append(package_spec)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def _add_python_version(folder: Path) -> None:
    """Insert `python_version` at the end of a Space card's front matter when it has none."""
    card = folder / "README.md"
    text = card.read_text(encoding="utf-8")
    head, sep, body = text.partition("\n---\n") if text.startswith("---\n") else ("", "", "")
    if sep and not re.search(r"^python_version:", head, re.MULTILINE):
        card.write_text(f'{head}\npython_version: "{SPACE_PYTHON}"\n---\n{body}', encoding="utf-8")


def stage_space(src: Path, out: Path, namespace: str, package_spec: str, metric: bool) -> Staged:
    """A metric Space (its four files) or another Space (allow-listed files), adapted for the Hub and checked."""
    name = src.name
    kind = "metric" if metric else "space"
    files, _ = select(src, kind, name)
    if "README.md" not in files:
        raise PublishError(f"{src}: a Space needs its README.md card")
    dst = out / FOLDERS["space"] / name
    copy_files(src, dst, files)
    _rewrite_requirements(dst, package_spec)
    _add_python_version(dst)
    check_tree(dst, kind, name)
    card = validate_space_card(dst, metric=name if metric else None)
    return Staged("metrics" if metric else "spaces", "space", f"{namespace}/{name}", dst, card.data.sdk)


def stage_dataset(src: Sources, opts: Options, out: Path) -> Staged | Skipped:
    """The dataset repo: a built folder copied through the allow-list, or a fresh build from a source."""
    repo_id = dataset_id(opts.namespace)
    dst = out / FOLDERS["dataset"] / DATASET_NAME
    if src.dataset_dir is not None:
        card = Path(src.dataset_dir) / "README.md"
        if not card.is_file():
            raise PublishError(f"dataset-dir: {src.dataset_dir} has no README.md; build it with `nycc-bench build`")
        if "sample-data" in (DatasetCard.load(card).data.tags or []) and not opts.allow_sample:
            return Skipped(repo_id, f"{src.dataset_dir} is a build of the invented sample; pass --allow-sample")
        copy_files(Path(src.dataset_dir), dst, select(Path(src.dataset_dir), "dataset")[0])
    elif src.source is not None:
        if src.source == "sample" and not opts.allow_sample:
            return Skipped(repo_id, "--source sample is invented content; pass --allow-sample to publish it")
        from ..building import resolve_source

        build_dataset(resolve_source(src.source, opts.progress), dst, progress=opts.progress)
    else:
        raise PublishError("dataset: pass --dataset-dir (a `nycc-bench build` folder) or --source")
    check_tree(dst, "dataset")
    validate_dataset_card(dst)
    return Staged("dataset", "dataset", repo_id, dst)


def stage_models(src: Sources, opts: Options, out: Path) -> list[Staged | Skipped]:
    """A card per results file; third-party and sample-data cards only when asked for."""
    staged: list[Staged | Skipped] = []
    for path, data in read_results_dir(src.results_dir):
        spec = data["model"]["spec"]
        name = slug(spec)
        repo_id = f"{opts.namespace}/{name}"
        try:
            validate_repo_id(repo_id)
        except HFValidationError as err:
            raise PublishError(f"{path}: system {spec!r} gives no valid repo name ({err})") from err
        if not is_ours(spec) and not opts.push_third_party:
            staged.append(Skipped(repo_id, f"{spec} is a third-party model: its card stays in model_cards/ for the "
                                           "docs and leaderboard; --push-third-party publishes it here"))
            continue
        if data["dataset"].get("sample") and not opts.allow_sample:
            staged.append(Skipped(repo_id, "sample-data figures: evaluate on the real data (model_cards/"
                                           "make_cards.py --source upstream --work DIR, then --results "
                                           "DIR/results) or pass --allow-sample"))
            continue
        dst = out / FOLDERS["model"] / name
        dst.mkdir(parents=True)
        (dst / "README.md").write_text(str(render_card(data, opts.namespace, src.template, path.name)),
                                       encoding="utf-8")
        check_tree(dst, "model")
        validate_model_card(dst, dataset_id(opts.namespace))
        staged.append(Staged("models", "model", repo_id, dst))
    return staged


def _space_folders(root: Path) -> list[Path]:
    return sorted(p for p in Path(root).iterdir() if p.is_dir() and not p.name.startswith((".", "_")))


def stage(out: Path, src: Sources, opts: Options, known_secrets: Sequence[str] = (),
          say: Callable[[str], None] = lambda _: None) -> tuple[list[Staged], list[Skipped]]:
    """Stage every selected repo into `out`, check cards and file lists, then scan everything for secrets."""
    unknown = sorted(set(opts.kinds) - set(KINDS))
    if unknown:
        raise PublishError(f"only: unknown kind {', '.join(unknown)}; choose from {', '.join(KINDS)}")
    check_package_spec(opts.package_spec)
    out = prepare_out(out)
    items: list[Staged | Skipped] = []
    from ..progress import working

    if "dataset" in opts.kinds:
        say("staging the dataset ...")
        with working("publish: the dataset (parquet checks, card)"):
            items.append(stage_dataset(src, opts, out))
    if "metrics" in opts.kinds:
        say("staging the metric Spaces ...")
        with working("publish: the metric Spaces"):
            items += [stage_space(f, out, opts.namespace, opts.package_spec, metric=True)
                      for f in _space_folders(src.metrics_dir)]
    if "spaces" in opts.kinds:
        folders = _space_folders(src.spaces_dir) if Path(src.spaces_dir).is_dir() else []
        if not folders:
            raise PublishError(f"spaces: {src.spaces_dir} holds no Space folder (expected spaces/leaderboard/)")
        say("staging the leaderboard Space ...")
        with working("publish: the leaderboard Space"):
            items += [stage_space(f, out, opts.namespace, opts.package_spec, metric=False) for f in folders]
    if "models" in opts.kinds:
        say("staging the model cards ...")
        with working("publish: the model cards"):
            items += stage_models(src, opts, out)
    staged = [i for i in items if isinstance(i, Staged)]
    say("scanning what is staged for secrets ...")
    with working("publish: the secret scan"):
        findings = [f for s in staged for f in scan_secrets(s.folder, known_secrets)]
    if findings:
        raise PublishError("refusing to publish what looks like a secret:\n  " + "\n  ".join(findings[:20]))
    return staged, [i for i in items if isinstance(i, Skipped)]
