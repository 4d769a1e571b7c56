"""Shared pieces of the judge tests: a fake key, item lookup in request bodies, input builders."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from fake_openai import last_user_text

from nycc_bench.judge import RankingExample
from nycc_bench.llm import LLMConfig

KEY = "sk-test-NYCC-0123456789abcdefSECRET"
PRICES = {"fake-judge": (2.5, 10.0)}

_ITEM = re.compile(r"Caption: item-(\d+)\b")
_CONTEST = re.compile(r"contest-(\d+)-")


def item_of(body: dict[str, Any]) -> int:
    """The item number written into an autograder prompt's caption (``item-<n>``)."""
    match = _ITEM.search(last_user_text(body))
    assert match, "request without an item caption"
    return int(match.group(1))


def contest_of(body: dict[str, Any]) -> int:
    """The contest number written into the caption groups of a group-comparison prompt."""
    texts = " ".join(m["content"] for m in body["messages"] if isinstance(m.get("content"), str))
    match = _CONTEST.search(texts[texts.index("two groups") :])
    assert match
    return int(match.group(1))


def grader_inputs(n: int) -> tuple[list[str], list[str], list[str], list[str]]:
    """descriptions, captions, elements, explanations of n autograder rows."""
    return (
        [f"A cartoon, scene {i}." for i in range(n)],
        [f"item-{i}" for i in range(n)],
        [f"The pun number {i}." for i in range(n)],
        [f"The joke is pun number {i}." for i in range(n)],
    )


def group_inputs(contests: list[int]) -> tuple[list[list[str]], dict[str, list[list[str]]], list[tuple[str, str]]]:
    """model groups, human groups, descriptions for these contests (captions name their contest)."""
    model = [[f"contest-{c}-model caption {k}." for k in range(10)] for c in contests]
    human = {"top10": [[f"contest-{c}-human caption {k}." for k in range(10)] for c in contests]}
    descriptions = [(f"Canny description of {c}.", f"Uncanny description of {c}.") for c in contests]
    return model, human, descriptions


def shots_pool(n: int = 12) -> list[RankingExample]:
    """In-context examples from n distinct contests."""
    return [
        RankingExample(
            contest_number=900 + i,
            description=f"Shot cartoon {i}.",
            uncanny_description=f"Shot oddity {i}.",
            caption_a=f"Shot caption A{i}",
            caption_b=f"Shot caption B{i}",
            label="A" if i % 2 else "B",
        )
        for i in range(n)
    ]


def config(base_url: str, cache_dir: Path, **changes: Any) -> LLMConfig:
    """A test judge config against the fake server (fast retries, no progress bar)."""
    values: dict[str, Any] = {
        "model": "fake-judge",
        "base_url": base_url,
        "cache_dir": str(cache_dir),
        "prices": PRICES,
        "progress": False,
        "max_concurrency": 8,
        "retries": 3,
    }
    values.update(changes)
    return LLMConfig(**values)


def files_containing(root: Path, needle: str) -> list[Path]:
    """Every file under root whose bytes contain needle."""
    data = needle.encode()
    return [p for p in root.rglob("*") if p.is_file() and data in p.read_bytes()]


def use_fake_key(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """The judge environment of a test: the fake key, no real endpoint or key, a private default cache."""
    monkeypatch.setenv("NYCC_JUDGE_API_KEY", KEY)
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "NYCC_BENCH_JUDGE_PATH"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("NYCC_BENCH_CACHE", str(tmp_path / "default-cache"))
