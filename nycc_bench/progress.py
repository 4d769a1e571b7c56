"""Progress with an ETA for every step that can take more than a few seconds: no silent minutes.

Loops and byte copies get a tqdm bar on stderr (its ETA from the rate so far). A job of a few long steps that
report nothing themselves (loading a model, fitting, evaluating) is a `Stages` bar: one tick per step, the
running step named, redrawn every second so the elapsed time moves, and an ETA from the steps' pace. Bars are
off with `enable=False`, inside `quiet()` (the CLI's `--quiet`) and under `TQDM_DISABLE=1`.
"""

from __future__ import annotations

import hashlib
import sys
import threading
import time
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any, TypeVar

PROGRESS_FROM = 2048
"""Texts to embed from which an encode shows its own bar (a smaller batch is done in a few seconds on a CPU)."""
CHUNK = 1 << 24
REDRAW_S = 1.0
T = TypeVar("T")


_QUIET = threading.Event()


@contextmanager
def quiet() -> Iterator[None]:
    """No bar of this module while inside (the CLI's `--quiet`)."""
    was = _QUIET.is_set()
    _QUIET.set()
    try:
        yield
    finally:
        if not was:
            _QUIET.clear()


def progress_shown() -> bool:
    """Whether bars are drawn now (not inside `quiet()`): for libraries that draw their own."""
    return not _QUIET.is_set()


def bar(total: float | None, desc: str, unit: str = "it", enable: bool = True, **options: Any) -> Any:
    """A tqdm bar on stderr (bytes scaled to kB/MB/GB when ``unit="B"``), off under `quiet()`."""
    from tqdm.auto import tqdm

    enable = enable and not _QUIET.is_set()
    scaled = {"unit_scale": True, "unit_divisor": 1024} if unit == "B" else {}
    return tqdm(total=total, desc=desc, unit=unit, file=sys.stderr, disable=not enable, **scaled, **options)


def each(items: Iterable[T], desc: str, unit: str = "it", enable: bool = True, total: int | None = None) -> Iterable[T]:
    """The items with a tqdm bar, or the items themselves when it is off: tqdm is imported only to draw one (a
    quiet build never imports it)."""
    if not enable:
        return items
    from tqdm.auto import tqdm

    return tqdm(items, total=total, desc=desc, unit=unit)


def copy_files(sources: Sequence[Path], out: IO[bytes], desc: str, enable: bool = True) -> None:
    """Append the files to ``out`` in order, with a bytes bar over their total size."""
    with bar(sum(p.stat().st_size for p in sources), desc, unit="B", enable=enable) as shown:
        for path in sources:
            with path.open("rb") as src:
                for block in iter(lambda src=src: src.read(CHUNK), b""):
                    out.write(block)
                    shown.update(len(block))


def sha256_file(path: Path, desc: str | None = None, enable: bool = True) -> str:
    """The file's SHA-256 (hex), with a bytes bar when ``desc`` is given."""
    digest = hashlib.sha256()
    with bar(path.stat().st_size, desc or "", unit="B", enable=enable and desc is not None) as shown, \
            path.open("rb") as f:
        for block in iter(lambda: f.read(CHUNK), b""):
            digest.update(block)
            shown.update(len(block))
    return digest.hexdigest()


def extract_zip(archive: Any, members: Sequence[str], folder: Path, desc: str, enable: bool = True) -> None:
    """Extract ``members`` of an open ``zipfile.ZipFile`` into ``folder``, with a bar over their unpacked bytes."""
    infos = [archive.getinfo(m) for m in members]
    with bar(sum(i.file_size for i in infos), desc, unit="B", enable=enable) as shown:
        for info in infos:
            target = folder / info.filename
            if info.is_dir():
                target.mkdir(parents=True, exist_ok=True)
                continue
            target.parent.mkdir(parents=True, exist_ok=True)
            with archive.open(info) as src, target.open("wb") as dst:
                for block in iter(lambda src=src: src.read(CHUNK), b""):
                    dst.write(block)
                    shown.update(len(block))


def stage_eta(done: int, total: int, done_s: float, running_s: float) -> str:
    """The time left to a job of `total` steps, `done` of them finished in `done_s` seconds and the next running
    for `running_s`: the finished steps' mean pace for each step left, less what the running step has had. "?"
    before a step has finished (nothing observed yet); "≥MM:SS" once the running step has outlasted the pace (a
    lower bound: what is left of the steps after it), never a figure that stands still while the time runs out."""
    if done <= 0:
        return "?"
    if done >= total:
        return "00:00"
    pace = done_s / done
    after = pace * (total - done - 1)
    if running_s > pace:
        return f"≥{_clock(after)}"
    return _clock(after + pace - running_s)


def _clock(seconds: float) -> str:
    seconds = max(0, round(seconds))
    hours, rest = divmod(seconds, 3600)
    return f"{hours}:{rest // 60:02d}:{rest % 60:02d}" if hours else f"{rest // 60:02d}:{rest % 60:02d}"


class Stages:
    """A bar over the named steps of one job; `step(name)` starts the next (the previous one counts as done). Its
    ETA (`stage_eta`) is worked out again at every redraw, from the finished steps' pace and the running step's
    time so far."""

    def __init__(self, names: Sequence[str], desc: str, enable: bool = True) -> None:
        self.names = list(names)
        self._bar = bar(len(self.names), desc, unit="step", enable=enable, bar_format=self._format("?"))
        self._started = False
        self._began = self._step_began = time.monotonic()
        self._stop = threading.Event()
        self._redraw = threading.Thread(target=self._tick, daemon=True)
        if not self._bar.disable:
            self._redraw.start()

    @staticmethod
    def _format(eta: str) -> str:
        return "{desc}: {n_fmt}/{total_fmt} steps [{elapsed}<" + eta + "]{postfix}"

    def eta(self) -> str:
        """The ETA shown now (`stage_eta`)."""
        now = time.monotonic()
        done = int(self._bar.n)
        return stage_eta(done, len(self.names), self._step_began - self._began, now - self._step_began)

    def step(self, name: str) -> None:
        """Mark the running step done (if any) and show ``name`` as running."""
        if self._started:
            self._bar.n += 1  # drawn below, with the new step's name and ETA
            self._step_began = time.monotonic()
        else:
            self._began = self._step_began = time.monotonic()
        self._started = True
        self._bar.bar_format = self._format(self.eta())
        self._bar.set_postfix_str(name, refresh=True)

    def close(self) -> None:
        """The last step is done: fill the bar and stop redrawing."""
        if self._started and self._bar.n < self._bar.total:
            self._bar.update(self._bar.total - self._bar.n)
        self._stop.set()
        self._bar.bar_format = self._format("00:00")
        self._bar.set_postfix_str("done", refresh=False)
        self._bar.close()

    def _tick(self) -> None:
        while not self._stop.wait(REDRAW_S):
            self._bar.bar_format = self._format(self.eta())
            self._bar.refresh()

    def __enter__(self) -> Stages:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


@contextmanager
def stages(names: Sequence[str], desc: str, enable: bool = True) -> Iterator[Stages]:
    """`with stages(["load", "fit"], "train") as s: s.step("load"); ...; s.step("fit"); ...`."""
    shown = Stages(names, desc, enable)
    try:
        yield shown
    finally:
        shown.close()


@contextmanager
def working(what: str, enable: bool = True) -> Iterator[None]:
    """One long step that reports nothing itself (imports, a model load, scoring a task): on a terminal, its name
    shown at once and its elapsed time redrawn every second until it ends, so no command is silent while it works
    (piped or captured output, where a one-line error must stay one line, gets none of it)."""
    shown = bar(None, what, enable=enable and sys.stderr.isatty(), bar_format="{desc} … {elapsed}")
    stop = threading.Event()

    def tick() -> None:
        while not stop.wait(REDRAW_S):
            shown.refresh()

    ticking = threading.Thread(target=tick, daemon=True, name="nycc-working")
    if not shown.disable:
        shown.refresh()
        ticking.start()
    try:
        yield
    finally:
        stop.set()
        shown.bar_format = "{desc}: done in {elapsed}"
        shown.close()


__all__ = ["PROGRESS_FROM", "Stages", "bar", "copy_files", "extract_zip", "progress_shown", "quiet", "sha256_file",
           "stage_eta", "stages", "working"]
