"""The leaderboard end to end in headless Chromium: seeded table, search, run detail, browse, a submission of a
tiny local model through the worker, refusals, and escaping. Screenshots go to `out/screenshots/leaderboard/`."""

from __future__ import annotations

import json
import os
import socket
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
pytest.importorskip("transformers")

sys.path.insert(0, str(Path(__file__).parent))
from tiny_models import save_tiny_llama  # noqa: E402

from nycc_bench.builders import build_dataset  # noqa: E402
from nycc_bench.leaderboard import Settings, create_app  # noqa: E402
from nycc_bench.leaderboard.store import FINISHED  # noqa: E402
from nycc_bench.leaderboard.ui import launch_options  # noqa: E402
from nycc_bench.leaderboard.worker import run_worker_once  # noqa: E402
from nycc_bench.paths import SAMPLE_DIR  # noqa: E402

SHOTS = Path(__file__).resolve().parents[1] / "out" / "screenshots" / "leaderboard"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]
EVIL = "<script>alert(1)</script>"
PROBE = "probe <script>alert(2)</script>"
TIMEOUT = 30_000


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def probe_result(store: Any) -> None:
    """A run whose model name and generated caption carry markup, for contest 543 (the sample's held-out one)."""
    folder = store.predictions_dir("probe")
    folder.mkdir(parents=True)
    record = {"instance_id": "543", "prediction": [EVIL, "A second caption."], "raw": EVIL}
    (folder / "caption_generation.jsonl").write_text(json.dumps(record) + "\n")
    store.save_result({"run_id": "probe", "model": {"name": PROBE, "type": "open", "params": 5_000_000},
                       "dataset": {"sample": True}, "tasks": {"caption_generation": {
                           "score": {"scores": {"average_ead": 0.9, "n_groups": 1}},
                           "predictions": ["predictions/probe/caption_generation.jsonl"]}}})


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    os.environ["GRADIO_ANALYTICS_ENABLED"] = "False"
    root = tmp_path_factory.mktemp("leaderboard_e2e")
    build_dataset(SAMPLE_DIR, root / "dataset", progress=False)
    model = save_tiny_llama(root / "tiny-llama")
    settings = Settings(data_dir=root / "data", dataset=str(root / "dataset"), allow_local=True, worker=False,
                        sample_data=True)
    demo, app = create_app(settings)
    probe_result(app.store)
    port = free_port()
    demo.queue().launch(server_name="127.0.0.1", server_port=port, prevent_thread_lock=True, quiet=True,
                        **launch_options(settings))
    SHOTS.mkdir(parents=True, exist_ok=True)
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        dialogs: list[str] = []
        page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
        page.set_default_timeout(TIMEOUT)
        page.goto(f"http://127.0.0.1:{port}/")
        yield {"page": page, "app": app, "settings": settings, "model": model, "dialogs": dialogs}
        browser.close()
    demo.close()


def shot(page: Any, name: str) -> None:
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)


def table_text(page: Any, key: str) -> str:
    return page.locator(f"#table-{key}").inner_text()


def wait_text(page: Any, selector: str, text: str, present: bool = True) -> None:
    """Wait until the element's text does (or no longer does) contain `text`."""
    page.wait_for_function("([s, t, p]) => { const e = document.querySelector(s); "
                           "return !!e && e.innerText.includes(t) === p; }", arg=[selector, text, present])


def pick(page: Any, elem_id: str, text: str) -> None:
    """Choose the option of a gr.Dropdown whose label contains `text`."""
    page.locator(f"#{elem_id} input").click()
    page.locator(f"#{elem_id} [role=option]", has_text=text).first.click()


def test_1_seeded_table_search_and_detail(site: dict[str, Any]) -> None:
    page = site["page"]
    wait_text(page, "#table-overview", "sbert:all-MiniLM-L6-v2")
    overview = table_text(page, "overview")
    assert "random" in overview and "length" in overview and "sample" in overview
    assert "[0.0, 75.0]" in overview  # an interval column
    wait_text(page, "#banner", "embedded sample dataset")
    shot(page, "1_overview")

    page.locator("#search textarea, #search input").first.fill("random")
    page.locator("#search textarea, #search input").first.press("Enter")
    wait_text(page, "#table-overview", "length", present=False)
    assert "random" in table_text(page, "overview") and "sbert" not in table_text(page, "overview")
    shot(page, "2_search_random")
    page.locator("#search textarea, #search input").first.fill("")
    page.locator("#search textarea, #search input").first.press("Enter")
    wait_text(page, "#table-overview", "length")

    page.get_by_role("tab", name="Hessel et al. 2023").click()
    wait_text(page, "#table-hessel2023", "CrowdAcc")
    assert "Rank" in table_text(page, "hessel2023")
    shot(page, "3_hessel_tab")

    pick(page, "run-picker", "random")
    wait_text(page, "#run-detail", "nycc-bench run --task matching --system random")
    page.locator("#run-files [aria-label='matching.jsonl']").wait_for()
    href = page.locator("#run-files a[download='matching.jsonl']").get_attribute("href")
    assert href and "/gradio_api/file=" in href
    page.locator("#run-detail").scroll_into_view_if_needed()
    shot(page, "4_run_detail")


def test_2_browse_contest_and_escaped_outputs(site: dict[str, Any]) -> None:
    page = site["page"]
    page.get_by_role("tab", name="Browse").click()
    pick(page, "contest-picker", "#543")
    wait_text(page, "#contest-text", "Human caption groups")
    text = page.locator("#contest-text").inner_text()
    assert "lighthouse" in text and "Top 10" in text and "#1000-1009" in text
    page.locator("#contest-image img").wait_for()
    wait_text(page, "#contest-outputs", EVIL)  # the model's caption shown as text
    assert PROBE in page.locator("#contest-outputs").inner_text()
    assert page.locator("#contest-outputs script").count() == 0
    shot(page, "5_browse_543")
    pick(page, "contest-picker", "#12")
    wait_text(page, "#contest-text", "HumorBench caption")
    assert "Your insurance only covers the B4." in page.locator("#contest-text").inner_text()
    wait_text(page, "#contest-outputs", "matching")
    shot(page, "6_browse_12")
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


def test_3_submission_runs_to_finished_and_appears(site: dict[str, Any]) -> None:
    page, app = site["page"], site["app"]
    page.get_by_role("tab", name="Submit").click()
    message = submit(page, str(site["model"]))
    assert "Queued tiny-llama" in message
    wait_text(page, "#queue", "PENDING")
    shot(page, "7_submitted_pending")

    done = run_worker_once(app.store, site["settings"])
    assert done is not None and done.status == FINISHED, done
    page.locator("#queue-refresh").click()
    wait_text(page, "#queue", "FINISHED")
    shot(page, "8_finished")

    duplicate = submit(page, str(site["model"]))
    assert "Not queued" in duplicate and "duplicate" in duplicate
    shot(page, "9_duplicate_refused")

    page.get_by_role("tab", name="Leaderboard").click()
    page.locator("#refresh").click()
    page.get_by_role("tab", name="Overview").click()
    wait_text(page, "#table-overview", "tiny-llama")
    shot(page, "10_new_row")


@pytest.mark.parametrize("bad", ["../../etc/passwd", "https://evil.example/x", EVIL + "/x"])
def test_4_malicious_model_ids_are_refused_as_text(site: dict[str, Any], bad: str) -> None:
    page = site["page"]
    page.get_by_role("tab", name="Submit").click()
    message = submit(page, bad)
    assert "Not queued" in message and ("path" in message or "URL" in message or "not a Hub model id" in message)
    assert page.locator("#submit-message script").count() == 0
    if bad.startswith("<"):
        assert "<script>alert(1)</script>" in message  # shown as text, not run
        shot(page, "11_malicious_refused")
    assert site["dialogs"] == []
