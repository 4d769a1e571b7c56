"""`--source upstream`: the real download code against a local server standing in for the Hub and GitHub."""

from __future__ import annotations

import io
import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import ClassVar
from urllib.parse import unquote, urlparse

import datasets
import pytest
from huggingface_hub import constants

from nycc_bench.builders.download import GITHUB_SOURCES, HESSEL_REPO
from nycc_bench.builders.hessel2023 import features
from nycc_bench.cli import main

SHA = "0123456789abcdef0123456789abcdef01234567"
SUMMARY = ("rank,funny,somewhat_funny,unfunny,count,score,precision,contest,caption\n"
           '1,5,3,2,10,2.3,0.2,543,"A caption, quoted"\n2,2,3,5,10,1.7,0.2,543,Another one\n')


def _matching_parquet() -> bytes:
    """One valid upstream `matching` test shard."""
    row = {"image": None, "contest_number": 543, "image_location": "an office", "image_description": "d",
           "image_uncanny_description": "u", "entities": [], "questions": [], "caption_choices": list("abcde"),
           "from_description": "scene: an office", "label": "C", "n_tokens_label": 1, "instance_id": "f" * 32}
    buf = io.BytesIO()
    datasets.Dataset.from_list([row], features=features("matching", False)).to_parquet(buf)
    return buf.getvalue()


# What each fake GitHub repository holds at its pinned commit (a few files outside the patterns too).
REPOS = {
    GITHUB_SOURCES[0].repo: {
        "contests/summaries/543_summary_KLUCB.csv": SUMMARY.encode(),
        "contests/summaries/_raw-dashboards/543.csv": b"not a summary",
        "contests/metadata/descriptions.txt": b"contest,description\n543,A gorilla in a boardroom.\n",
        "README.md": b"readme",
    },
    GITHUB_SOURCES[2].repo: {
        "comprehensive_annotations.csv": b"idx,cartoonstock_id,contest_number,description,caption,element\n"
                                         b"1,,543.0,A desc,A caption,An element\n",
        "analysis/runs/full benchmark/hard_subset.csv":
            b"idx,cartoonstock_id,contest_number,description,caption,element,pass_rate,num_attempts\n"
            b"1,,543.0,A desc,A caption,An element,0.25,4\n",
    },
    GITHUB_SOURCES[1].repo: {
        f"examples/generations/{name}": ("0,1,2,3,4,5,6,7,8,9\n" + "".join(
            ",".join(f"{name[6:-4]} caption {row}-{col}" for col in range(10)) + "\n" for row in range(91))).encode()
        for name in ("human_top.csv", "human_200.csv", "human_1000.csv", "human_median.csv")
    },
}


class FakeUpstream(BaseHTTPRequestHandler):
    """GitHub's tree API and raw files, and the Hub's dataset API, from in-memory files."""

    log: ClassVar[list[str]] = []
    hub_files: ClassVar[dict[str, bytes]] = {}

    def log_message(self, *args: object) -> None:
        """Keep test output quiet."""

    def _send(self, code: int, body: bytes = b"", headers: dict[str, str] | None = None) -> None:
        self.send_response(code)
        for key, value in (headers or {}).items():
            self.send_header(key, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def do_HEAD(self) -> None:
        self.do_GET()

    def do_GET(self) -> None:
        path = unquote(urlparse(self.path).path)
        self.log.append(f"{self.command} {path}")
        hub_prefix = f"/api/datasets/{HESSEL_REPO}/"
        if path.startswith(hub_prefix + "revision/"):
            return self._send(200, json.dumps({"id": HESSEL_REPO, "sha": SHA, "siblings": [
                {"rfilename": f} for f in self.hub_files]}).encode(), {"Content-Type": "application/json"})
        if path.startswith(hub_prefix + "tree/"):
            return self._send(200, json.dumps([{"type": "file", "path": f, "size": len(b), "oid": "b" * 40}
                                               for f, b in self.hub_files.items()]).encode())
        if path.startswith(f"/datasets/{HESSEL_REPO}/resolve/{SHA}/"):
            body = self.hub_files[path.split(f"/resolve/{SHA}/", 1)[1]]
            return self._send(200, body, {"X-Repo-Commit": SHA, "ETag": '"etag-1"'})
        for repo, files in REPOS.items():
            source = next(s for s in GITHUB_SOURCES if s.repo == repo)
            if path == f"/api/repos/{repo}/git/trees/{source.commit}":
                tree = [{"path": p, "type": "blob"} for p in files] + [{"path": "contests", "type": "tree"}]
                return self._send(200, json.dumps({"sha": source.commit, "tree": tree}).encode())
            prefix = f"/raw/{repo}/{source.commit}/"
            if path.startswith(prefix) and path[len(prefix):] in files:
                return self._send(200, files[path[len(prefix):]])
        return self._send(404)


@pytest.fixture
def upstream(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """Serve the fake upstream on 127.0.0.1 and point every download at it and at a fresh cache."""
    FakeUpstream.hub_files = {"matching/newyorker_caption_contest-test.parquet": _matching_parquet()}
    FakeUpstream.log = []
    server = ThreadingHTTPServer(("127.0.0.1", 0), FakeUpstream)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_port}"
    monkeypatch.setenv("NYCC_GITHUB_API", f"{base}/api")
    monkeypatch.setenv("NYCC_GITHUB_RAW", f"{base}/raw")
    monkeypatch.setenv("HF_HUB_DISABLE_XET", "1")
    monkeypatch.setenv("HF_ENDPOINT", base)
    monkeypatch.setattr(constants, "HF_HUB_CACHE", str(tmp_path / "hub"))
    yield FakeUpstream.log
    server.shutdown()


def test_build_from_upstream_downloads_then_reuses_cache(upstream: list[str], tmp_path: Path,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    """Pinned GitHub files and the Hub dataset land in the hub cache and build; a re-run re-downloads nothing."""
    out = tmp_path / "out"
    assert main(["build", "--source", "upstream", "--out", str(out), "--quiet"]) == 0
    table = capsys.readouterr().out
    for config in ("matching", "caption_ratings", "caption_generation", "humorbench", "humorbench_hard"):
        assert config in table
    raw = [r for r in upstream if r.startswith("GET /raw/")]
    assert len(raw) == 8  # the selected files only: no README, no _raw-dashboards copy
    assert any("full benchmark/hard_subset.csv" in r for r in raw)
    cached = tmp_path / "hub" / "nycc_bench-github" / "nextml__caption-contest-data-api" / GITHUB_SOURCES[0].commit
    assert (cached / "contests" / "summaries" / "543_summary_KLUCB.csv").read_text() == SUMMARY
    assert not list((tmp_path / "hub").rglob("*.incomplete"))
    assert datasets.load_dataset(str(out), "matching")["test"][0]["label"] == "C"
    upstream.clear()
    assert main(["build", "--source", "upstream", "--out", str(out), "--quiet"]) == 0
    assert not [r for r in upstream if r.startswith("GET /raw/") or "/resolve/" in r]


def test_upstream_errors_are_reported(upstream: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    """A repository without the files at its commit, or a server error, fails loudly with the URL."""
    monkeypatch.setitem(REPOS, GITHUB_SOURCES[1].repo, {"unrelated.txt": b"x"})
    assert main(["build", "--source", "upstream", "--out", str(tmp_path / "o"), "--quiet"]) == 2
    assert "no file matches examples/generations/human_*.csv" in capsys.readouterr().err
    monkeypatch.setitem(REPOS, GITHUB_SOURCES[1].repo, {})
    monkeypatch.delitem(REPOS, GITHUB_SOURCES[1].repo)
    assert main(["build", "--source", "upstream", "--out", str(tmp_path / "o"), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert "404" in err and "yguooo/cartoon-caption-generation" in err
