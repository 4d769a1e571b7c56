"""`nycc-bench view RUN_DIR [RUN_DIR...]`: a local page over run folders, like `inspect view`: scores with
intervals and status, every instance (prompt, reply, parsed answer, gold, correctness, judge verdicts), filters,
search and two runs side by side. It reads the folders only; no leaderboard store or run id is needed."""

from .page import view_page
from .runs import RunView, load_run, load_runs
from .serve import serve_view

__all__ = ["RunView", "load_run", "load_runs", "serve_view", "view_page"]
