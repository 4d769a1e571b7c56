"""What a staged repo may hold (an allow-list per repo kind, a deny-list over every path) and the secret scan."""

from __future__ import annotations

import fnmatch
import os
import re
import shutil
from collections.abc import Iterable, Iterator
from functools import cache
from pathlib import Path
from typing import Any

from ..urls import has_credentials
from . import PublishError

# Never staged, whatever the allow-list says: matched against every component of a path.
DENY = ("__pycache__", ".cache", "*.pyc", "*.pyo", ".env", ".env.*", "*.key", "*.pem", ".venv", "venv", "*.sqlite",
        "*.sqlite3", "*.db", ".git", ".gradio", "flagged", ".ipynb_checkpoints", ".pytest_cache", ".ruff_cache",
        "node_modules", ".DS_Store", ".netrc", "*.token")
_SPACE_FILES = ("README.md", "requirements.txt", "packages.txt", "**/*.py", "**/*.md", "**/*.json", "**/*.jsonl",
                "**/*.csv", "**/*.parquet", "**/*.css", "**/*.js", "**/*.html", "**/*.yaml", "**/*.yml",
                "**/*.txt", "**/*.png", "**/*.jpg", "**/*.svg")
ALLOW: dict[str, tuple[str, ...]] = {
    "dataset": ("README.md", "data/*/*.parquet"),
    "metric": ("README.md", "app.py", "requirements.txt", "{name}.py"),  # evaluate's four-file metric Space
    "space": _SPACE_FILES,
    "model": ("README.md",),  # cards only: no weights, no results files
    "details": ("README.md", "results.json", "data/*/*.parquet"),  # a run's details (`nycc-bench push`)
}
SECRET_PATTERNS: dict[str, re.Pattern[str]] = {
    "a Hugging Face token (hf_...)": re.compile(r"(?<![A-Za-z0-9_])hf_[A-Za-z0-9]{30,}"),
    "an API key (sk-...)": re.compile(r"(?<![A-Za-z0-9_-])sk-[A-Za-z0-9_-]{20,}"),
    "a GitHub token": re.compile(r"(?<![A-Za-z0-9_])(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{30,})"),
    "an AWS access key id": re.compile(r"(?<![A-Z0-9])AKIA[0-9A-Z]{16}(?![A-Z0-9])"),
    "a private key": re.compile(r"-----BEGIN [A-Z ]*PRIVATE KEY-----"),
}
_SECRET_ENV = re.compile(r"(TOKEN|API_KEY|SECRET|PASSWORD)$")


@cache
def glob_regex(pattern: str) -> re.Pattern[str]:
    """A path glob as a regex over the whole relative path: `*` stays inside one folder, `**/` spans folders."""
    out, i = "", 0
    while i < len(pattern):
        if pattern.startswith("**/", i):
            out, i = out + "(?:.*/)?", i + 3
        elif pattern[i] == "*":
            out, i = out + "[^/]*", i + 1
        elif pattern[i] == "?":
            out, i = out + "[^/]", i + 1
        else:
            out, i = out + re.escape(pattern[i]), i + 1
    return re.compile(out + r"\Z")


def allowed(rel: str, kind: str, name: str = "") -> bool:
    """Whether a relative path may be staged in a repo of this kind (allow-list matched, nothing denied)."""
    return not denied(rel) and any(glob_regex(p.format(name=name)).match(rel) for p in ALLOW[kind])


def denied(rel: str) -> bool:
    """Whether any component of a relative path is on the deny-list."""
    return any(fnmatch.fnmatchcase(part, pat) for part in rel.split("/") for pat in DENY)


def walk(folder: Path) -> tuple[list[str], list[str]]:
    """Relative paths of the plain files below `folder`, and of what is skipped: links and denied folders."""
    files, skipped = [], []
    for top, dirs, names in os.walk(folder, followlinks=False):
        rel_top = Path(top).relative_to(folder).as_posix()
        prefix = "" if rel_top == "." else rel_top + "/"
        for d in list(dirs):
            if denied(prefix + d) or (Path(top) / d).is_symlink():
                dirs.remove(d)
                skipped.append(prefix + d + "/")
        for n in names:
            (skipped if (Path(top) / n).is_symlink() else files).append(prefix + n)
    return sorted(files), sorted(skipped)


def select(folder: Path, kind: str, name: str = "") -> tuple[list[str], list[str]]:
    """The files of `folder` a repo of this kind may hold, and the ones left out."""
    files, skipped = walk(folder)
    keep = [f for f in files if allowed(f, kind, name)]
    return keep, sorted(skipped + [f for f in files if f not in keep])


def copy_files(src: Path, dst: Path, files: Iterable[str]) -> None:
    """Copy the listed files byte for byte (no metadata, so two stagings give identical trees)."""
    for rel in files:
        target = dst / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(src / rel, target)


def check_tree(folder: Path, kind: str, name: str = "") -> None:
    """Refuse a staged folder holding a link, a denied path or a file outside its kind's allow-list."""
    files, skipped = walk(folder)
    bad = skipped + [f for f in files if not allowed(f, kind, name)]
    if bad:
        raise PublishError(f"{folder}: {', '.join(bad[:5])} may not be published in a {kind} repo (allowed: "
                           f"{', '.join(p.format(name=name) for p in ALLOW[kind])}; never: {', '.join(DENY)})")


def secrets_from_env(extra: Iterable[str | None] = ()) -> list[str]:
    """Values that must never be published: the token in use and every *_TOKEN / *_API_KEY / *_SECRET variable."""
    values = [v for v in extra if v] + [v for k, v in os.environ.items() if _SECRET_ENV.search(k.upper())]
    return sorted({v for v in values if len(v) >= 12})


def _strings(value: Any) -> Iterator[str]:
    """Every string inside a parquet cell (lists and structs walked)."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for v in value.values():
            yield from _strings(v)
    elif isinstance(value, list | tuple):
        for v in value:
            yield from _strings(v)


def _line_findings(where: str, text: str, known: list[str]) -> list[str]:
    """What one line or cell looks like it holds: a token, a URL with a password, a known secret."""
    found = [f"{where}: looks like {what}" for what, pattern in SECRET_PATTERNS.items() if pattern.search(text)]
    if has_credentials(text):
        found.append(f"{where}: holds a URL with a user and password (redact it: nycc_bench.urls.redact_url)")
    if any(k in text for k in known):
        found.append(f"{where}: holds a secret from this environment (a token or API key)")
    return found


def _parquet_findings(path: Path, known: list[str]) -> list[str]:
    """The secret scan over every string of every column of a parquet file, decompressed (any codec)."""
    import pyarrow.parquet as pq

    try:
        parquet = pq.ParquetFile(path)
    except Exception as err:  # not readable as parquet: refuse rather than publish unseen bytes
        return [f"{path}: cannot be read as parquet to scan it ({type(err).__name__}: {err})"]
    findings: list[str] = []
    for group in range(parquet.num_row_groups):
        table = parquet.read_row_group(group)
        for name in table.column_names:
            for row, value in enumerate(table.column(name).to_pylist()):
                for text in _strings(value):
                    findings += _line_findings(f"{path}: column {name}, row group {group} row {row}", text, known)
                    if len(findings) >= 20:
                        return findings
    return findings


def scan_secrets(folder: Path, known: Iterable[str] = ()) -> list[str]:
    """Findings as `path:line: what` (never the value): token-like strings and URLs with a password in text
    files and in every parquet column (decompressed), known secrets anywhere."""
    known = [k for k in known if k]
    known_bytes = [k.encode() for k in known]
    findings = []
    for rel in walk(folder)[0]:
        data = (folder / rel).read_bytes()
        if any(k in data for k in known_bytes):
            findings.append(f"{folder / rel}: holds a secret from this environment (a token or API key)")
        if rel.endswith(".parquet"):
            findings += _parquet_findings(folder / rel, known)
            continue
        if b"\0" in data[:8192]:
            continue  # other binary files (images): only the exact known values are searched
        for lineno, line in enumerate(data.decode("utf-8", errors="replace").splitlines(), 1):
            findings += _line_findings(f"{folder / rel}:{lineno}", line, [])
    return findings
