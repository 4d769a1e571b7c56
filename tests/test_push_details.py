"""Issue 35 item 3: `nycc-bench push RUN_DIR USER/REPO` and `nycc-bench evaluate ... --push-to-hub USER/REPO`
upload a run's record and predictions as a dataset repo (one config per task, a card linking the record) to a local
stand-in for the Hub; a second push commits nothing; a run holding a secret is refused before anything is sent;
a bad repo id or a missing token is one line before the run starts; the token is never shown."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from local_hub import LocalHub

from nycc_bench import evaluate
from nycc_bench.predictions import read_predictions
from nycc_bench.publish.public import public_record
from nycc_bench.results import read_results

ROOT = Path(__file__).resolve().parents[1]
TOKEN = "hf_" + "DetailsPushToken" * 3
REPO = "someone/nycc-details"


def cli(hub: LocalHub | None, *args: str, token: str | None = TOKEN, home: Path) -> subprocess.CompletedProcess:
    """The CLI in a clean environment: the token only in HF_TOKEN, no saved login, the Hub on 127.0.0.1."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("HF_", "HUGGING"))}
    env.update(HF_HOME=str(home), NO_PROXY="127.0.0.1,localhost", no_proxy="127.0.0.1,localhost",
               PYTHONPATH=str(ROOT))
    if hub is not None:
        env["HF_ENDPOINT"] = hub.base_url
    if token:
        env["HF_TOKEN"] = token
    return subprocess.run([sys.executable, "-m", "nycc_bench.cli", *args], env=env, capture_output=True, text=True,
                          timeout=600, cwd=ROOT)


def commits(hub: LocalHub, since: int = 0) -> list[str]:
    return [r.path for r in hub.requests[since:] if r.method == "POST" and "/commit/" in r.path]


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory: pytest.TempPathFactory, sample_dataset: str) -> Path:
    out = tmp_path_factory.mktemp("push") / "run"
    evaluate(system="random", tasks=["matching", "ranking"], dataset=sample_dataset, out=out, progress=False)
    return out


def test_push_uploads_one_config_per_task_and_a_card_linking_the_record(run_dir: Path, tmp_path: Path) -> None:
    with LocalHub(TOKEN) as hub:
        done = cli(hub, "push", str(run_dir), REPO, home=tmp_path / "home")
        assert done.returncode == 0, done.stderr
        assert f"details: {hub.base_url}/datasets/{REPO}" in done.stdout
        files = hub.files("dataset", REPO)
        assert set(files) >= {"README.md", "results.json", "data/matching/details.parquet",
                              "data/ranking/details.parquet"}
        # the record as published: the run's own, its local folders as names (nothing private, `public.py`)
        assert json.loads(files["results.json"]) == public_record(read_results(run_dir), run_dir)
        assert str(run_dir) not in files["results.json"].decode()
        card = files["README.md"].decode()
        front = yaml.safe_load(card.split("---")[1])
        assert [c["config_name"] for c in front["configs"]] == ["matching", "ranking"]
        assert front["configs"][0]["data_files"] == [{"split": "latest", "path": "data/matching/*.parquet"}]
        assert f"({hub.base_url}/datasets/{REPO}/blob/main/results.json)" in card
        record = json.loads(files["results.json"])
        score = record["tasks"]["matching"]["scores"]["accuracy"]
        assert f"| matching | accuracy | {score['value']:.4f} | {score['ci_low']:.4f} – {score['ci_high']:.4f} | " \
               f"{score['n']} | complete |" in card
        mark = len(hub.requests)
        again = cli(hub, "push", str(run_dir), REPO, home=tmp_path / "home")
        assert again.returncode == 0 and "up to date" in again.stdout and commits(hub, mark) == []
        # the pushed repo loads with `datasets`, one row per item, gold and correctness included
        local = tmp_path / "clone"
        for rel, data in files.items():
            (local / rel).parent.mkdir(parents=True, exist_ok=True)
            (local / rel).write_bytes(data)
    import datasets

    rows = datasets.load_dataset(str(local), "matching", split="latest")
    predictions = {}
    for rel in record["tasks"]["matching"]["predictions"]:
        predictions.update({(Path(rel).stem, k): v for k, v in read_predictions(run_dir / rel).items()})
    assert len(rows) == len(predictions)
    for row in rows:
        fold_file = "matching" if row["fold"] == 0 else f"matching_fold{row['fold']}"
        source = predictions[fold_file, row["instance_id"]]
        assert (row["prediction"], row["gold"], row["correct"]) == (source["prediction"], source["gold"],
                                                                    source["correct"])
        assert row["prompt"][-1]["role"] == "user" and "Answer" in row["prompt"][-1]["content"]
    for step in (done, again):
        assert TOKEN not in step.stdout + step.stderr
    assert TOKEN not in "\n".join(map(repr, hub.requests))


def test_evaluate_pushes_when_asked_and_refuses_early(sample_dataset: str, tmp_path: Path) -> None:
    with LocalHub(TOKEN) as hub:
        out = tmp_path / "run"
        common = ["evaluate", "--system", "random", "--tasks", "matching", "--dataset", sample_dataset, "--folds",
                  "0", "--out", str(out), "--quiet"]
        done = cli(hub, *common, "--push-to-hub", REPO, home=tmp_path / "home")
        assert done.returncode == 0, done.stderr
        assert "data/matching/details.parquet" in hub.files("dataset", REPO)
        # no token, or a bad repo id: one line, before anything runs
        for args, token, message in ((["--push-to-hub", REPO], None, "no Hugging Face token: set HF_TOKEN"),
                                     (["--push-to-hub", "no-namespace"], TOKEN, "needs its namespace"),
                                     (["--push-to-hub", "bad//id"], TOKEN, "is not a Hub repo id")):
            fresh = tmp_path / f"fresh{len(message)}"
            refused = cli(hub, *common[:-3], "--out", str(fresh), "--quiet", *args, token=token,
                          home=tmp_path / "home")
            assert refused.returncode == 2 and message in refused.stderr and "Traceback" not in refused.stderr
            assert not fresh.exists()


def test_a_secret_in_the_run_stops_the_push(run_dir: Path, tmp_path: Path) -> None:
    leaky = tmp_path / "leaky"
    import shutil

    shutil.copytree(run_dir, leaky)
    path = leaky / "predictions" / "matching.jsonl"
    lines = path.read_text().splitlines()
    first = json.loads(lines[0])
    first["raw"] = "my key is sk-" + "L" * 30
    path.write_text("\n".join([json.dumps(first), *lines[1:]]) + "\n")
    with LocalHub(TOKEN) as hub:
        refused = cli(hub, "push", str(leaky), REPO, home=tmp_path / "home")
        assert refused.returncode == 2 and "looks like an API key (sk-...)" in refused.stderr
        assert "data/matching/details.parquet" in refused.stderr and "L" * 30 not in refused.stderr
        assert commits(hub) == [] and ("dataset", REPO) not in hub.repos


def test_push_run_from_python(run_dir: Path, tmp_path: Path) -> None:
    from nycc_bench import push_run

    with LocalHub(TOKEN) as hub:
        said: list[str] = []
        url = push_run(run_dir, "someone/from-python", endpoint=hub.base_url, token=TOKEN, say=said.append)
        assert url == f"{hub.base_url}/datasets/someone/from-python"
        assert "data/ranking/details.parquet" in hub.files("dataset", "someone/from-python")
        assert said and said[-1].startswith("dataset someone/from-python: committed")
