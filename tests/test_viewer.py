"""Issue 35 item 1: prediction records carry gold and correctness, judged tasks keep each item's verdicts and
reasoning, `RunResult.to_pandas()` is one row per score, and `nycc-bench view RUN_DIR...` shows it all on
127.0.0.1 in headless Chromium: scores with intervals and status, every instance, the wrong / unparsed / failed
filters, search, two runs side by side where they disagree, markup from a run shown as text. Screenshots go to
`out/screenshots/viewer/`."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from fake_openai import FakeChatServer, Reply, last_user_text

from nycc_bench import evaluate, load_results
from nycc_bench.judging import JudgeSpec
from nycc_bench.predictions import judged_path, read_judged, read_predictions
from nycc_bench.viewer import load_runs, serve_view, view_page

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = Path("/usr/bin/chromium")
SHOTS = ROOT / "out" / "screenshots" / "viewer"
EVIL = "<img src=x onerror=alert(1)><script>alert(2)</script>"
KEY = "sk-viewer-test-0123456789"


def _system(body: dict, attempt: int) -> Reply:
    """The explainer: markup in every reply; explanations of captions with an even first letter say 'joke'."""
    text = last_user_text(body)
    if "generate 10 funny captions" in json.dumps(body):
        return Reply(text="\n".join(f'{i}. "Caption {i} about the joke." - why' for i in range(1, 11)),
                     top_logprobs=None)
    if "<explanation>" in text:
        word = "joke" if len(text) % 2 else "scene"
        return Reply(text=f"<explanation>The {word} {EVIL}.</explanation>", top_logprobs=None)
    return Reply(text="Answer: B", top_logprobs=None)


def _judge(body: dict, attempt: int) -> Reply:
    """The autograder: PASS when the explanation says 'joke', with reasoning that carries markup."""
    if body.get("logprobs"):  # Zhang's Overall comparison: A, strongly
        return Reply(text="A", top_logprobs=[("A", -0.05), ("B", -4.0)])
    text = last_user_text(body)
    verdict = "PASS" if "joke" in text.split("Student")[-1].lower() else "FAIL"
    return Reply(text=f"<reasoning>Checked <b>the pun</b>: {verdict.lower()}.</reasoning>"
                      f"<judgement>{verdict}</judgement>", top_logprobs=None)


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory, sample_dataset: str) -> dict[str, Path]:
    """Two baselines on matching and ranking (fold 0), and an API model on HumorBench judged by an API judge."""
    root = tmp_path_factory.mktemp("viewer_runs")
    out = {}
    for system in ("random", "length"):
        out[system] = root / system
        evaluate(system=system, tasks=["matching", "ranking"], dataset=sample_dataset, folds=[0], out=out[system],
                 progress=False)
    os.environ["OPENAI_API_KEY"] = KEY
    try:
        with FakeChatServer(_system) as system, FakeChatServer(_judge) as judge:
            out["api"] = root / "api"
            spec = JudgeSpec.parse("openai:fake-grader", base_url=judge.base_url, cache_dir=str(root / "jcache"))
            evaluate(system="openai:fake-explainer", tasks=["humorbench", "caption_generation"],
                     dataset=sample_dataset, out=out["api"], base_url=system.base_url, judge=spec, progress=False,
                     task_options={"caption_generation": {"setting": "uniform"}}, cache_dir=str(root / "cache"))
    finally:
        os.environ.pop("OPENAI_API_KEY", None)
    # a run still going: predictions only, one item failed and one reply unreadable since
    out["partial"] = root / "partial"
    shutil.copytree(out["random"] / "predictions", out["partial"] / "predictions")
    path = out["partial"] / "predictions" / "matching.jsonl"
    first, second = list(read_predictions(path).values())[:2]
    with path.open("a") as f:
        f.write(json.dumps({**first, "status": "failed", "prediction": None, "raw": None, "correct": None,
                            "error": "HTTP 503: " + EVIL}) + "\n")
        f.write(json.dumps({**second, "status": "unparsed", "prediction": None, "raw": "I cannot tell.",
                            "correct": False}) + "\n")
    # a long run: 250 items, one reply far over the page's cut
    out["long"] = root / "long"
    (out["long"] / "predictions").mkdir(parents=True)
    source = out["random"] / "predictions" / "matching.jsonl"
    shutil.copy(str(source) + ".meta.json", out["long"] / "predictions" / "matching.jsonl.meta.json")
    record = {k: v for k, v in first.items() if k != "messages"}
    with (out["long"] / "predictions" / "matching.jsonl").open("w") as f:
        for k in range(250):
            raw = LONG if k == 7 else record["raw"]
            f.write(json.dumps({**record, "instance_id": f"item{k:03d}", "raw": raw}) + "\n")
    return out


LONG = "a very long reply " * 20_000 + "THE END"


def test_judge_side_files_are_never_tasks(runs: dict[str, Path]) -> None:
    (view,) = load_runs([runs["api"]])
    assert judged_path(runs["api"] / "predictions" / "humorbench.jsonl").exists()
    assert sorted(view.items) == ["caption_generation", "humorbench"]


def test_items_name_their_contest(runs: dict[str, Path], sample_dataset: str) -> None:
    import datasets

    rows = datasets.load_dataset("parquet", data_files=str(Path(sample_dataset) / "data" / "matching" / "test-*"),
                                 split="train")
    contests = dict(zip(rows["instance_id"], rows["contest_number"], strict=True))
    (view,) = load_runs([runs["random"]])
    assert [i["contest"] for i in view.items["matching"]] == [contests[i["id"]] for i in view.items["matching"]]
    (api,) = load_runs([runs["api"]])
    rows = datasets.load_dataset("parquet", split="train",
                                 data_files=str(Path(sample_dataset) / "data" / "humorbench" / "test-*"))
    contests = {str(c): n for c, n in zip(rows["caption_id"], rows["contest_number"], strict=True)}
    items = api.items["humorbench"]
    assert [i["contest"] for i in items] == [contests[i["id"].split("/")[0]] for i in items]
    assert any(isinstance(i["contest"], int) for i in items)


def test_runs_by_scores_table_comes_first(runs: dict[str, Path]) -> None:
    from nycc_bench.viewer.page import scores_table

    views = load_runs([runs["random"], runs["length"]])
    table = scores_table(views)
    value = load_results(runs["random"]).scores["matching"]["accuracy"]
    assert f"{value['value'] * 100:.1f} [{value['ci_low'] * 100:.1f}, {value['ci_high'] * 100:.1f}]" in table
    assert table.count("<tr><th class='run'>") == 2
    page = view_page(views)
    assert page.index("id='board'") < page.index('id="items-head"') < page.index('id="scores"')


def test_served_page_cuts_long_replies_with_a_link(runs: dict[str, Path]) -> None:
    server = serve_view([runs["long"]], port=0, block=False)
    try:
        host, port = server.server_address[:2]
        base = f"http://{host}:{port}"
        with urllib.request.urlopen(base + "/", timeout=60) as response:
            body = response.read().decode()
        assert "THE END" not in body and len(body) < len(LONG)
        query = urllib.parse.urlencode({"run": "0", "task": "matching", "key": "0:item007"})
        with urllib.request.urlopen(f"{base}/text?{query}", timeout=60) as response:
            assert response.read().decode() == LONG and response.headers["Content-Type"].startswith("text/plain")
        with pytest.raises(urllib.error.HTTPError) as err:
            urllib.request.urlopen(f"{base}/text?run=0&task=matching&key=nope", timeout=60)
        assert err.value.code == 404
    finally:
        server.shutdown()
        server.server_close()


def test_records_carry_gold_and_correctness(runs: dict[str, Path]) -> None:
    run = load_results(runs["random"])
    for task in ("matching", "ranking"):
        records = list(read_predictions(runs["random"] / "predictions" / f"{task}.jsonl").values())
        assert all(r["gold"] in "ABCDE" and r["correct"] == (r["prediction"] == r["gold"]) for r in records)
        # the per-item verdicts add up to the scored accuracy: nothing needs re-scoring
        assert sum(r["correct"] for r in records) / len(records) == pytest.approx(
            run.scores[task]["accuracy"]["value"])


def test_judged_items_keep_each_verdict_and_its_reasoning(runs: dict[str, Path]) -> None:
    path = runs["api"] / "predictions" / "humorbench.jsonl"
    records, judged = read_predictions(path), read_judged(path)
    assert set(judged) == set(records)
    verdicts = [v for j in judged.values() for v in j["verdicts"]]
    assert {v["verdict"] for v in verdicts} == {"PASS", "FAIL"}
    assert all(v["reasoning"].startswith("Checked <b>the pun</b>") and v["element"] for v in verdicts)
    assert all(j["judge"] == "openai:fake-grader" for j in judged.values())
    assert all(j["correct"] == all(v["verdict"] == "PASS" for v in j["verdicts"]) for j in judged.values())
    run = load_results(runs["api"])
    assert run.scores["humorbench"]["element_accuracy"]["value"] == pytest.approx(
        sum(v["verdict"] == "PASS" for v in verdicts) / len(verdicts))
    assert "item_judgments" not in json.dumps(run.record)  # kept beside the predictions, not in the record
    assert all(isinstance(r["gold"], list) and r["correct"] is None for r in records.values())
    assert KEY not in path.read_text() + judged_path(path).read_text()


def test_group_comparisons_are_kept_per_contest(runs: dict[str, Path]) -> None:
    """Zhang's judged comparisons: each contest keeps its comparison with every human group, both orders."""
    path = runs["api"] / "predictions" / "caption_generation.jsonl"
    judged = read_judged(path)
    assert set(judged) == set(read_predictions(path))
    run = load_results(runs["api"])
    groups = set(run.record["tasks"]["caption_generation"]["details"]["win_rate"])
    for entry in judged.values():
        assert entry["correct"] is None  # a contest has no single verdict
        assert {(v["against"], v["model_position"]) for v in entry["verdicts"]} == {
            (g, p) for g in groups for p in "AB"}
        assert all(v["delta_logprob"] == pytest.approx(3.95) for v in entry["verdicts"])


def test_to_pandas_is_one_row_per_score(runs: dict[str, Path]) -> None:
    run = load_results(runs["random"])
    frame = run.to_pandas()
    expected = [(t, k) for t, scores in run.scores.items() for k in scores]
    assert list(zip(frame["task"], frame["score"], strict=True)) == expected
    for row in frame.itertuples():
        score = run.scores[row.task][row.score]
        assert (row.value, row.ci_low, row.ci_high, row.n) == (score["value"], score["ci_low"], score["ci_high"],
                                                             score["n"])
    assert set(frame["status"]) == {"complete"} and set(frame["system"]) == {"random"}
    assert frame.loc[frame["score"] == "accuracy", "label"].tolist() == ["Matching", "Ranking"]


def test_runs_are_told_apart_in_one_frame(runs: dict[str, Path]) -> None:
    import pandas as pd

    frame = pd.concat([load_results(runs[s]).to_pandas() for s in ("random", "length")])
    assert list(frame.columns[:2]) == ["run", "folder"]
    assert set(frame["run"]) == {"random", "length"} and set(frame["folder"]) == {str(runs["random"]),
                                                                                   str(runs["length"])}
    sizes = {s: sum(map(len, load_results(runs[s]).scores.values())) for s in ("random", "length")}
    assert frame.groupby("run").size().to_dict() == sizes


def test_a_record_path_means_its_folder(runs: dict[str, Path]) -> None:
    view = load_runs([runs["random"] / "results.json"])[0]
    assert view.folder == runs["random"] and view.label == "random" and set(view.items) == {"matching", "ranking"}


def test_bad_folders_are_one_line(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, "-m", "nycc_bench.cli", "view", str(tmp_path / "nope")],
                          capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(ROOT)}, timeout=300)
    assert done.returncode != 0 and "Traceback" not in done.stderr
    assert "is not a folder; pass run folders of `nycc-bench evaluate`" in done.stderr


# ---- the page in Chromium ------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def page(runs: dict[str, Path]) -> Iterator[Any]:
    if not CHROMIUM.exists():
        pytest.skip("browser tests need Chromium at /usr/bin/chromium")
    sync_api = pytest.importorskip("playwright.sync_api")
    server = serve_view([runs["random"], runs["length"], runs["api"], runs["partial"], runs["long"]], port=0,
                        block=False)
    SHOTS.mkdir(parents=True, exist_ok=True)
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=["--headless", "--no-sandbox",
                                                                         "--disable-gpu"])
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        page.set_default_timeout(30_000)
        dialogs: list[str] = []
        page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
        host, port = server.server_address[:2]
        page.goto(f"http://{host}:{port}/")
        page.dialogs = dialogs
        page.base = f"http://{host}:{port}"
        yield page
        browser.close()
    server.shutdown()
    server.server_close()


def _count(page: Any) -> int:
    return page.locator("#items-body tr").count()


def _choose(page: Any, select: str, value: str) -> None:
    page.select_option(select, value)


def test_page_shows_scores_with_intervals_and_status(page: Any, runs: dict[str, Path]) -> None:
    scores = page.locator("#scores").inner_text()
    run = load_results(runs["random"])
    value = run.scores["matching"]["accuracy"]
    assert f"{value['value'] * 100:.1f} [{value['ci_low'] * 100:.1f}, {value['ci_high'] * 100:.1f}] (n={value['n']})" \
        in scores
    assert scores.count("complete") >= 5 and "Element accuracy" in scores
    page.screenshot(path=str(SHOTS / "scores.png"), full_page=True)


def test_filters_search_and_two_runs_side_by_side(page: Any, runs: dict[str, Path]) -> None:
    views = {v.folder: v for v in load_runs([runs["random"], runs["length"]])}
    a, b = views[runs["random"]].items["matching"], views[runs["length"]].items["matching"]
    _choose(page, "#task", "matching")
    _choose(page, "#run-a", "0")
    _choose(page, "#run-b", "")
    _choose(page, "#filter", "all")
    assert _count(page) == len(a)
    _choose(page, "#filter", "wrong")
    assert _count(page) == sum(i["correct"] is False for i in a) > 0
    assert set(page.locator("#items-body tr td:nth-child(6)").all_inner_texts()) == {"wrong"}
    _choose(page, "#filter", "unparsed")
    assert _count(page) == 0
    # two runs: where they disagree
    _choose(page, "#run-b", "1")
    _choose(page, "#filter", "disagree")
    by_key = {i["key"]: i for i in b}
    disagree = [i for i in a if (by_key[i["key"]]["parsed"], by_key[i["key"]]["correct"]) != (i["parsed"],
                                                                                             i["correct"])]
    assert _count(page) == len(disagree) > 0
    first = disagree[0]
    page.locator(f"#items-body tr[data-key='{first['key']}']").click()
    sides = page.locator("#detail .side")
    assert sides.count() == 2
    left, right = sides.nth(0).inner_text(), sides.nth(1).inner_text()
    assert first["parsed"] in left and by_key[first["key"]]["parsed"] in right and f"gold\t{first['gold']}" in left
    assert "SYSTEM" in left.upper() and "Answer" in left  # the prompt, from the message store
    page.screenshot(path=str(SHOTS / "side_by_side.png"), full_page=True)
    # search reads the prompts too
    _choose(page, "#filter", "all")
    page.fill("#search", first["id"][:12])
    assert _count(page) == 1
    page.fill("#search", "no such text anywhere")
    assert _count(page) == 0 and "0 of" in page.locator("#count").inner_text()
    page.fill("#search", "")


def test_judge_verdicts_and_markup_are_text(page: Any, runs: dict[str, Path]) -> None:
    _choose(page, "#task", "humorbench")
    _choose(page, "#run-a", "2")
    _choose(page, "#run-b", "")
    _choose(page, "#filter", "wrong")
    judged = read_judged(runs["api"] / "predictions" / "humorbench.jsonl")
    assert _count(page) == sum(j["correct"] is False for j in judged.values()) > 0
    page.locator("#items-body tr").first.click()
    detail = page.locator("#detail").inner_text()
    assert "Judge: openai:fake-grader" in detail and "→ FAIL" in detail
    assert "Checked <b>the pun</b>: fail." in detail  # reasoning as text, markup and all
    assert EVIL in detail  # the reply's markup is shown, not run
    assert page.locator("#detail img, #detail script, #detail b").count() == 0
    page.fill("#search", "the pun")
    assert _count(page) > 0
    page.fill("#search", "")
    _choose(page, "#task", "caption_generation")
    _choose(page, "#filter", "all")
    page.locator("#items-body tr").first.click()
    assert "against human_top10 (model as A) → Δ log p(A) − log p(B) 3.95" in page.locator("#detail").inner_text()
    assert page.dialogs == []
    page.screenshot(path=str(SHOTS / "judged.png"), full_page=True)


def test_a_run_in_progress_shows_its_failed_and_unparsed_items(page: Any) -> None:
    assert "no results.json yet (a run in progress?)" in page.locator("#scores").inner_text()
    _choose(page, "#task", "matching")
    _choose(page, "#run-a", "3")
    _choose(page, "#run-b", "")
    for status in ("failed", "unparsed"):
        _choose(page, "#filter", status)
        assert _count(page) == 1
        assert page.locator("#items-body tr td:nth-child(3)").inner_text() == status
    _choose(page, "#filter", "failed")
    page.locator("#items-body tr").first.click()
    detail = page.locator("#detail").inner_text()
    assert f"HTTP 503: {EVIL}" in detail and "(no reply)" in detail
    _choose(page, "#filter", "wrong")  # the unparsed reply is wrong; the failed item is not (yet) either
    assert page.locator("#items-body tr td:nth-child(3)").all_inner_texts().count("failed") == 0
    assert page.dialogs == []


def test_only_the_page_is_served(page: Any) -> None:
    for path in ("/results.json", "/../results.json", "/predictions/matching.jsonl", "/favicon.ico"):
        with pytest.raises(urllib.error.HTTPError) as err:
            urllib.request.urlopen(page.base + path, timeout=30)
        assert err.value.code == 404
    with urllib.request.urlopen(page.base + "/", timeout=30) as response:
        policy = response.headers["Content-Security-Policy"]
    assert policy.startswith("default-src 'none'; script-src 'nonce-")
    with pytest.raises(urllib.error.HTTPError) as err:  # a page on another host that resolves to 127.0.0.1
        urllib.request.urlopen(urllib.request.Request(page.base + "/", headers={"Host": "evil.example:80"}),
                               timeout=30)
    assert err.value.code == 403


def test_items_are_paged_and_a_cut_reply_links_its_whole_text(page: Any, runs: dict[str, Path]) -> None:
    _choose(page, "#task", "matching")
    _choose(page, "#run-a", "4")
    _choose(page, "#run-b", "")
    _choose(page, "#filter", "all")
    assert _count(page) == 100 and "page 1 of 3" in page.locator("#page").inner_text()
    page.click("#next")
    page.click("#next")
    assert _count(page) == 50 and page.locator("#next").is_disabled()
    page.click("#prev")
    page.click("#prev")
    page.locator("#items-body tr[data-key='0:item007']").click()
    link = page.locator("#detail a")
    assert f"the whole reply ({len(LONG)} characters)" in link.inner_text()
    assert "THE END" not in page.locator("#detail").inner_text()
    with urllib.request.urlopen(page.base + link.get_attribute("href"), timeout=60) as response:
        assert response.read().decode().endswith("THE END")


@pytest.mark.parametrize("width", [1400, 390])
def test_layout_reads_at_1400_and_on_a_phone(page: Any, width: int) -> None:
    page.set_viewport_size({"width": width, "height": 900 if width > 600 else 844})
    page.goto(page.base + "/")
    board, controls = page.locator("#board").bounding_box(), page.locator(".controls").bounding_box()
    assert board["y"] < controls["y"] < 2 * page.viewport_size["height"]  # the item browser is near the top
    assert page.evaluate("document.documentElement.scrollWidth") <= width + 1  # nothing wider than the screen
    page.screenshot(path=str(SHOTS / f"view_{width}.png"), full_page=False)
    page.set_viewport_size({"width": 1400, "height": 1000})
    page.goto(page.base + "/")
