"""The Arena tab in headless Chromium (Debian's, driven by Playwright): a fresh leaderboard opens on a battle with
the simulated seed's table (labelled simulated), a vote reveals both players, the table switches to people's votes,
a second click on the same battle is refused as a replay, and the next battle votes again. Screenshots go to
`out/screenshots/leaderboard/`."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from live_leaderboard import free_port

CHROMIUM = Path("/usr/bin/chromium")
if not CHROMIUM.exists():
    pytest.skip("browser tests need Chromium at /usr/bin/chromium (apt-get install -y chromium)",
                allow_module_level=True)
sync_api = pytest.importorskip("playwright.sync_api")

from nycc_bench.leaderboard import Settings, create_app  # noqa: E402
from nycc_bench.leaderboard.ui import launch_options  # noqa: E402

SHOTS = Path(__file__).resolve().parents[1] / "out" / "screenshots" / "leaderboard"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
        "--disable-component-update", "--disable-sync"]


@pytest.fixture(scope="module")
def page(tmp_path_factory: pytest.TempPathFactory, sample_dataset: str) -> Iterator[Any]:
    os.environ["GRADIO_ANALYTICS_ENABLED"] = "False"
    saved = os.environ.get("NYCC_ARENA_MIN_SECONDS")
    os.environ["NYCC_ARENA_MIN_SECONDS"] = "0"  # the minimum time is tested without a browser
    settings = Settings(data_dir=tmp_path_factory.mktemp("arena_e2e") / "data", dataset=sample_dataset, worker=False,
                        sample_data=True)
    demo, _ = create_app(settings)
    if saved is None:
        os.environ.pop("NYCC_ARENA_MIN_SECONDS")
    else:
        os.environ["NYCC_ARENA_MIN_SECONDS"] = saved
    port = free_port()
    demo.queue().launch(server_name="127.0.0.1", server_port=port, prevent_thread_lock=True, quiet=True,
                        **launch_options(settings))
    SHOTS.mkdir(parents=True, exist_ok=True)
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        tab = browser.new_page(viewport={"width": 1300, "height": 1000})
        dialogs: list[str] = []
        tab.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
        tab.set_default_timeout(60_000)
        tab.goto(f"http://127.0.0.1:{port}/")
        yield tab
        assert not dialogs
        browser.close()
    demo.close()


def wait_text(page: Any, selector: str, text: str, present: bool = True) -> None:
    page.wait_for_function("([s, t, p]) => { const e = document.querySelector(s); "
                           "return !!e && e.innerText.includes(t) === p; }", arg=[selector, text, present])


def captions(page: Any) -> tuple[str, str]:
    return page.locator("#arena-left").inner_text().strip(), page.locator("#arena-right").inner_text().strip()


def test_voting_reveals_the_players_and_updates_the_table(page: Any) -> None:
    page.get_by_role("tab", name="Arena").click()
    page.wait_for_function("() => { const e = document.querySelector('#arena-left'); "
                           "return !!e && e.innerText.trim().length > 0; }")
    wait_text(page, "#arena-notes", "Simulated")
    wait_text(page, "#arena-table", "Human #200-209")
    assert "1000" in page.locator("#arena-table").inner_text()
    page.locator("#arena-plot img").wait_for()
    assert "Cartoon #" in page.locator("#arena-cartoon").inner_text()
    left, right = captions(page)
    assert left and right and left != right
    page.screenshot(path=str(SHOTS / "10_arena_battle.png"), full_page=True)

    page.locator("#arena-vote-left").click()
    wait_text(page, "#arena-reveal", "recorded")
    reveal = page.locator("#arena-reveal").inner_text()
    assert "Left:" in reveal and "Right:" in reveal and "the left caption" in reveal
    assert "not counted: sign in" in reveal  # no sign-in on a local board: recorded, not counted
    wait_text(page, "#arena-notes", "1 vote(s) by people recorded, none counted yet")
    assert "Simulated" in page.locator("#arena-notes").inner_text()  # the table still rests on the seed
    page.screenshot(path=str(SHOTS / "11_arena_reveal.png"), full_page=True)

    page.locator("#arena-vote-right").click()  # the same battle again
    wait_text(page, "#arena-reveal", "replayed")

    page.locator("#arena-next").click()
    page.wait_for_function("([l, r]) => { const a = document.querySelector('#arena-left').innerText.trim(); "
                           "const b = document.querySelector('#arena-right').innerText.trim(); "
                           "return a.length > 0 && (a !== l || b !== r); }", arg=[left, right])
    wait_text(page, "#arena-reveal", "recorded", present=False)
    page.locator("#arena-flag-left input").check()
    page.locator("#arena-vote-both-bad").click()
    wait_text(page, "#arena-reveal", "both bad")
    wait_text(page, "#arena-notes", "2 vote(s) by people recorded")
    wait_text(page, "#arena-notes", "flagged a caption as offensive")
    page.screenshot(path=str(SHOTS / "12_arena_second_vote.png"), full_page=True)
