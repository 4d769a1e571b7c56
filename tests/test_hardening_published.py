"""A published result is what was scored: the store keeps a digest of each record and its predictions at
publication; an edit on disk or in the results repo withdraws the result (with the reason, for the operator),
and the model URL a record carries is shown only as an https:// link to the Hub."""

from __future__ import annotations

import json
from pathlib import Path

from test_leaderboard_store import FakeHub, record

from nycc_bench.leaderboard import Settings, create_app
from nycc_bench.leaderboard.detail import detail_html
from nycc_bench.leaderboard.hub_store import HubStore
from nycc_bench.leaderboard.store import LocalStore
from nycc_bench.standings import build_frame, model_link


def published(store: LocalStore, run: str = "job-001") -> Path:
    """Publish one run with one predictions file; the record's path."""
    folder = store.predictions_dir(run)
    folder.mkdir(parents=True)
    (folder / "matching.jsonl").write_text('{"instance_id": "x", "prediction": "A"}\n')
    saved = record(run, "org/model-1", {"matching": [f"predictions/{run}/matching.jsonl"]})
    saved["tasks"]["matching"]["n"] = 1
    store.save_result(saved)
    assert [r["model"]["name"] for r in store.results()] == ["org/model-1"]
    return store.root / "results" / f"{run}.json"


def test_a_renamed_model_with_a_doubled_score_is_withdrawn_with_the_reason(tmp_path: Path) -> None:
    _, app = create_app(Settings(data_dir=tmp_path / "data", dataset=str(tmp_path / "none")), start_worker=False)
    store = app.store
    seeded = store.results()
    path = sorted((store.root / "results").glob("*.json"))[0]
    original = path.read_bytes()
    data = json.loads(original)
    entry = next(e for e in data["tasks"].values() if e.get("scores", {}).get("accuracy", {}).get("ci_high"))
    data["model"]["name"] = "org/famous-model"
    entry["scores"]["accuracy"]["ci_high"] = entry["details"]["ci_high"] = 2 * entry["details"]["ci_high"]
    path.write_text(json.dumps(data))  # the score and the details it reads agree: passes every check of the record
    results, error = app.results()
    assert error is None and len(results) == len(seeded) - 1
    assert "org/famous-model" not in {r["model"]["name"] for r in results}
    (problem,) = store.problems()
    assert problem.startswith(f"results/{path.name}: withdrawn: the record was edited after publication")
    assert "withdrawn" in app.banner_html(error, results) and path.name in app.banner_html(error, results)
    with store._connect() as db:  # recorded beside its digest, not only shown
        (why,) = db.execute("SELECT withdrawn FROM published WHERE run_id = ?", (path.stem,)).fetchone()
    assert "edited after publication" in why
    path.write_bytes(original)  # the published bytes again: shown again
    assert len(app.results()[0]) == len(seeded) and store.problems() == []


def test_edited_predictions_and_hand_added_records_are_withdrawn(tmp_path: Path) -> None:
    store = LocalStore(tmp_path)
    path = published(store)
    predictions = store.root / "predictions/job-001/matching.jsonl"
    predictions.write_text('{"instance_id": "x", "prediction": "B"}\n')
    assert store.results() == []
    (problem,) = store.problems()
    assert "predictions/job-001/matching.jsonl was edited or removed after publication" in problem
    predictions.write_text('{"instance_id": "x", "prediction": "A"}\n')
    assert len(store.results()) == 1
    # a valid record dropped in by hand, never published through the store
    forged = json.loads(path.read_text())
    forged["extra"]["run_id"] = "job-002"
    (store.root / "results" / "job-002.json").write_text(json.dumps(forged))
    assert [r["extra"]["run_id"] for r in store.results()] == ["job-001"]
    (problem,) = store.problems()
    assert problem.startswith("results/job-002.json: withdrawn: no digest was recorded")
    # a published record copied under another run's name is not that run
    (store.root / "results" / "job-002.json").unlink()
    store.save_result({**forged, "extra": {"run_id": "job-002"}})
    (store.root / "results" / "job-002.json").write_bytes(path.read_bytes())
    assert [r["extra"]["run_id"] for r in store.results()] == ["job-001"]
    assert "is not its file name's" in store.problems()[0]


def test_an_edit_in_the_results_repo_withdraws_the_result_after_a_restart(tmp_path: Path) -> None:
    hub = FakeHub(tmp_path / "hub")
    store = HubStore(tmp_path / "a", "org/requests", "org/results", api=hub)
    published(store)
    assert (tmp_path / "hub/org/requests/published/job-001.json").is_file()  # the digest is not in the results repo
    remote = tmp_path / "hub/org/results/results/job-001.json"
    data = json.loads(remote.read_text())
    data["model"]["name"] = "org/other"
    remote.write_text(json.dumps(data))
    fresh = HubStore(tmp_path / "b", "org/requests", "org/results", api=hub)  # a restarted Space
    assert fresh.results() == []
    assert "withdrawn: the record was edited after publication" in fresh.problems()[0]
    untouched = HubStore(tmp_path / "c", "org/requests", "org/results", api=FakeHub(tmp_path / "hub2"))
    assert untouched.results() == []


def test_a_record_url_is_shown_only_as_a_hub_link() -> None:
    evil = "https://huggingface.co/x) <img src=https://evil.example/a.png>"
    assert model_link("org/m", evil) == "org/m"
    assert model_link("org/m", "https://huggingface.co/org/m") == "[org/m](https://huggingface.co/org/m)"
    assert model_link("<img src=x>", None) == "\\<img src=x\\>"  # markdown shows it as text
    rec = record("job-009", "org/m")
    rec["model"]["url"] = evil
    frame = build_frame([rec])
    assert frame.loc[0, "Model"] == "org/m"
    for url in (evil, "javascript:alert(1)", "https://evil.example/org/m"):
        rec["model"]["url"] = url
        assert "href" not in detail_html(rec) and "evil" not in detail_html(rec)
    rec["model"]["url"] = "https://huggingface.co/org/m"
    assert "href='https://huggingface.co/org/m'" in detail_html(rec)


def test_results_published_before_digests_are_adopted_only_when_the_operator_says(tmp_path: Path) -> None:
    hub = FakeHub(tmp_path / "hub")
    store = HubStore(tmp_path / "a", "org/requests", "org/results", api=hub)
    published(store)
    (tmp_path / "hub/org/requests/published/job-001.json").unlink()  # as a results repo from before digests
    fresh = HubStore(tmp_path / "b", "org/requests", "org/results", api=hub)
    assert fresh.results() == [] and "no digest was recorded" in fresh.problems()[0]
    assert fresh.adopt() == ["job-001"] and len(fresh.results()) == 1 and fresh.problems() == []
    again = HubStore(tmp_path / "c", "org/requests", "org/results", api=hub)  # the adopted digest was saved
    assert len(again.results()) == 1
