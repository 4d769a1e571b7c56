"""`--source upstream`: the real download code against a local server standing in for the Hub and GitHub."""

from __future__ import annotations

import hashlib
import io
import json
import re
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import ClassVar
from urllib.parse import unquote, urlparse

import datasets
import pytest
from huggingface_hub import constants
from leaderboard_fixture import leaderboard_zip

from nycc_bench.builders.download import GITHUB_SOURCES, HESSEL_REPO, HUB_SOURCES
from nycc_bench.builders.hessel2023 import features
from nycc_bench.cli import main

SHA = "0123456789abcdef0123456789abcdef01234567"
GPT4O_543 = (b'{"contest_number": 543, "location": "a boardroom", "canny": "A gorilla chairs a meeting.", '
             b'"uncanny": "The chair is a gorilla.", "entities": ["Gorilla", "Board_of_directors"]}\n')
SUMMARY = ("rank,funny,somewhat_funny,unfunny,count,score,precision,contest,caption\n"
           '1,5,3,2,10,2.3,0.2,543,"A caption, quoted"\n2,2,3,5,10,1.7,0.2,543,Another one\n')


def _matching_parquet() -> bytes:
    """One valid upstream `matching` test shard."""
    row = {"image": None, "contest_number": 543, "image_location": "an office", "image_description": "d",
           "image_uncanny_description": "u", "entities": [], "questions": [], "caption_choices": list("abcde"),
           "from_description": "scene: an office", "label": "C", "n_tokens_label": 1, "instance_id": "f" * 32}
    buf = io.BytesIO()
    datasets.Dataset.from_list([row], features=datasets.Features.from_dict(features("matching", False))).to_parquet(buf)
    return buf.getvalue()


# What each fake GitHub repository holds at its pinned commit (a few files outside the patterns too).
API_REPO, DATA_REPO, GENERATION_REPO, HUMORBENCH_REPO, PAPER_CATEGORIES, PAPER_HARD = (
    (s.repo, s.commit) for s in GITHUB_SOURCES)
REPOS: dict[tuple[str, str], dict[str, bytes]] = {
    DATA_REPO: {"summaries/520_LilUCB.csv": b"rank,caption,mean,precision,votes,not_funny,somewhat_funny,funny\n"
                                            b"0,One caption,2.0,0.1,3,1,1,1\n", "README.md": b"readme"},
    API_REPO: {
        "contests/summaries/543_summary_KLUCB.csv": SUMMARY.encode(),
        "contests/summaries/_raw-dashboards/543.csv": b"not a summary",
        "contests/metadata/descriptions.txt": b"contest,description\n543,A gorilla in a boardroom.\n",
        "README.md": b"readme",
    },
    HUMORBENCH_REPO: {
        "comprehensive_annotations.csv": b"idx,cartoonstock_id,contest_number,description,caption,element\n"
                                         b"1,,543.0,A desc,A caption,An element\n",
        "analysis/runs/full benchmark/hard_subset.csv": b"a later list, not fetched",
    },
    PAPER_CATEGORIES: {  # the paper's element categories (Table 3), at their own pinned commit
        f"categorized_output_{name}.csv": f"idx,{column},prompt_tokens,completion_tokens\n1,{flag},700,2\n".encode()
        for name, column, flag in (("wordplay", "wordplay", "True"), ("cultural_reference", "cultural reference",
                                                                       "False"),
                                   ("toxic_or_shocking", "toxic or shocking", "False"))
    },
    PAPER_HARD: {  # the paper's list, at the older pinned commit, under its upstream name
        "analysis/runs/full benchmark/hard_subset_with_categories.csv":
            b"idx,cartoonstock_id,contest_number,description,caption,element,pass_rate,num_attempts,is_wordplay\n"
            b"1,,543.0,A desc,A caption,An element,0.2,15,False\n",
    },
    GENERATION_REPO: {
        f"examples/generations/{name}": ("0,1,2,3,4,5,6,7,8,9\n" + "".join(
            ",".join(f"{name[6:-4]} caption {row}-{col}" for col in range(10)) + "\n" for row in range(91))).encode()
        for name in ("human_top.csv", "human_200.csv", "human_1000.csv", "human_median.csv")
    },
}


ZIPS = {f"{task}_test_set_public.zip": leaderboard_zip(task) for task in ("matching", "ranking")}


class FakeUpstream(BaseHTTPRequestHandler):
    """GitHub's tree API and raw files, and the Hub's dataset API, from in-memory files."""

    log: ClassVar[list[str]] = []
    hub: ClassVar[dict[str, dict[str, bytes]]] = {}  # Hub dataset repo -> files at its (pinned) revision

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
        for source in HUB_SOURCES:
            sha, files = source.revision or SHA, self.hub.get(source.repo, {})
            api = f"/api/datasets/{source.repo}/"
            if path.startswith(api + "revision/"):
                return self._send(200, json.dumps({"id": source.repo, "sha": sha, "siblings": [
                    {"rfilename": f} for f in files]}).encode(), {"Content-Type": "application/json"})
            if path.startswith(api + "tree/"):
                return self._send(200, json.dumps([{"type": "file", "path": f, "size": len(b), "oid": "b" * 40}
                                                   for f, b in files.items()]).encode())
            resolve = f"/datasets/{source.repo}/resolve/{sha}/"
            if path.startswith(resolve) and path[len(resolve):] in files:
                body = files[path[len(resolve):]]  # the ETag names the blob in the cache: one per content
                return self._send(200, body, {"X-Repo-Commit": sha, "ETag": f'"{hashlib.sha1(body).hexdigest()}"'})
        if path.startswith("/gcs/") and path[5:] in ZIPS:
            return self._send(200, ZIPS[path[5:]])
        for (repo, commit), files in REPOS.items():
            if path == f"/api/repos/{repo}/git/trees/{commit}":
                tree = [{"path": p, "type": "blob"} for p in files] + [{"path": "contests", "type": "tree"}]
                return self._send(200, json.dumps({"sha": commit, "tree": tree}).encode())
            prefix = f"/raw/{repo}/{commit}/"
            if path.startswith(prefix) and path[len(prefix):] in files:
                return self._send(200, files[path[len(prefix):]])
        return self._send(404)


@pytest.fixture
def upstream(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """Serve the fake upstream on 127.0.0.1 and point every download at it and at a fresh cache."""
    FakeUpstream.hub = {HESSEL_REPO: {"matching/newyorker_caption_contest-test.parquet": _matching_parquet()},
                        HUB_SOURCES[1].repo: {"gpt4o_description/test.jsonl": GPT4O_543, "README.md": b"card"}}
    FakeUpstream.log = []
    server = ThreadingHTTPServer(("127.0.0.1", 0), FakeUpstream)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_port}"
    monkeypatch.setenv("NYCC_GITHUB_API", f"{base}/api")
    monkeypatch.setenv("NYCC_GITHUB_RAW", f"{base}/raw")
    monkeypatch.setenv("NYCC_HESSEL_LEADERBOARD_URL", f"{base}/gcs")
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
    for config in ("matching", "caption_ratings", "caption_generation", "humorbench", "humorbench_hard", "cartoons"):
        assert config in table
    raw = [r for r in upstream if r.startswith("GET /raw/")]
    assert len(raw) == 12  # the selected files only: no README, no _raw-dashboards copy, no later hard list
    assert sum(f"{PAPER_CATEGORIES[1]}/categorized_output_" in r for r in raw) == 3
    humorbench = datasets.load_dataset(str(out), "humorbench")["test"][0]
    assert humorbench["category_labels"] == "41cacd4" and humorbench["element_categories"] == [["wordplay"]]
    assert any(f"{PAPER_HARD[1]}/analysis/runs/full benchmark/hard_subset_with_categories.csv" in r for r in raw)
    assert not any(r.endswith("/hard_subset.csv") for r in raw)
    assert not any(r.endswith("/README.md") for r in upstream if "/resolve/" in r)  # allow_patterns honoured
    cached = tmp_path / "hub" / "nycc_bench-github" / "nextml__caption-contest-data-api" / GITHUB_SOURCES[0].commit
    assert (cached / "contests" / "summaries" / "543_summary_KLUCB.csv").read_text() == SUMMARY
    assert not list((tmp_path / "hub").rglob("*.incomplete"))
    assert datasets.load_dataset(str(out), "matching")["test"][0]["label"] == "C"
    board = datasets.load_dataset(str(out), "ranking_leaderboard")["test"]
    assert len(board) == 3 and board[0]["caption_choices"] == ["ranking caption 0A", "ranking caption 0B"]
    assert "label" not in board.column_names and board[0]["image"].size == (8, 8)
    assert sum(r.startswith("GET /gcs/") for r in upstream) == 2
    hard = datasets.load_dataset(str(out), "humorbench_hard")["test"]
    assert hard[0]["element_pass_rates"] == [0.2] and hard[0]["element_num_attempts"] == [15]
    upstream.clear()
    assert main(["build", "--source", "upstream", "--out", str(out), "--quiet"]) == 0
    assert not [r for r in upstream if r.startswith(("GET /raw/", "GET /gcs/")) or "/resolve/" in r]


def test_upstream_errors_are_reported(upstream: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    """A repository without the files at its commit, or a server error, fails loudly with the URL."""
    monkeypatch.setitem(REPOS, GENERATION_REPO, {"unrelated.txt": b"x"})
    assert main(["build", "--source", "upstream", "--out", str(tmp_path / "o"), "--quiet"]) == 2
    assert "no file matches examples/generations/human_*.csv" in capsys.readouterr().err
    monkeypatch.setitem(REPOS, GENERATION_REPO, {})
    monkeypatch.delitem(REPOS, GENERATION_REPO)
    assert main(["build", "--source", "upstream", "--out", str(tmp_path / "o"), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert "404" in err and "yguooo/cartoon-caption-generation" in err


# --- The complete Zhang corpus: both nextml repos and Zhang's Hub dataset, in exactly their upstream layouts ---
# (invented captions and descriptions; file names, headers, folders and JSONL fields as upstream has them)
NEXTML_RANK = "rank,caption,mean,precision,votes,not_funny,somewhat_funny,funny\n"
NEXTML_PLAIN = "caption,mean,precision,votes,not_funny,somewhat_funny,funny\n"


def _captions(contest: int, n: int) -> list[str]:
    """n invented captions, one of them repeated exactly and one holding a line break."""
    out = [f"Caption {i} of contest {contest}" for i in range(n)]
    out[3] = out[1]
    out[5] = f"Two lines\nfor contest {contest}"
    return out


def _rows(captions: list[str]) -> list[str]:
    """CSV bodies (without rank) sorted by mean descending, ties present, counts consistent."""
    rows = []
    for i, caption in enumerate(captions):
        funny, somewhat, unfunny = max(0, 9 - i), 3, 1 + i
        votes = funny + somewhat + unfunny
        mean = (3 * funny + 2 * somewhat + unfunny) / votes
        quoted = '"' + caption.replace('"', '""') + '"'
        rows.append(f"{quoted},{mean!r},0.01,{votes},{unfunny},{somewhat},{funny}")
    return rows


def _with_rank(rows: list[str]) -> str:
    """The 510-659 variant: a 0-based rank column first."""
    return NEXTML_RANK + "".join(f"{i},{r}\n" for i, r in enumerate(rows))


def _api(contest: int, stated: int, captions: list[str]) -> bytes:
    """An api-repo summary (`rank,funny,...,contest,caption`), its contest column saying `stated`."""
    lines = []
    for i, caption in enumerate(captions):
        funny, somewhat, unfunny = max(0, 9 - i), 3, 1 + i
        count = funny + somewhat + unfunny
        score = (3 * funny + 2 * somewhat + unfunny) / count
        lines.append(f'{i + 1},{funny},{somewhat},{unfunny},{count},{score!r},0.01,{stated},"{caption}"\n')
    return ("rank,funny,somewhat_funny,unfunny,count,score,precision,contest,caption\n" + "".join(lines)).encode()


def _image(fmt: str) -> bytes:
    """A tiny cartoon in the given format."""
    from PIL import Image

    buf = io.BytesIO()
    Image.new("RGB", (4, 3), (250, 250, 240)).save(buf, format=fmt)
    return buf.getvalue()


def _gpt4o(contest: int) -> str:
    """One JSONL line of `gpt4o_description/<split>.jsonl`."""
    return json.dumps({"contest_number": contest, "location": f"room {contest}", "canny": f"canny {contest}",
                       "uncanny": f"uncanny {contest}", "entities": [f"Entity_{contest}"]}) + "\n"


SAME = _captions(643, 12)  # 643 and 644 have identical caption lists upstream
CORPUS_DATA = {
    "summaries/520_LilUCB.csv": _with_rank(_rows(_captions(520, 12))).encode(),
    "summaries/559_lil-KLUCB.csv": _with_rank(_rows(_captions(559, 12))).encode(),
    "summaries/543_LilUCB.csv": _with_rank(_rows(_captions(543, 14))).encode(),  # also in the api repo
    "summaries/643_KLUCB.csv": _with_rank(_rows(SAME)).encode(),
    "summaries/644_KLUCB.csv": _with_rank(_rows(SAME)).encode(),
    "summaries/700.csv": (NEXTML_PLAIN + "".join(r + "\n" for r in _rows(_captions(700, 12)))).encode(),
    "summaries/889.csv": (NEXTML_PLAIN + "".join(r + "\n" for r in _rows(_captions(889, 12)))).encode(),
    "summaries/895.csv": (NEXTML_PLAIN + "".join(r + "\n" for r in _rows(_captions(895, 12)))).encode(),
    "README.md": b"not fetched",
}
CORPUS_API = {
    "contests/summaries/543_summary_KLUCB.csv": _api(543, 543, [f"Api caption {i}" for i in range(10)]),
    "contests/summaries/688_summary_KLUCB.csv": _api(688, 689, [f"Caption {i} of 688" for i in range(10)]),
    "contests/metadata/descriptions.txt": b"contest,description\n543,A gorilla in a boardroom.\n",
}
CORPUS_HUB = {
    "gpt4o_description/train.jsonl": "".join(_gpt4o(c) for c in (520, 559, 644, 688, 700, 889, 895)).encode(),
    "gpt4o_description/validation.jsonl": _gpt4o(536).encode(),
    "gpt4o_description/test.jsonl": (_gpt4o(543) + _gpt4o(643)).encode(),
    "cartoons/543.jpg": _image("JPEG"),
    "cartoons/643.png": _image("PNG"),
    "cartoons/source/700.jpg": _image("JPEG"),
    "ranking/543.jsonl": b"{}",  # upstream's copy of the summaries: never fetched
}


@pytest.fixture
def corpus(upstream: list[str], monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The fake upstream serving the complete-corpus layouts."""
    monkeypatch.setitem(REPOS, DATA_REPO, CORPUS_DATA)
    monkeypatch.setitem(REPOS, API_REPO, CORPUS_API)
    monkeypatch.setitem(FakeUpstream.hub, HUB_SOURCES[1].repo, CORPUS_HUB)
    return upstream


def _read(out: Path, config: str) -> list[dict]:
    """Every row of a config, all splits."""
    import pyarrow.parquet as pq

    return [r for p in sorted((out / "data" / config).glob("*.parquet")) for r in pq.read_table(p).to_pylist()]


def test_complete_corpus_from_upstream_layouts(corpus: list[str], tmp_path: Path) -> None:
    """Every contest of both nextml repos built, ranks computed where absent, GPT-4o and cartoons attached,
    duplicate contests and captions flagged, 688's mislabel kept and flagged, licenses right per config."""
    from datasets import load_dataset

    out = tmp_path / "out"
    assert main(["build", "--source", "upstream", "--out", str(out), "--quiet"]) == 0
    fetched = [r for r in corpus if "/resolve/" in r or r.startswith("GET /raw/")]
    assert not [r for r in fetched if "/ranking/" in r or r.endswith("README.md")]
    ratings = _read(out, "caption_ratings")
    runs = {r["run_id"] for r in ratings}
    assert {r["contest_number"] for r in ratings} == {520, 543, 559, 643, 644, 688, 700, 889, 895}
    assert {"caption-contest-data/543_LilUCB", "caption-contest-data-api/543_summary_KLUCB"} <= runs
    assert len({r["run_id"] for r in ratings if r["contest_number"] == 543 and r["is_primary"]}) == 1
    by_run: dict[str, list[dict]] = {}
    for r in ratings:
        by_run.setdefault(r["run_id"], []).append(r)
    for run_id, rows in by_run.items():
        assert sorted(r["rank"] for r in rows) == list(range(len(rows))), run_id
    plain = by_run["caption-contest-data/700"]
    assert all(r["upstream_rank"] is None for r in plain)  # no rank column: computed, upstream's left null
    assert [r["mean"] for r in sorted(plain, key=lambda r: r["rank"])] == sorted((r["mean"] for r in plain),
                                                                                  reverse=True)
    assert sum(r["is_duplicate_text"] for r in plain) == 1 and sum(r["has_line_break"] for r in plain) == 1
    assert {r["duplicate_of"] for r in by_run["caption-contest-data/644_KLUCB"]} == {643}
    assert {r["duplicate_of"] for r in by_run["caption-contest-data/643_KLUCB"]} == {None}
    assert {r["file_contest_number"] for r in by_run["caption-contest-data-api/688_summary_KLUCB"]} == {689}

    cartoons = {r["contest_number"]: r for r in _read(out, "cartoons")}
    assert set(cartoons) == {520, 536, 543, 559, 643, 644, 688, 700, 889, 895}
    assert cartoons[644]["duplicate_of"] == 643
    assert cartoons[543]["image_source"] == "yguooo/newyorker_caption_ranking cartoons/543.jpg"
    assert cartoons[700]["image_source"] == "yguooo/newyorker_caption_ranking cartoons/source/700.jpg"
    assert cartoons[643]["image"]["bytes"].startswith(b"\x89PNG") and cartoons[520]["image"] is None
    assert cartoons[543]["gpt4o_uncanny"] == "uncanny 543" and cartoons[543]["gpt4o_entities"] == ["Entity_543"]
    assert cartoons[543]["gpt4o_license"] == "cc-by-nc-4.0" and cartoons[543]["nextml_license"] == "cc-by-4.0"
    assert cartoons[536]["gpt4o_split"] == "validation"

    generation = {r["contest_number"]: r for r in _read(out, "caption_generation")}
    assert generation[543]["gpt4o_canny"] == "canny 543" and generation[543]["image_location"] == "an office"
    # Hessel's image comes first where Hessel has one; its fake shard has none for 543, so Zhang's cartoon fills in
    assert generation[543]["image_source"] == "yguooo/newyorker_caption_ranking cartoons/543.jpg"
    assert generation[643]["gpt4o_location"] == "room 643" and generation[643]["image"]["bytes"][:4] == b"\x89PNG"

    pairs = _read(out, "preference_pairs")
    train = {r["contest_number"] for r in pairs if r["contest_number"] not in (543, 643)}
    assert train <= {520, 559, 644, 688, 700, 889} and 895 not in train  # described train contests below 890
    assert {r["duplicate_of"] for r in pairs if r["contest_number"] == 644} == {643}  # a leak, flagged

    card = (out / "README.md").read_text()
    licenses = dict(re.findall(r"### `(\w+)`.*?License: `([\w.-]+)`", card, re.S))
    assert licenses["cartoons"] == licenses["caption_generation"] == "cc-by-nc-4.0"
    assert licenses["caption_ratings"] == licenses["preference_pairs"] == "cc-by-4.0"
    assert "extended|yguooo/newyorker_caption_ranking" in card and "- cc-by-nc-4.0" in card
    assert load_dataset(str(out), "cartoons")["test"][0]["image"].size == (4, 3)


def test_unexpected_cartoon_layout_fails_clearly(corpus: list[str], tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    """A file under cartoons/ that is neither cartoons/<n>.jpg|png nor cartoons/source/<n>.*: one clear line."""
    files = {**CORPUS_HUB, "cartoons/thumbs/543.gif": b"GIF89a"}  # restored by the fixture's monkeypatch
    FakeUpstream.hub[HUB_SOURCES[1].repo] = files
    assert main(["build", "--source", "upstream", "--out", str(tmp_path / "o"), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert "543.gif" in err and "cartoons/<n>.jpg" in err and "Traceback" not in err
    assert not (tmp_path / "o").exists()


def test_sources_listed_without_fetching(corpus: list[str]) -> None:
    """Every pinned source with its revision; resolved, the exact files, and not one file downloaded."""
    from nycc_bench.builders.download import format_sources, planned_sources

    offline = format_sources(planned_sources())
    assert "nextml/caption-contest-data @ 2fac6c38cff48620911bd340f663060d79c95e1f" in offline
    assert "yguooo/newyorker_caption_ranking @ 6cd125f293b7ab0700d64dc00cab870ecc07421e" in offline
    assert "jmhessel/newyorker_caption_contest @ d81cbab7d0392708d5371d3a4960e69261824db4" in offline  # not main
    assert all(source.revision and len(source.revision) == 40 for source in HUB_SOURCES)
    assert "ReubenNarad/Humor-Bench @ 6e87dbf1d552ce9440a04dd8c6bae21b0383bc9c" in offline  # the paper's hard list
    assert "zip http://127.0.0.1" in offline and "/gcs/matching_test_set_public.zip @ URL only" in offline
    assert not corpus
    resolved = planned_sources(resolve=True)
    files = {(s.repo, s.revision): s.files for s in resolved}
    assert files[PAPER_HARD] == ("analysis/runs/full benchmark/hard_subset_with_categories.csv",)
    assert files[DATA_REPO] == tuple(sorted(k for k in CORPUS_DATA if k.startswith("summaries/")))
    zhang_hub = (HUB_SOURCES[1].repo, HUB_SOURCES[1].revision)
    assert files[zhang_hub] == tuple(sorted(k for k in CORPUS_HUB if not k.startswith("ranking/")))
    assert not [r for r in corpus if ("/resolve/" in r and r.startswith("GET")) or r.startswith("GET /raw/")]
