"""Pushes publish nothing private: the `--dataset` and `--out` folders and a local endpoint's host and port appear
in no pushed file (`results.json`, the card, the details rows) nor in a model card of `publish`; `push --dry-run`
lists the exact files with their sizes and pushes nothing."""

from __future__ import annotations

import shutil
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from fake_openai import FakeChatServer, Reply

from nycc_bench import evaluate
from nycc_bench.cli import main
from nycc_bench.publish.cli import main as publish
from nycc_bench.publish.details import stage_details
from nycc_bench.publish.public import host_kind, public_text


def staged_text(folder: Path) -> str:
    """Every staged file as text (parquet tables as their rows)."""
    parts = []
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        parts.append(str(pq.read_table(path).to_pylist()) if path.suffix == ".parquet" else path.read_text())
    return "\n".join(parts)


@pytest.fixture(scope="module")
def private_run(tmp_path_factory: pytest.TempPathFactory, sample_dataset: str) -> tuple[Path, str, str]:
    """A run of an API system on this machine's endpoint, its dataset and folder under a user's home."""
    home = tmp_path_factory.mktemp("home") / "alice-private-user"
    dataset = home / "my-data" / "nycc"
    shutil.copytree(sample_dataset, dataset)
    with FakeChatServer(lambda body, attempt: Reply(text="Answer: A")) as server:
        out = home / "work" / "runs" / "r1"
        evaluate(system="openai:fake", tasks=["matching"], dataset=str(dataset), out=out, folds=[0],
                 base_url=server.base_url, progress=False)
        host = server.base_url.split("//")[1].split("/")[0]
    assert host in (out / "results.json").read_text() and str(home) in (out / "results.json").read_text()
    return out, host, str(home)


def test_push_and_cards_carry_no_local_path_and_no_private_host(private_run: tuple[Path, str, str],
                                                                tmp_path: Path, sample_dataset: str) -> None:
    run, host, home = private_run
    staged = stage_details(run, "someone/details", tmp_path / "staged")
    text = staged_text(staged.folder)
    assert "alice-private-user" not in text and home not in text
    assert host not in text and host.split(":")[1] not in text
    assert "--base-url local" in text and "--dataset nycc" in text and "--out ." in text
    cards, out = tmp_path / "cards", tmp_path / "publish"
    cards.mkdir()
    shutil.copyfile(run / "results.json", cards / "fake.json")
    assert publish(["--dry-run", "--out", str(out), "--dataset-dir", sample_dataset, "--allow-sample",
                    "--only", "models", "--push-third-party", "--results", str(cards)]) == 0
    card = staged_text(out / "models")
    assert card and "alice-private-user" not in card and host not in card


def test_push_dry_run_lists_the_exact_files_and_sizes_and_pushes_nothing(
        private_run: tuple[Path, str, str], tmp_path: Path, capsys: pytest.CaptureFixture,
        monkeypatch: pytest.MonkeyPatch) -> None:
    run, _, _ = private_run
    monkeypatch.delenv("HF_TOKEN", raising=False)
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf"))  # no saved login either: a dry run needs no token
    assert main(["push", "--dry-run", str(run), "someone/details", "--endpoint", "http://127.0.0.1:9"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("dry run: would push 3 files") and "nothing was pushed" in lines[0]
    staged = stage_details(run, "someone/details", tmp_path / "staged", "http://127.0.0.1:9")
    expected = sorted((p.relative_to(staged.folder).as_posix(), p.stat().st_size)
                      for p in staged.folder.rglob("*") if p.is_file())
    shown = sorted((line.split()[1], int(line.split()[0].replace(",", ""))) for line in lines[1:])
    assert shown == expected


def test_host_kinds_and_paths() -> None:
    assert [host_kind(h) for h in ("localhost", "127.0.0.1", "::1", "10.1.2.3", "192.168.0.7", "gpu-box",
                                   "vllm.internal", "api.openai.com", "8.8.8.8")] == [
        "local", "local", "local", "private", "private", "private", "private", None, None]
    assert public_text("see ~/secret/notes.txt and https://user@[fd00::1]:81/x") == "see notes.txt and private"
    assert public_text("org/model at https://huggingface.co/org/model") == "org/model at https://huggingface.co/org/model"
