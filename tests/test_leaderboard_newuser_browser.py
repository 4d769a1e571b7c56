"""The leaderboard as a new user sees it, in headless Chromium at 1400 px: on the seed plus the issue's tiny model
(3 tasks), random is not #1, every blank cell carries its reason, the overview has no horizontal scroll, and the
About text states what the rows hold. Screenshots of every tab and of the HTML report go to
`out/screenshots/newuser/` (look at them: `python -m pytest tests/test_leaderboard_newuser_browser.py`)."""

from __future__ import annotations

import copy
import os
import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = Path("/usr/bin/chromium")
if not CHROMIUM.exists():
    pytest.skip("browser tests need Chromium at /usr/bin/chromium (apt-get install -y chromium)",
                allow_module_level=True)
sync_api = pytest.importorskip("playwright.sync_api")

from nycc_bench.leaderboard import SEED_DIR, Settings, create_app  # noqa: E402
from nycc_bench.leaderboard.ui import launch_options  # noqa: E402
from nycc_bench.report import write_report  # noqa: E402
from nycc_bench.results import read_results  # noqa: E402
from nycc_bench.tasks.scores import family_list, family_metrics  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
SHOTS = ROOT / "out" / "screenshots" / "newuser"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]
WIDTH = 1400
REASONS = {"not run", "n/a", "no judge", "incomplete"}
TABLE_JS = """(key) => {
  const root = document.querySelector('#table-' + key);
  const heads = [...root.querySelectorAll('th[role=columnheader]')].map(th => th.getAttribute('title'));
  const rows = [...root.querySelectorAll('[role=row].virtual-row')].map(tr => [...tr.querySelectorAll(
      '[role=gridcell]')].map(td => td.innerText.trim()));
  return {heads, rows};
}"""
SCROLL_JS = """(key) => {
  const root = document.querySelector('#table-' + key);
  const wide = [root, ...root.querySelectorAll('*')].filter(e => {
    const style = getComputedStyle(e);
    return ['auto', 'scroll'].includes(style.overflowX) && e.scrollWidth > e.clientWidth + 1;
  }).map(e => [e.className, e.scrollWidth, e.clientWidth]);
  return {wide, page: document.documentElement.scrollWidth, view: window.innerWidth,
          right: root.getBoundingClientRect().right};
}"""


def seeded() -> list[dict[str, Any]]:
    """The seed's records (what a fresh data dir starts with)."""
    return [read_results(p) for p in sorted((SEED_DIR / "results").glob("*.json"))]


def tiny_model() -> dict[str, Any]:
    """The issue's tiny model: 44K parameters, 3 tasks run, Matching and Ranking no better than random's."""
    random = next(r for r in seeded() if r["model"]["name"] == "random")
    tiny = copy.deepcopy(random)
    tiny["model"].update(name="org/tiny-44k", spec="hf:org/tiny-44k", type="open", parameters=44_000)
    tiny["extra"] = {"run_id": "tiny", "options": {}}
    tiny["tasks"] = {t: random["tasks"][t] for t in ("matching", "ranking", "humorbench")}
    tiny["skipped"], tiny["errors"] = {}, {}
    return tiny


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory, sample_dataset: str) -> Iterator[dict[str, Any]]:
    os.environ["GRADIO_ANALYTICS_ENABLED"] = "False"
    SHOTS.mkdir(parents=True, exist_ok=True)
    root = tmp_path_factory.mktemp("leaderboard_newuser")
    settings = Settings(data_dir=root / "data", dataset=sample_dataset, allow_local=True, worker=False,
                        sample_data=True)
    demo, app = create_app(settings)
    app.store.save_result(tiny_model())
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    demo.queue().launch(server_name="127.0.0.1", server_port=port, prevent_thread_lock=True, quiet=True,
                        **launch_options(settings))
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        page = browser.new_page(viewport={"width": WIDTH, "height": 1000})
        page.set_default_timeout(30_000)
        page.goto(f"http://127.0.0.1:{port}/")
        page.wait_for_function("() => (document.querySelector('#table-overview') || {}).innerText?.includes("
                               "'tiny-44k')")
        yield {"page": page, "app": app, "root": root}
        browser.close()
    demo.close()


def shot(page: Any, name: str) -> None:
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)


def test_overview_order_reasons_and_width(site: dict[str, Any]) -> None:
    page = site["page"]
    table = page.evaluate(TABLE_JS, "overview")
    heads, rows = table["heads"], table["rows"]
    order = [row[1] for row in rows]
    assert order[0] != "random" and order[0] == "sbert:all-MiniLM-L6-v2", rows
    assert order.index("sbert:all-MiniLM-L6-v2") < order.index("random")
    metrics = [m.label for m in family_metrics(None)]
    assert len(metrics) <= 8 and [h for h in heads if h in metrics] == metrics
    for row in rows:
        for label in metrics:
            cell = row[heads.index(label)]
            assert cell and (cell in REASONS or cell[0].isdigit()), (row[1], label, cell)
    tiny = next(row for row in rows if row[1] == "org/tiny-44k")
    assert tiny[heads.index("Win rate vs top 10")] == "not run" and tiny[heads.index("Params")] == "44K"
    note = page.locator("#ranked-overview").inner_text()
    assert "Ranked columns" in note and "Matching" in note and "Win rate" not in note
    assert "baselines included" in page.locator("#summary-overview").inner_text()
    width = page.evaluate(SCROLL_JS, "overview")
    assert not width["wide"] and width["page"] <= WIDTH and width["right"] <= WIDTH, width
    shot(page, "01_overview")


def test_every_tab_and_the_report_have_a_screenshot(site: dict[str, Any]) -> None:
    page = site["page"]
    for family in family_list():
        page.get_by_role("tab", name=family.title).click()
        page.wait_for_function("(k) => document.querySelector('#table-' + k).innerText.includes('random')",
                               arg=family.key)
        rows = page.evaluate(TABLE_JS, family.key)["rows"]
        assert all(cell for row in rows for cell in row[6:]), rows  # no blank cell on a family tab either
        shot(page, f"02_tab_{family.key}")
    for i, tab in enumerate(("Browse", "Submit", "About"), start=3):
        page.get_by_role("tab", name=tab).click()
        page.wait_for_timeout(500)
        shot(page, f"0{i}_{tab.lower()}")
    about = page.locator("#about").inner_text()
    assert "folds 0 and 1" in about and "fold 0 unless" not in about and "4 runs" in about
    report = write_report([*seeded(), tiny_model()], site["root"] / "report.html")
    page.goto(report.as_uri())
    assert page.locator("h2").first.inner_text() == "Summary"
    assert page.locator("table.summary tr").count() == 5
    shot(page, "06_report")
