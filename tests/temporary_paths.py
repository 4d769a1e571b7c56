"""The one pattern of a temporary folder in a committed file or a recorded command (the seed, the cards, any
tracked file must name none: they would not run, or would mean nothing, on another machine)."""

from __future__ import annotations

import re
import tempfile

ROOTS = ["/" + "tmp/", "/var/" + "folders", "pytest" + "-of-", tempfile.gettempdir().rstrip("/") + "/"]
"""Written in pieces: this file is committed too, and the check of committed files reads it."""
TEMPORARY = re.compile("|".join(map(re.escape, dict.fromkeys(ROOTS))))
