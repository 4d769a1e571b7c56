"""The leaderboard built on published data, in headless Chromium: the Zhang tab lists the published systems and
human groups, the HumorBench tab the authors' models with their partial coverage marked and the reported figures
apart, the Hessel tab the paper's reported rows under the ranked table, the run detail the provenance, and the
Arena a battle between two published systems, named after the vote.
Screenshots go to `out/screenshots/published/`."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = Path("/usr/bin/chromium")
if not CHROMIUM.exists():
    pytest.skip("browser tests need Chromium at /usr/bin/chromium (apt-get install -y chromium)",
                allow_module_level=True)
sync_api = pytest.importorskip("playwright.sync_api")
pytestmark = pytest.mark.slow  # a live leaderboard in Chromium

sys.path.insert(0, str(Path(__file__).parent))
from live_leaderboard import free_port  # noqa: E402
from published_files import write_mirror  # noqa: E402

from nycc_bench.leaderboard import Settings, create_app  # noqa: E402
from nycc_bench.leaderboard.ui import launch_options  # noqa: E402
from nycc_bench.tasks.scores import family_list  # noqa: E402

SHOTS = Path(__file__).resolve().parents[1] / "out" / "screenshots" / "published"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]


@pytest.fixture(scope="module")
def page(tmp_path_factory: pytest.TempPathFactory, sample_dataset: str) -> Iterator[Any]:
    os.environ["GRADIO_ANALYTICS_ENABLED"] = "False"
    SHOTS.mkdir(parents=True, exist_ok=True)
    mirror = write_mirror(tmp_path_factory.mktemp("mirror"))
    settings = Settings(data_dir=tmp_path_factory.mktemp("board") / "data", dataset=sample_dataset, worker=False)
    saved = os.environ.get("NYCC_ARENA_MIN_SECONDS")
    os.environ["NYCC_ARENA_MIN_SECONDS"] = "0"  # the minimum reading time is tested without a browser
    demo, _ = create_app(settings, published=str(mirror), sbert=False, start_worker=False)
    if saved is None:
        os.environ.pop("NYCC_ARENA_MIN_SECONDS")
    else:
        os.environ["NYCC_ARENA_MIN_SECONDS"] = saved
    port = free_port()
    demo.queue().launch(server_name="127.0.0.1", server_port=port, prevent_thread_lock=True, quiet=True,
                        **launch_options(settings))
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        tab = browser.new_page(viewport={"width": 1400, "height": 1000})
        tab.set_default_timeout(30_000)
        tab.goto(f"http://127.0.0.1:{port}/")
        yield tab
        browser.close()
    demo.close()


def wait_text(page: Any, selector: str, text: str) -> None:
    page.wait_for_function("([s, t]) => { const e = document.querySelector(s); "
                           "return !!e && e.innerText.includes(t); }", arg=[selector, text])


def test_published_rows_on_every_tab(page: Any) -> None:
    titles = {f.key: f.title for f in family_list()}
    page.get_by_role("tab", name=titles["zhang2024"]).click()
    for name in ("Claude-3-Opus", "Human (Top 10)", "(partial: 3 of 91)"):
        wait_text(page, "#table-zhang2024", name)
    page.screenshot(path=str(SHOTS / "01_zhang.png"), full_page=True)
    page.get_by_role("tab", name=titles["humorbench"]).click()
    wait_text(page, "#table-humorbench", "Llama 9 Test (partial: 8 of 31)")
    wait_text(page, "#reported-humorbench", "0.7500")
    page.screenshot(path=str(SHOTS / "02_humorbench.png"), full_page=True)
    page.get_by_role("tab", name=titles["hessel2023"]).click()
    wait_text(page, "#reported-note-hessel2023", "never ranked with the runs above")
    wait_text(page, "#reported-hessel2023", "GPT-4 (5-shot)")
    reported = page.locator("#reported-hessel2023").inner_text()
    assert "84.5" in reported and "Table 2" in reported and "Rank" not in reported
    wait_text(page, "#reported-left-out-hessel2023", "hidden-label leaderboard entries")
    page.screenshot(path=str(SHOTS / "03_hessel_reported.png"), full_page=True)


def test_run_detail_shows_provenance(page: Any) -> None:
    page.get_by_role("tab", name="Overview").click()
    page.locator("#run-picker input").click()
    page.locator("#run-picker [role=option]", has_text="Claude-3-Opus").first.click()
    wait_text(page, "#run-detail", "published by the authors")
    detail = page.locator("#run-detail").inner_text()
    assert "yguooo/cartoon-caption-generation" in detail and "examples/generations/claude.csv" in detail
    page.locator("#run-detail").screenshot(path=str(SHOTS / "04_detail.png"))


def test_arena_battle_between_two_published_systems(page: Any) -> None:
    """The Arena's players are the published runs and human groups: battles are voted on until one is between two
    published systems (the scheduler serves every pair; gold probes and human pairs come between), whose names
    the reveal gives."""
    published = {"zhang2024-claude", "zhang2024-zs"}
    page.get_by_role("tab", name="Arena").click()
    seen: list[str] = []
    for _ in range(30):
        page.wait_for_function("() => { const l = document.querySelector('#arena-left'); "
                               "const r = document.querySelector('#arena-right'); "
                               "return !!l && !!r && l.innerText.trim() !== '' && r.innerText.trim() !== ''; }")
        page.locator("#arena-vote-left").click()
        wait_text(page, "#arena-reveal", "Left:")
        reveal = page.locator("#arena-reveal").inner_text()
        seen.append(reveal)
        if sum(name in reveal for name in published) == 2:
            page.screenshot(path=str(SHOTS / "05_arena_published.png"), full_page=True)
            break
        before = page.locator("#arena-left").inner_text()
        page.locator("#arena-next").click()
        page.wait_for_function("([b]) => { const e = document.querySelector('#arena-reveal'); "
                               "const l = document.querySelector('#arena-left'); "
                               "return !!e && !e.innerText.includes('Left:') && !!l && l.innerText !== b; }",
                               arg=[before])
    else:
        raise AssertionError(f"no battle between two published systems in {len(seen)} votes: {seen[-3:]}")
