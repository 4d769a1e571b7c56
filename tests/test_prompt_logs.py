"""Prompts in the logs: every predictions record names the messages it was answered from, stored once per file
(gzip members, a torn one skipped), and `nycc-bench show RUN_DIR TASK INSTANCE_ID` prints prompt, reply, answer
and verdict."""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path

import pytest

from nycc_bench.cli import main
from nycc_bench.evaluation import evaluate
from nycc_bench.kinds.instances import build_instances
from nycc_bench.predictions import messages_path, read_messages, read_predictions, record_messages
from nycc_bench.runner import run_task
from nycc_bench.tasks import get_task


def cli(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(list(argv))
    return code, out.getvalue(), err.getvalue()


@pytest.mark.parametrize("task", ["matching", "matching_5shot", "humorbench"])
def test_each_record_keeps_the_messages_it_was_answered_from(task: str, sample_dataset: str, tmp_path: Path) -> None:
    out = tmp_path / f"{task}.jsonl"
    run_task(task, "random", out, dataset=sample_dataset, progress=False)
    records = read_predictions(out)
    built = {i.instance_id: i for i in build_instances(get_task(task), sample_dataset)}
    assert set(records) == set(built)
    for iid, record in records.items():
        assert record_messages(out, record) == built[iid].messages()
    store = read_messages(out)
    refs = [r for record in records.values() for r in record["messages"]]
    assert set(refs) == set(store) and len(store) < len(refs)  # shared messages are stored once


def test_resume_adds_only_new_messages_and_a_torn_member_is_skipped(sample_dataset: str, tmp_path: Path) -> None:
    out = tmp_path / "humorbench.jsonl"
    run_task("humorbench", "random", out, dataset=sample_dataset, progress=False, limit=3)
    first = messages_path(out).read_bytes()
    run_task("humorbench", "random", out, dataset=sample_dataset, progress=False)
    data = messages_path(out).read_bytes()
    assert data.startswith(first) and len(data) > len(first)
    import gzip

    lines = gzip.decompress(data).decode().splitlines()
    assert len(lines) == len({json.loads(line)["ref"] for line in lines})  # no message stored twice
    messages_path(out).write_bytes(data + gzip.compress(b'{"ref": "x", "role": "user", "content": "cut"}\n')[:-9])
    assert set(read_messages(out)) == {json.loads(line)["ref"] for line in lines}  # the torn member left out
    record = next(iter(read_predictions(out).values()))
    messages_path(out).write_bytes(gzip.compress(b""))
    with pytest.raises(ValueError, match="lacks message"):
        record_messages(out, record)


def test_show_prints_prompt_reply_answer_and_verdict(sample_dataset: str, tmp_path: Path) -> None:
    run = tmp_path / "run"
    evaluate("random", ["matching", "explanation"], dataset=sample_dataset, out=run, progress=False)
    record = next(iter(read_predictions(run / "predictions" / "matching.jsonl").values()))
    instance = next(i for i in build_instances(get_task("matching"), sample_dataset) if
                    i.instance_id == record["instance_id"])
    code, text, _ = cli("show", str(run), "matching", record["instance_id"])
    assert code == 0
    assert instance.user in text and instance.system in text and "--- reply ---" in text
    label = instance.reference["label"]
    expected = "correct" if record["prediction"] == label else "wrong"
    assert f"--- verdict ---\n{expected}: answered {record['prediction']}, the answer is {label}" in text
    gen = next(iter(read_predictions(run / "predictions" / "explanation.jsonl").values()))
    code, text, _ = cli("show", str(run), "explanation", gen["instance_id"])
    assert code == 0 and gen["raw"] in text and "the reference is:" in text
    # a record written before prompts were kept: the prompt is rebuilt from the run's dataset, and says so
    path = run / "predictions" / "matching.jsonl"
    path.write_text("".join(json.dumps({k: v for k, v in r.items() if k != "messages"}) + "\n"
                            for r in read_predictions(path).values()))
    code, text, _ = cli("show", str(run), "matching", record["instance_id"])
    assert code == 0 and "prompt rebuilt from the dataset" in text and instance.user in text
    code, _, err = cli("show", str(run), "matchin", record["instance_id"])
    assert code == 2 and "has no predictions of 'matchin'; it has explanation, matching" in err
    code, _, err = cli("show", str(run), "matching", "nope")
    assert code == 2 and "no matching prediction has id 'nope'" in err


def test_the_leaderboard_store_keeps_the_prompts_with_the_predictions(sample_dataset: str, tmp_path: Path) -> None:
    from nycc_bench.leaderboard.store import LocalStore

    run = tmp_path / "seed" / "predictions" / "r1"
    result = evaluate("random", ["matching"], dataset=sample_dataset, out=run, progress=False)
    record = json.loads(json.dumps(result.record))
    record["extra"] = {"run_id": "r1"}
    for entry in record["tasks"].values():
        entry["predictions"] = [f"predictions/r1/{p}" for p in entry["predictions"]]
    (tmp_path / "seed" / "results").mkdir()
    (tmp_path / "seed" / "results" / "r1.json").write_text(json.dumps(record))
    store = LocalStore(tmp_path / "store")
    assert store.seed(tmp_path / "seed") == 1
    copied = store.resolve("predictions/r1/predictions/matching.jsonl")
    one = next(iter(read_predictions(copied).values()))
    assert record_messages(copied, one) == record_messages(run / "predictions" / "matching.jsonl", one)
