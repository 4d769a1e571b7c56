"""The overview's rank rule on seeded cases: skipped tasks, ties, baselines; every empty cell says why; the numbers'
fixed precision and the parameter counts; the About text's statements match the rows' records."""

from __future__ import annotations

from typing import Any

from nycc_bench.leaderboard import SEED_DIR
from nycc_bench.leaderboard.about import about_markdown, rows_facts
from nycc_bench.results import SCHEMA, read_results
from nycc_bench.standings import RANK_RULE, Filters, build_frame, params_text, tab_table

JUDGE = {"caption_generation": {"name": "reward:/m", "backend": "reward", "model": "/m", "base_url": None},
         "humorbench": {"name": "openai:gpt-4o", "backend": "openai", "model": "gpt-4o", "base_url": None}}


def score(value: float, n: int = 40) -> dict[str, Any]:
    return {"value": value, "ci_low": max(value - 0.2, 0.0), "ci_high": min(value + 0.2, 1.0), "n": n}


def entry(task: str, scores: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {"config": {"name": task, "prompt_version": f"{task}-abc", "deviations": [],
                       "dataset": {"folds": [0, 1, 2, 3, 4]} if task.startswith(("matching", "ranking")) else {}},
            "scores": scores, "n": 40, "n_unparsed": 0, "n_failed": 0, "n_error": 0, "details": {},
            "predictions": [], **extra}


def run(name: str, kind: str = "open", params: int | None = 44_000, **tasks: dict[str, Any]) -> dict[str, Any]:
    """A results record with the given task entries (the leaderboard reads only these fields)."""
    return {"schema": SCHEMA, "nycc_bench_version": "0.2.0", "git_commit": None, "created_at": "2026-01-01",
            "model": {"name": name, "parameters": params, "type": kind, "spec": f"hf:{name}", "source": "hub"},
            "dataset": {"name": "d", "sample": False}, "environment": {}, "judge": JUDGE, "tasks": tasks,
            "skipped": {}, "errors": {}, "commands": [], "notes": [], "extra": {"run_id": name, "options": {}}}


def full(matching: float, ranking: float, win: float, ead: float, elements: float) -> dict[str, Any]:
    """Task entries for every description-based headline column."""
    return {"matching": entry("matching", {"accuracy": score(matching)}),
            "ranking": entry("ranking", {"accuracy": score(ranking)}),
            "caption_generation": entry("caption_generation", {"win_rate_top10": score(win),
                                                               "average_ead": {"value": ead, "n": 10}}),
            "humorbench": entry("humorbench", {"element_accuracy": score(elements)})}


def order(results: list[dict[str, Any]]) -> list[tuple[str, str]]:
    """(model, rank text) in the overview's order."""
    table = tab_table(build_frame(results), None, Filters())
    return list(zip(table.texts["Model"], table.texts["Rank"], strict=True))


def test_the_issue_board_random_is_not_first_and_skipping_does_not_help() -> None:
    """Random (all tasks), a tiny model that ran 3 tasks, sbert with the best Matching: sbert first, random last."""
    random = run("random", "baseline", None, **full(0.25, 0.50, 0.0, 0.95, 0.03))
    sbert = run("sbert", "baseline", None, **full(0.50, 0.50, 0.0, 0.77, 0.06))
    tiny = run("tiny", params=44_000, **{k: v for k, v in full(0.25, 0.50, 0.0, 0.5, 0.03).items()
                                         if k in ("matching", "ranking", "humorbench")})
    ranked = order([random, tiny, sbert])
    assert ranked[0] == ("sbert", "1") and ranked[-1][0] != "sbert"
    assert dict(ranked)["random"] == dict(ranked)["tiny"] == "2"  # equal on every ranked column: a shared rank
    table = tab_table(build_frame([random, tiny, sbert]), None, Filters())
    assert table.ranked == ("Matching", "Ranking", "Element accuracy")  # tiny skipped generation: not ranked on
    assert table.texts.loc[list(table.run_ids).index("tiny"), "Win rate vs top 10"] == "not run"


def test_a_baseline_never_outranks_a_model_that_beats_it_everywhere_they_share() -> None:
    """The baseline ran more tasks and has wide intervals; the model beats it on every shared column."""
    baseline = run("length", "baseline", None, **full(0.40, 0.70, 0.5, 0.9, 0.5))
    model = run("model", **{k: v for k, v in full(0.45, 0.75, 0, 0, 0).items() if k in ("matching", "ranking")})
    other = run("other", **full(0.10, 0.10, 0.1, 0.1, 0.1))
    assert order([baseline, model, other]) == [("model", "1"), ("length", "2"), ("other", "3")]


def test_ties_share_a_rank_and_runs_without_the_ranked_columns_are_unranked() -> None:
    a = run("a", **full(0.5, 0.5, 0.5, 0.5, 0.5))
    b = run("b", **full(0.5, 0.5, 0.5, 0.5, 0.5))
    c = run("c", **full(0.6, 0.4, 0.5, 0.5, 0.5))  # 1st on Matching, 3rd on Ranking: mean 1.4 against 1.2
    assert order([c, b, a]) == [("a", "1"), ("b", "1"), ("c", "3")]
    only_matching = run("m", matching=entry("matching", {"accuracy": score(0.9)}))
    only_humor = run("h", humorbench=entry("humorbench", {"element_accuracy": score(0.9)}))
    assert [rank for _, rank in order([only_matching, only_humor])] == ["—", "—"]  # nothing to compare them on
    board = order([a, only_humor, c, only_matching])  # Matching is the column most runs have
    assert board == [("m", "1"), ("c", "2"), ("a", "3"), ("h", "—")]
    assert "every" in RANK_RULE and "baselines included" in RANK_RULE and "unranked (—)" in RANK_RULE


def test_every_empty_cell_says_why() -> None:
    """not run, n/a (cannot answer), no judge, incomplete (failed items, marked incomplete, or errored)."""
    tasks = full(0.5, 0.5, 0.5, 0.5, 0.5)
    tasks["ranking"]["n_failed"] = 3
    tasks["caption_generation"]["status"] = "incomplete"
    del tasks["humorbench"]
    record = run("x", **tasks)
    record["skipped"] = {"matching_from_pixels": "system: x needs a text description"}
    record["errors"] = {"humorbench": "RuntimeError: out of memory"}
    unjudged = run("y", matching=entry("matching", {"accuracy": score(0.5)}),
                   humorbench=entry("humorbench", {}))
    unjudged["judge"] = None
    table = tab_table(build_frame([record, unjudged]), None, Filters())
    cells = {rid: dict(zip(table.texts.columns, table.texts.iloc[i], strict=True))
             for i, rid in enumerate(table.run_ids)}
    assert cells["x"]["Matching (pixels)"] == "n/a" and cells["x"]["Ranking"] == "incomplete"
    assert cells["x"]["Win rate vs top 10"] == "incomplete" and cells["x"]["Element accuracy"] == "incomplete"
    assert cells["y"]["Element accuracy"] == "no judge" and cells["y"]["Ranking"] == "not run"
    assert all(text.strip() for row in cells.values() for text in row.values() if text != row["Params"])


def test_fixed_precision_and_parameter_counts() -> None:
    """Percentages and BLEU with one decimal in every cell, EAD with three; parameters as 44K, 1.2B."""
    bleu = lambda v: {"explanation": entry("explanation", {"bleu": {"value": v, "n": 9},  # noqa: E731
                                                           "rouge_l": score(0.2)})}
    rows = [run("a", **bleu(1.8)), run("b", params=1_234_000_000, **bleu(0.379)), run("c", **bleu(15.0))]
    table = tab_table(build_frame(rows), "hessel2023", Filters())
    assert sorted(table.texts["Explanation BLEU-4"]) == ["0.4", "1.8", "15.0"]
    assert set(table.texts["Params"]) == {"44K", "1.2B"}
    assert [params_text(p) for p in (44_000, 1_500_000, 7_000_000_000, 123_456, None)] == \
        ["44K", "1.5M", "7B", "123K", ""]
    ead = tab_table(build_frame([run("e", **full(0.5, 0.5, 0.5, 0.9, 0.5))]), None, Filters())
    assert ead.texts.loc[0, "Average EAD"] == "0.900" and ead.texts.loc[0, "Matching"] == "50.0 [30.0, 70.0]"


def test_about_text_matches_the_rows_records() -> None:
    """Folds, judges and data in the About text are read from the records, for the seed and for other rows."""
    seed = [read_results(p) for p in sorted((SEED_DIR / "results").glob("*.json"))]
    folds = {tuple(e["config"]["dataset"]["folds"]) for r in seed for t, e in r["tasks"].items()
             if t.startswith(("matching", "ranking", "explanation"))}
    text = about_markdown(seed)
    assert folds == {(0, 1)} and "folds 0 and 1" in text and "fold 0 unless" not in text
    assert f"{len(seed)} of {len(seed)} runs are on the embedded *sample*" in text
    assert "offline reward model" in text and "offline embedding grader" in text
    mine = rows_facts([run("z", **full(0.5, 0.5, 0.5, 0.5, 0.5))])
    assert "folds 0, 1, 2, 3 and 4" in mine and "gpt-4o for humorbench" in mine and "0 of 1 runs" in mine
    assert "reward model" not in mine.replace("offline reward model", "") and "offline reward model" in mine
