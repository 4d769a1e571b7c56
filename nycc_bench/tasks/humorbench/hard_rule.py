"""The leaderboard's "Hard, leaderboard rule" column: HumorBench's hardest elements by the upstream leaderboard's
rule (`builders.hard_subset.hard_subset`), recomputed over the store's own runs, and each run's accuracy on them.

Upstream's leaderboard (`ReubenNarad/Humor-Bench`, `reports/main_benchmark_results.py` at cc99276) pooled the
PASS/FAIL verdicts of all its runs per element and called the 100 most-missed elements (at least 3 valid
gradings each) HumorBench Hard; that July list was never written to a file. This column applies the same rule to
the runs this leaderboard holds: it pools the `humorbench` task's per-element verdicts (recorded in each task
entry's `details.element_verdicts`), takes the 100 hardest elements, and shows each run's PASS / (PASS + FAIL)
on them. It is not the paper's HumorBench-Hard (the `humorbench_hard` task, 100 captions and 164 elements), and
it moves as runs are added. Runs on the sample data and on the benchmark data are pooled separately.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import Any

from ...results import run_id
from ...wholeness import shows_numbers
from ..scores import Metric

TASK = "humorbench"
METRIC = Metric("humorbench", TASK, "hard_leaderboard_rule", "Hard, leaderboard rule", judged=True)



def about() -> str:
    """The column's paragraph of the About tab."""
    from ...builders.hard_subset import HARD_SIZE, MIN_VALID  # lazily: `builders` pulls in `datasets`

    return (
        f"**Hard, leaderboard rule** (HumorBench tab): upstream's leaderboard rule for HumorBench Hard, applied to "
        f"the runs shown here. Every run's per-element autograder verdicts are pooled (benchmark and sample runs "
        f"separately, runs in run-id order), the {HARD_SIZE} elements with the lowest pass rate among those graded "
        f"PASS or FAIL at least {MIN_VALID} times are kept (ties in order of first appearance), and the column is "
        f"each run's PASS / (PASS + FAIL) on them, without an interval. The set moves as runs are added. It is not "
        f"the paper's HumorBench-Hard (the *Hard subset* column: the paper's 100 captions, 164 elements); "
        f"upstream's own July list by this rule was never published (ReubenNarad/Humor-Bench "
        f"reports/main_benchmark_results.py, cc99276).")


def element_verdicts(result: dict[str, Any]) -> dict[str, str] | None:
    """The `humorbench` task's verdict per element of one run; None when it has none (not run, not judged,
    incomplete, or recorded before verdicts were kept)."""
    entry = (result.get("tasks") or {}).get(TASK) or {}
    if not entry or not shows_numbers(entry):  # the one rule of a whole result (`nycc_bench.wholeness`)
        return None
    verdicts = (entry.get("details") or {}).get("element_verdicts")
    return dict(verdicts) if isinstance(verdicts, dict) and verdicts else None


def hard_elements(results: Sequence[dict[str, Any]]) -> list[Hashable]:
    """The rule's elements over these runs (pooled in run-id order), hardest first."""
    from ...builders.hard_subset import hard_subset  # lazily: `builders` pulls in `datasets`

    runs = [v for r in sorted(results, key=run_id) if (v := element_verdicts(r)) is not None]
    return [rate.key for rate in hard_subset(runs)] if runs else []


def accuracy(verdicts: dict[str, str], elements: Sequence[Hashable]) -> tuple[float | None, int]:
    """(PASS / (PASS + FAIL), the number of PASS/FAIL verdicts) of one run on the elements; None when it has none."""
    valid = [verdicts[k] for k in elements if verdicts.get(k) in ("PASS", "FAIL")]  # type: ignore[call-overload]
    return (sum(v == "PASS" for v in valid) / len(valid) if valid else None), len(valid)


def with_hard_rule(results: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """Copies of the records with the column's score added to each `humorbench` entry that has verdicts (the
    input records are left as they are)."""
    sample = lambda r: bool((r.get("dataset") or {}).get("sample"))  # noqa: E731
    elements = {flag: hard_elements([r for r in results if sample(r) == flag]) for flag in (False, True)}
    out = []
    for result in results:
        verdicts = element_verdicts(result)
        value, n = accuracy(verdicts, elements[sample(result)]) if verdicts else (None, 0)
        if value is not None:
            entry = result["tasks"][TASK]
            score = {"value": value, "ci_low": None, "ci_high": None, "n": n}
            result = {**result, "tasks": {**result["tasks"], TASK: {
                **entry, "scores": {**(entry.get("scores") or {}), METRIC.score: score}}}}
        out.append(result)
    return out
