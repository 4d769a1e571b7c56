"""The About tab makes the configured judges' reports itself: in a background thread, the check running shown,
each kept under a key of the judge and its inputs (a restart reuses it, a changed input file makes it again, a
failure is shown and never kept); in Chromium, opening the tab starts it, the progress line shows while a scripted
judge on 127.0.0.1 is held, and the table replaces it when the judge answers."""

from __future__ import annotations

import json
import os
import shutil
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from fake_openai import FakeChatServer, Reply

from nycc_bench.leaderboard.judges_reports import JudgeReports, configured_judges, report_file
from nycc_bench.paths import SAMPLE_DIR


@pytest.fixture
def source(tmp_path: Path) -> Path:
    """The sample's upstream files, copied (a test changes one)."""
    root = tmp_path / "source"
    shutil.copytree(SAMPLE_DIR, root)
    return root


def test_configured_judges() -> None:
    assert configured_judges({"a": "reward:x", "b": "embedding:y", "c": "reward:x"}, []) == ["reward:x", "embedding:y"]
    records = [{"judge": {"caption_generation": {"name": "reward:sample"}, "humorbench": {"name": "embedding:sample"}}},
               {"judge": {"name": "reward:sample", "backend": "reward"}}, {"judge": None}]
    assert configured_judges({}, records) == ["embedding:sample", "reward:sample"]


def test_reports_made_in_the_background_and_kept_by_judge_and_inputs(source: Path, tmp_path: Path,
                                                                      sample_judges: dict,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    data = tmp_path / "data"
    maker = JudgeReports(data, source)
    assert "made when this tab is opened" in maker.markdown()
    maker.start(["reward:sample", "no_such_judge"])
    assert maker.wait()
    steps = [h for h in maker.history if h.startswith("reward:sample: running: ")]
    assert any("crowd pairwise and groups: " in s for s in steps)  # the check it ran, as the tab showed it
    kept = report_file(data, "reward:sample")
    result = json.loads(kept.read_text())
    assert result["judge"] == "reward:sample" and result["checks"]["crowd"]["pairwise"]["n"] > 0
    assert len(result["cache_key"]) == 64
    page = maker.markdown()
    assert "### judges report: reward:sample on" in page and "Crowd pairwise" in page
    failed = [line for line in maker.status_lines() if line.startswith("no_such_judge: failed: ")]
    assert failed and not report_file(data, "no_such_judge").exists()  # a failure is shown, never kept
    assert "no_such_judge: failed" in page

    import nycc_bench.judges_report as judges_report

    def refuse(*args: Any, **kwargs: Any) -> None:
        raise AssertionError("a kept report with the same inputs is not made again")

    monkeypatch.setattr(judges_report, "report", refuse)
    again = JudgeReports(data, source)  # a restart
    again.start(["reward:sample"])
    assert again.wait() and again.history[-1] == "reward:sample: done (kept)"
    assert json.loads(kept.read_text())["cache_key"] == result["cache_key"]

    monkeypatch.undo()
    summary = next(source.rglob("nextml_caption_contest_data/summaries/*.csv"))
    stat = summary.stat()
    os.utime(summary, ns=(stat.st_atime_ns, stat.st_mtime_ns + 10**9))  # an input changed: made again
    changed = JudgeReports(data, source)
    changed.start(["reward:sample"])
    assert changed.wait() and changed.history[-1] == "reward:sample: done"
    assert json.loads(kept.read_text())["cache_key"] != result["cache_key"]


# ---- in the browser ----------------------------------------------------------------------------------------

CHROMIUM = Path("/usr/bin/chromium")
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]


@pytest.fixture
def held_judge(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[dict[str, Any]]:
    """A priced Overall judge on a scripted server that answers nothing until `release` is set."""
    release = threading.Event()

    def held(body: dict, attempt: int) -> Reply:
        release.wait()
        return Reply(text="A", top_logprobs=[("A", -0.2), ("B", -1.9)])

    monkeypatch.setenv("NYCC_BENCH_CACHE", str(tmp_path / "cache"))  # its replies are cached here, not shared
    with FakeChatServer(held) as server:
        config = tmp_path / "held_overall.yaml"
        config.write_text(f"backend: openai\nmodel: held-judge\nprotocol: overall\nbase_url: {server.base_url}\n"
                          "price: {input_usd_per_1m: 1.0, output_usd_per_1m: 4.0, source: https://example.test/p, "
                          "checked: 2026-11-01}\n", encoding="utf-8")
        yield {"spec": str(config), "release": release, "server": server}
        release.set()


@pytest.mark.slow
@pytest.mark.skipif(not CHROMIUM.exists(), reason="browser tests need Chromium at /usr/bin/chromium")
def test_about_tab_makes_the_report_with_progress(source: Path, tmp_path: Path, held_judge: dict[str, Any],
                                                  sample_dataset: str) -> None:
    sync_api = pytest.importorskip("playwright.sync_api")
    from live_leaderboard import free_port

    from nycc_bench.leaderboard import Settings, create_app
    from nycc_bench.leaderboard.ui import launch_options

    os.environ["GRADIO_ANALYTICS_ENABLED"] = "False"
    settings = Settings(data_dir=tmp_path / "data", dataset=sample_dataset, worker=False, sample_data=True,
                        judges={"caption_generation": held_judge["spec"]}, judges_source=str(source))
    demo, app = create_app(settings)
    port = free_port()
    demo.queue().launch(server_name="127.0.0.1", server_port=port, prevent_thread_lock=True, quiet=True,
                        **launch_options(settings))
    try:
        with sync_api.sync_playwright() as p:
            browser = p.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            page.set_default_timeout(120_000)
            page.goto(f"http://127.0.0.1:{port}/")
            assert not app.judges.started  # nothing is made before the tab is opened
            page.get_by_role("tab", name="About").click()
            section = page.locator("#about-judges-reports")
            section.get_by_text("running: crowd pairwise and groups").wait_for()  # the judge is held: progress
            assert "Being made" in section.inner_text()
            held_judge["release"].set()
            section.get_by_text("Crowd pairwise (Zhang Table 2 Pairwise)").wait_for()  # the table replaces it
            text = section.inner_text()
            assert "Being made" not in text and "Time / price per 1,000 judgments" in text
            assert "https://example.test/p, checked 2026-11-01" in text
            browser.close()
    finally:
        demo.close()
    kept = json.loads(report_file(settings.data_dir, held_judge["spec"]).read_text())
    assert kept["cost"]["usd_per_1000"] > 0 and kept["cache_key"]
