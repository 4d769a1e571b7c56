"""The NYCC humor leaderboard Space: the same app as `nycc-bench leaderboard`, configured from the Space's
variables and secrets (see README.md). Run locally with `python spaces/leaderboard/app.py`."""

from __future__ import annotations

import logging

from nycc_bench.leaderboard import Settings, create_app
from nycc_bench.leaderboard.ui import launch_options

# The worker runs each job in a `multiprocessing` spawn child, which imports this file again as `__mp_main__`:
# only the app's own process builds the app (a child must not start a second app and worker).
if __name__ != "__mp_main__":
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    logging.getLogger("httpx").setLevel(logging.WARNING)  # its INFO lines print request URLs, user:password too
    settings = Settings.from_env()
    demo, _ = create_app(settings)  # seeded on first start: NYCC_LB_SOURCE's published runs, else the package's sample

if __name__ == "__main__":
    demo.queue(default_concurrency_limit=8).launch(server_name="0.0.0.0", **launch_options(settings))
