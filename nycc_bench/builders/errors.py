"""The one error type every builder raises for bad upstream input: it names the file, row and fix."""

from __future__ import annotations

from pathlib import Path

from ..errors import NyccBenchError


class SourceError(NyccBenchError):
    """An upstream file that cannot be built as it is; the message names the file, the row and the fix."""

    def __init__(self, path: Path | str, problem: str, fix: str, row: int | None = None) -> None:
        self.path, self.problem, self.fix, self.row = Path(path), problem, fix, row
        where = f"{path}" if row is None else f"{path}, row {row}"
        super().__init__(f"{where}: {problem}. Fix: {fix}")
