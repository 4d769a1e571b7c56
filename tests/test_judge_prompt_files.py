"""Judge prompts live in files (issue 12): each reported prompt_sha256 is its file's sha256, and moving the
templates out of the modules left every protocol's prompt digest as it was pinned before the move."""

from __future__ import annotations

import doctest
import hashlib
import re

import pytest

import nycc_bench.judge.prompts
from nycc_bench.errors import NyccBenchError
from nycc_bench.judge.prompts import PROMPTS_DIR, prompt_names, read_prompt
from nycc_bench.judge.protocols.settings import PAPER, PROTOCOLS, protocol_settings
from nycc_bench.llm.config import LLMConfig

_TEXT_ZHANG = {
    "system": "zhang2024-overall.system", "task": "zhang2024-overall.task",
    "announce_shots": "zhang2024-overall-v2.announce-shots", "shot_first": "zhang2024-overall.shot-first",
    "shot_next": "zhang2024-overall.shot-next", "shot_answer": "zhang2024-overall.shot-answer",
    "query": "zhang2024-overall.query",
}
_VISION = {
    "system": "zhang2024-best-pick.vision-system", "task": "zhang2024-best-pick.vision-task",
    "announce_shots": "zhang2024-best-pick.vision-announce-shots",
    "shot_first": "zhang2024-best-pick-v2.vision-shot-first", "shot_next": "zhang2024-best-pick-v2.vision-shot-next",
    "query": "zhang2024-best-pick.vision-query",
}
_V1_ANNOUNCE = {"announce_shots": "zhang2024-overall-v1.announce-shots"}

# variant -> (protocol, pinned prompt_version or None, vision, {template name: prompt file}, digest before the move)
VARIANTS: dict[str, tuple[str, str | None, bool, dict[str, str], str]] = {
    "overall": ("overall", None, True, {**_TEXT_ZHANG, "instruction": "zhang2024-overall.instruction"},
                "1a201e9cdd4c2e7a951438291d048b1df480441543a42455cd2f5348648cded7"),
    "overall/v1": ("overall", "zhang2024-overall-v1", True,
                   {**_TEXT_ZHANG, **_V1_ANNOUNCE, "instruction": "zhang2024-overall.instruction"},
                   "7f83e74448026229c08df49245fc39118395bf7ab299290556e40dd365d25ea0"),
    "best_pick": ("best_pick", None, True, _VISION,
                  "45fd6cc91e4ea6f3ba8317469cddeb44595c1cfee6ba21c274b12602aa7a1aa3"),
    "best_pick/v1": ("best_pick", "zhang2024-best-pick-v1", True,
                     {**_VISION, "shot_first": "zhang2024-best-pick-v1.vision-shot-first",
                      "shot_next": "zhang2024-best-pick-v1.vision-shot-next"},
                     "683dda310248a160f225f692c5cd8f568c86f8b9bea8d20f8276a56ba81d4a28"),
    "best_pick/text": ("best_pick", None, False,
                       {**_TEXT_ZHANG, "instruction": "zhang2024-best-pick.text-instruction"},
                       "416c82d30b31c4603de6f052b447bb6c0b96052b8a982ffa88c42bee658195e7"),
    "best_pick/text/v1": ("best_pick", "zhang2024-best-pick-v1", False,
                          {**_TEXT_ZHANG, **_V1_ANNOUNCE, "instruction": "zhang2024-best-pick.text-instruction"},
                          "1791a7b7153e563f6a3bb2b3b3ab5886192fd1dc293a68a9bc31803fa0ff2a06"),
    "humorbench_autograder": ("humorbench_autograder", None, True, {"prompt": "humorbench-v1.autograder"},
                              "9a4b2f32b6ba45284bbc40308ce0585ef94aedab8f19cd3ff52f5de75fb23bfc"),
    "explanation_pairwise": ("explanation_pairwise", None, True,
                             {"system": "nycc-explanation-pairwise-v1.system",
                              "prompt": "nycc-explanation-pairwise-v1.prompt"},
                             "ecd6b7c1b1e2a8ed94ec10139f4e75c860c2043f5778e5c9f85d936aceb7ec8c"),
}


def _settings(variant: str) -> dict:
    protocol, version, vision, _, _ = VARIANTS[variant]
    config = None
    if version is not None:
        model = (PAPER[protocol]["sent"] or {}).get("model", "gpt-4o")
        config = LLMConfig(model=model, prompt_version=version)
    return protocol_settings(protocol, config, vision=vision)


def test_every_protocol_has_a_variant() -> None:
    assert {v[0] for v in VARIANTS.values()} == set(PROTOCOLS)


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_prompt_sha256_is_the_file_sha256(variant: str) -> None:
    files = VARIANTS[variant][3]
    hashes = _settings(variant)["prompt_sha256"]
    assert set(hashes) == set(files)
    for template, name in files.items():
        data = (PROMPTS_DIR / f"{name}.txt").read_bytes()
        assert hashes[template] == hashlib.sha256(data).hexdigest(), (template, name)


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_prompt_digest_unchanged_by_the_move(variant: str) -> None:
    settings = _settings(variant)
    assert settings["prompt_digest"] == VARIANTS[variant][4]
    if VARIANTS[variant][1] is not None:
        assert settings["prompt_version"] == VARIANTS[variant][1]


def test_every_file_is_used_and_listed_in_the_readme() -> None:
    used = {name for v in VARIANTS.values() for name in v[3].values()}
    assert set(prompt_names()) == used
    readme = (PROMPTS_DIR / "README.md").read_text(encoding="utf-8")
    for name in used:
        assert f"`{name}.txt`" in readme, name


def test_read_prompt_keeps_every_byte() -> None:
    text = read_prompt("humorbench-v1.autograder")
    assert text.startswith("\nYou will receive:") and text.endswith("{anticipated_point}\n")
    assert "answer point.” \n" in text  # upstream's trailing space survives
    assert text.encode("utf-8") == (PROMPTS_DIR / "humorbench-v1.autograder.txt").read_bytes()
    v1, v2 = read_prompt("zhang2024-overall-v1.announce-shots"), read_prompt("zhang2024-overall-v2.announce-shots")
    assert v1 == v2 + "."


@pytest.mark.parametrize("name", ["no-such-prompt", "../prompts/zhang2024-overall.system"])
def test_unknown_prompt_is_a_one_line_error(name: str) -> None:
    with pytest.raises(NyccBenchError, match=re.escape("zhang2024-overall.system")) as info:
        read_prompt(name)
    assert "\n" not in str(info.value)


def test_loader_doctests() -> None:
    result = doctest.testmod(nycc_bench.judge.prompts)
    assert result.attempted and not result.failed
