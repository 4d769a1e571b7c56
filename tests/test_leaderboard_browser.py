"""The leaderboard end to end in headless Chromium, on a fresh data dir seeded from the package: every family tab
shows a number in every headline cell of the seeded rows and a Rank column, Browse opens on a contest with its
cartoon, caption groups and answers; downloads, comparison, run detail, a submission of a tiny local model through
the worker, refusals and escaping; then the served command restarted three times with queued jobs and its worker
running (the import race of the worker and the UI). Screenshots go to `out/screenshots/leaderboard/`."""

from __future__ import annotations

import copy
import json
import os
import re
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = Path("/usr/bin/chromium")
if not CHROMIUM.exists():
    pytest.skip("browser tests need Chromium at /usr/bin/chromium (apt-get install -y chromium)",
                allow_module_level=True)
sync_api = pytest.importorskip("playwright.sync_api")
pytest.importorskip("transformers")
pytestmark = pytest.mark.slow  # a live leaderboard in Chromium

sys.path.insert(0, str(Path(__file__).parent))
from live_leaderboard import free_port, start, stop  # noqa: E402
from tiny_models import save_tiny_llama  # noqa: E402

from nycc_bench.leaderboard import SEED_DIR, Settings, create_app  # noqa: E402
from nycc_bench.leaderboard.browse import GROUPS  # noqa: E402
from nycc_bench.leaderboard.store import FINISHED, Job, LocalStore  # noqa: E402
from nycc_bench.leaderboard.ui import launch_options  # noqa: E402
from nycc_bench.leaderboard.worker import run_worker_once  # noqa: E402
from nycc_bench.results import read_results  # noqa: E402
from nycc_bench.tasks.scores import family_list, family_metrics  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
SHOTS = ROOT / "out" / "screenshots" / "leaderboard"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]
EVIL = "<script>alert(1)</script>"
PROBE = "probe <script>alert(2)</script>"
TIMEOUT = 30_000
TABLE_JS = """(key) => {
  const root = document.querySelector('#table-' + key);
  if (!root) return null;
  const heads = [...root.querySelectorAll('th[role=columnheader]')].map(th => th.getAttribute('title'));
  const rows = [...root.querySelectorAll('[role=row].virtual-row')].map(tr => [...tr.querySelectorAll(
      '[role=gridcell]')].map(td => td.innerText.trim()));
  return {heads, rows};
}"""


def seeded() -> list[dict[str, Any]]:
    """The seed's records (what a fresh data dir starts with)."""
    return [read_results(p) for p in sorted((SEED_DIR / "results").glob("*.json"))]


def probe_result(store: Any) -> None:
    """A run whose model name and generated caption carry markup, for contest 543 (the sample's held-out one)."""
    folder = store.predictions_dir("probe")
    folder.mkdir(parents=True)
    base = next(r for r in seeded() if "caption_generation" in r["tasks"])
    # the base run's predictions (the board checks a record's counts against them), contest 543's made hostile
    (source,) = base["tasks"]["caption_generation"]["predictions"]
    lines = []
    for line in (SEED_DIR / source).read_text().splitlines():
        record = json.loads(line)
        if record["instance_id"] == "543":
            record.update(prediction=[EVIL, "A second caption."], raw=EVIL)
        lines.append(json.dumps(record))
    (folder / "caption_generation.jsonl").write_text("\n".join(lines) + "\n")
    result = copy.deepcopy(base)
    result["model"].update(name=PROBE, spec="hf:probe", type="open", parameters=5_000_000)
    result["extra"] = {"run_id": "probe", "options": {}}
    result["tasks"] = {"caption_generation": {**result["tasks"]["caption_generation"],
                                              "predictions": ["predictions/probe/caption_generation.jsonl"]}}
    result["skipped"], result["errors"] = {}, {}
    store.save_result(result)


@pytest.fixture(scope="module")
def assets(tmp_path_factory: pytest.TempPathFactory, sample_dataset: str) -> dict[str, Any]:
    root = tmp_path_factory.mktemp("leaderboard_assets")
    return {"dataset": sample_dataset, "model": save_tiny_llama(root / "tiny-llama")}


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    os.environ["GRADIO_ANALYTICS_ENABLED"] = "False"
    SHOTS.mkdir(parents=True, exist_ok=True)
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        yield b
        b.close()


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory, assets: dict[str, Any], browser: Any) -> Iterator[dict[str, Any]]:
    root = tmp_path_factory.mktemp("leaderboard_e2e")
    settings = Settings(data_dir=root / "data", dataset=assets["dataset"], allow_local=True, worker=False,
                        sample_data=True)
    demo, app = create_app(settings)  # a fresh data dir: seeded from the package's seed
    probe_result(app.store)
    port = free_port()
    demo.queue().launch(server_name="127.0.0.1", server_port=port, prevent_thread_lock=True, quiet=True,
                        **launch_options(settings))
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    dialogs: list[str] = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    page.set_default_timeout(TIMEOUT)
    page.goto(f"http://127.0.0.1:{port}/")
    yield {"page": page, "app": app, "settings": settings, "model": assets["model"], "dialogs": dialogs}
    page.close()
    demo.close()


def shot(page: Any, name: str) -> None:
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)


def table_text(page: Any, key: str) -> str:
    return page.locator(f"#table-{key}").inner_text()


def read_table(page: Any, key: str) -> dict[str, list[Any]]:
    return page.evaluate(TABLE_JS, key)


def wait_text(page: Any, selector: str, text: str, present: bool = True) -> None:
    """Wait until the element's text does (or no longer does) contain `text`."""
    page.wait_for_function("([s, t, p]) => { const e = document.querySelector(s); "
                           "return !!e && e.innerText.includes(t) === p; }", arg=[selector, text, present])


def pick(page: Any, elem_id: str, text: str) -> None:
    """Choose the option of a gr.Dropdown whose label contains `text`."""
    page.locator(f"#{elem_id} input").click()
    page.locator(f"#{elem_id} [role=option]", has_text=text).first.click()


def check_headline_cells(page: Any, key: str, family: str | None) -> None:
    """Every seeded row has a number in every headline cell of a task it ran, and the tab has a Rank column."""
    table = read_table(page, key)
    heads = table["heads"]
    assert heads[0] == "Rank", heads
    metrics = [m for m in family_metrics(family) if m.headline]
    assert metrics
    for record in seeded():
        name = record["model"]["name"]
        row = next((r for r in table["rows"] if len(r) > 1 and r[1] == name), None)
        ran = [m for m in metrics if m.task in record["tasks"]]
        if not ran:
            assert row is None or all(row[heads.index(m.label)] in ("not run", "n/a") for m in metrics)
            continue
        assert row is not None, (key, name, table["rows"])
        assert re.fullmatch(r"\d+", row[0]), (key, name, row)  # its rank
        for m in ran:
            cell = row[heads.index(m.label)]
            assert re.match(r"^\d+(\.\d+)?( \[\d+(\.\d+)?, \d+(\.\d+)?\])?$", cell), (key, name, m.label, cell)
        for m in metrics:
            if m.task in (record.get("skipped") or {}):
                assert row[heads.index(m.label)] in ("n/a", "no judge"), (key, name, m.label)


def check_browse(page: Any) -> None:
    """Browse on first load: a cartoon, the four caption groups, and what the runs answered."""
    page.get_by_role("tab", name="Browse").click()
    page.locator("#contest-image img").wait_for()
    wait_text(page, "#contest-text", "Human caption groups")
    text = page.locator("#contest-text").inner_text()
    assert all(label in text for _, label in GROUPS), text
    assert page.locator("#contest-text .nycc-groups > div").count() == 4
    wait_text(page, "#contest-outputs", "What the models said")
    assert "cannot be read" not in page.locator("#tab-browse").inner_text()


def test_1_every_tab_has_numbers_and_ranks_from_the_first_visit(site: dict[str, Any]) -> None:
    page = site["page"]
    names = [r["model"]["name"] for r in seeded()]
    assert {"random", "length"} <= set(names)
    wait_text(page, "#table-overview", "random")
    wait_text(page, "#banner", "embedded sample dataset")
    assert "offline judges" in page.locator("#banner").inner_text()
    check_headline_cells(page, "overview", None)
    assert "Rank" in page.locator("#summary-overview").inner_text()
    shot(page, "01_overview")
    for family in family_list():
        page.get_by_role("tab", name=family.title).click()
        wait_text(page, f"#table-{family.key}", "random")
        check_headline_cells(page, family.key, family.key)
        assert "wholly above" in page.locator(f"#summary-{family.key}").inner_text()
        shot(page, f"02_tab_{family.key}")
        table = read_table(page, family.key)
        assert not any("95%" in h or h.endswith(" n") for h in table["heads"])  # one column per metric
        if family.key == "zhang2024":
            assert all("offline reward model" in r[table["heads"].index("Judge")] for r in table["rows"])

    page.locator("#details input").check()
    wait_text(page, "#table-overview", "n=")
    assert re.search(r"\[\d+\.\d, \d+\.\d\] n=\d+", table_text(page, "overview"))
    page.get_by_role("tab", name="Overview").click()
    shot(page, "03_overview_details")
    page.locator("#details input").uncheck()
    wait_text(page, "#table-overview", "n=", present=False)


def test_2_search_downloads_compare_and_detail(site: dict[str, Any]) -> None:
    page = site["page"]
    page.get_by_role("tab", name="Overview").click()
    page.locator("#search textarea, #search input").first.fill("random")
    page.locator("#search textarea, #search input").first.press("Enter")
    wait_text(page, "#table-overview", "length", present=False)
    assert "random" in table_text(page, "overview") and "sbert" not in table_text(page, "overview")
    page.locator("#search textarea, #search input").first.fill("")
    page.locator("#search textarea, #search input").first.press("Enter")
    wait_text(page, "#table-overview", "length")

    page.locator("#downloads a[download='leaderboard.csv']").wait_for()
    exports = site["app"].public / "exports"  # the public copies the page links to, never the store
    rows = json.loads((exports / "leaderboard.json").read_text())
    assert {r["run_id"] for r in rows} == {*(r["extra"]["run_id"] for r in seeded()), "probe"}
    assert (exports / "leaderboard.csv").read_text().startswith("run_id,")

    page.locator("#compare-plot img").wait_for()  # the top three of the overview, compared from the start
    chosen = page.locator("#compare-runs").inner_text()
    assert sum(name in chosen for name in ("random", "length", "sbert", "probe")) == 3, chosen
    page.locator("#compare-plot").scroll_into_view_if_needed()
    shot(page, "04_compare")

    pick(page, "run-picker", "random")
    wait_text(page, "#run-detail", "nycc-bench evaluate --system random")
    page.locator("#run-files a[download='matching.jsonl']").first.wait_for()
    href = page.locator("#run-files a[download='matching.jsonl']").first.get_attribute("href")
    assert href and "/gradio_api/file=" in href
    page.locator("#run-detail").scroll_into_view_if_needed()
    shot(page, "05_run_detail")


def test_3_browse_opens_on_a_contest_with_cartoon_captions_and_answers(site: dict[str, Any]) -> None:
    page = site["page"]
    check_browse(page)
    shot(page, "06_browse_first_load")
    first = page.locator("#contest-text h3").inner_text()
    pick(page, "contest-picker", "#543")
    wait_text(page, "#contest-text", "Contest #543")
    wait_text(page, "#contest-outputs", EVIL)  # the model's caption shown as text
    assert PROBE in page.locator("#contest-outputs").inner_text()
    assert page.locator("#contest-outputs script").count() == 0
    shot(page, "07_browse_543")
    pick(page, "contest-picker", "#12")
    wait_text(page, "#contest-text", "HumorBench caption")
    assert "Your insurance only covers the B4." in page.locator("#contest-text").inner_text()
    wait_text(page, "#contest-outputs", "matching")
    shot(page, "08_browse_12")
    number = first.split("#")[1]
    pick(page, "contest-picker", f"#{number}:")
    wait_text(page, "#contest-text", first)
    assert site["dialogs"] == []


def submit(page: Any, model: str, tasks: tuple[str, ...] = ("matching",)) -> str:
    page.locator("#model-id textarea, #model-id input").first.fill(model)
    for name in ("matching", "ranking"):
        box = page.locator("#tasks").get_by_label(name, exact=True)
        box.set_checked(name in tasks)
    banner = "#submit-message .nycc-banner"
    before = page.locator(banner).inner_text() if page.locator(banner).count() else ""
    page.locator("#submit-button").click()
    page.wait_for_function("([s, b]) => { const e = document.querySelector(s);"
                           " return !!e && e.innerText !== b; }", arg=[banner, before])
    return page.locator(banner).inner_text()


def test_4_submission_runs_to_finished_and_appears(site: dict[str, Any]) -> None:
    page, app = site["page"], site["app"]
    page.get_by_role("tab", name="Submit").click()
    message = submit(page, str(site["model"]))
    assert "Queued tiny-llama" in message
    wait_text(page, "#queue", "PENDING")
    shot(page, "09_submitted_pending")

    done = run_worker_once(app.store, site["settings"])
    assert done is not None and done.status == FINISHED, done
    page.locator("#queue-refresh").click()
    wait_text(page, "#queue", "FINISHED")

    duplicate = submit(page, str(site["model"]))
    assert "Not queued" in duplicate and "duplicate" in duplicate
    shot(page, "10_duplicate_refused")

    page.get_by_role("tab", name="Leaderboard").click()
    page.locator("#refresh").click()
    page.get_by_role("tab", name="Hessel et al. 2023").click()
    wait_text(page, "#table-hessel2023", "tiny-llama")
    row = next(r for r in read_table(page, "hessel2023")["rows"] if r[1] == "tiny-llama")
    assert re.fullmatch(r"\d+", row[0])
    shot(page, "11_new_row")
    page.get_by_role("tab", name="About").click()
    shot(page, "12_about")


@pytest.mark.parametrize("bad", ["../../etc/passwd", "https://evil.example/x", EVIL + "/x"])
def test_5_malicious_model_ids_are_refused_as_text(site: dict[str, Any], bad: str) -> None:
    page = site["page"]
    page.get_by_role("tab", name="Submit").click()
    message = submit(page, bad)
    assert "Not queued" in message and ("path" in message or "URL" in message or "not a Hub model id" in message)
    assert page.locator("#submit-message script").count() == 0
    if bad.startswith("<"):
        assert "<script>alert(1)</script>" in message  # shown as text, not run
        shot(page, "13_malicious_refused")
    assert site["dialogs"] == []


def _serve(data_dir: Path, dataset: str, port: int, log: Path) -> subprocess.Popen:
    """`nycc-bench leaderboard` in a fresh process, with its worker on and crashed jobs taken back at once."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "NYCC_LB_ALLOW_LOCAL": "1", "NYCC_LB_SAMPLE_DATA": "1",
           "NYCC_LB_HEARTBEAT_TIMEOUT_S": "1", "GRADIO_ANALYTICS_ENABLED": "False"}
    return start(data_dir, dataset, port, log, env)


def test_6_restarts_with_queued_jobs_keep_browse_and_tables(tmp_path: Path, assets: dict[str, Any],
                                                            browser: Any) -> None:
    data = tmp_path / "data"
    store = LocalStore(data)
    for restart in range(3):
        for i in range(2):  # jobs waiting when the server starts: its worker claims one at once
            job = Job(id=f"r{restart}-{i}", model="tiny-llama", spec=f"hf:{assets['model']}", source="local",
                      tasks=["matching"], user="u", run_key=f"restart-{restart}-{i}")
            store.add_job(job, 100, 1.0)
        port, log = free_port(), tmp_path / f"server-{restart}.log"
        server = _serve(data, assets["dataset"], port, log)
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        page.set_default_timeout(TIMEOUT * 4)
        try:
            deadline = time.time() + 240
            while True:
                try:
                    page.goto(f"http://127.0.0.1:{port}/")
                    break
                except sync_api.Error:
                    assert server.poll() is None and time.time() < deadline, log.read_text()[-3000:]
                    time.sleep(1)
            wait_text(page, "#table-overview", "random")
            check_headline_cells(page, "overview", None)
            check_browse(page)
            shot(page, f"14_browse_after_restart_{restart + 1}")
        finally:
            page.close()
            stop(server)  # the server we started, and its children
        text = log.read_text()
        assert "AttributeError" not in text and "browse index" not in text, text[-3000:]
    assert any(j.status != "PENDING" or j.attempts for j in store.jobs()), "the worker never claimed a job"
