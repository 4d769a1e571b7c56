"""`nycc-bench judges report`: a judge scored on real human and published verdicts, whichever are present below a
source folder (the shared data, an upstream mirror):

- crowd pairwise: Zhang et al.'s Table 2 *Pairwise* protocol on the NEXT rating summaries: per contest with at
  least 1,010 rated captions (primary run), one caption drawn uniformly (seeded) from the top 10 and one from
  #1000-1009, judged in both orders; the score is the share of comparisons that pick the top caption;
- crowd groups: the same contests' top 10 against #1000-1009 (Table 2's *Overall* block, ten a side);
- HumorBench's human rubric labels (``rubric/*.csv``): accuracy and Cohen's kappa per explainer model and pooled;
  rows a grader was fitted on are graded by cross-validation (grouped by element), never in-sample;
- GPT-4o's stored autograder verdicts on published explanations (``analysis/**.csv`` with ``autograder_judgment``):
  agreement, kappa, and each explainer model's pass rate under this grader beside GPT-4o's;
- the arena's counted votes, with `--votes` (an `arena export` file; the arena's own agreement function: the
  judge's agreement with the people's picks beside the ceiling of the arena's own ratings, and order consistency).

Every cell has its n and an interval (rates: exact Clopper-Pearson; kappa: a percentile bootstrap over rows, 1,000
rounds, seed 0), and per judge what AlpacaEval's evaluator table shows: seconds and price per 1,000 judgments, order
consistency (the same caption chosen in both orders of a pair) and P(prefer the longer caption).
"""

from __future__ import annotations

import csv
import os
import random
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from .errors import NyccBenchError
from .judging import JudgeSpec, counting_calls, element_judgments, group_judgments, reward_trained_contests
from .scoring.bootstrap import exact_interval

LEVEL = 0.95
ROUNDS = 1000
LOW_RANKS = (1000, 1010)
# Zhang et al. 2024, Table 2 (ranking accuracy %, ± binomial standard error over 200 comparisons)
PAPER_PAIRWISE = (("Human (worker), GPT-4o-vision description", 61.67, 3.45),
                  ("Human (worker), cartoon image", 60.79, 3.46),
                  ("GPT-4-Turbo-vision, cartoon image", 61.0, 3.46), ("GPT-4o-vision, cartoon image", 60.5, 3.47),
                  ("GPT-4o, GPT-4o-vision description", 65.0, 3.38),
                  ("GPT-4-Turbo, GPT-4o-vision description", 67.0, 3.33),
                  ("GPT-4-Turbo, GPT-4-vision description", 66.0, 3.36),
                  ("GPT-4-Turbo, Hessel et al. description", 66.5, 3.35))
PAPER_OVERALL = (("Human (worker), GPT-4o-vision description", 59.23, 1.45),
                 ("Human (expert), cartoon image", 94.28, 2.79),
                 ("GPT-4-Turbo, Hessel et al. description", 77.51, 2.96), ("GPT-4o-vision, cartoon image", 74.0, 3.11))
# Narad et al. 2025 (HumorBench), §3.5 Table 1: GPT-4o autograder accuracy (%) on 300 human-labelled explanations
# ("Overall (n=300) 92.00"; per explainer: Gemini 2.5 Pro 93.00, GPT-4o 92.00, Claude 3.7 Sonnet 91.00), the only
# accuracy the paper reports for its autograder on these labels. By explainer-model prefix (the files name versions).
PAPER_RUBRIC = {"pooled": 92.0, "gemini-2.5-pro": 93.0, "gpt-4o": 92.0, "claude-3-7-sonnet": 91.0}
RUBRIC_NOTE = {"pooled": "Narad et al. Table 1, overall, n=300"}
"""Beside a per-explainer row: Table 1's row of that explainer (the paper gives no n per row, and none for Llama 4)."""


def rate_cell(k: int, n: int) -> dict[str, Any]:
    """A share with its exact interval and n."""
    low, high = exact_interval(k, n)
    return {"value": k / n if n else None, "low": low, "high": high, "n": n, "k": k}


def kappa_cell(ours: Sequence[str], theirs: Sequence[str], seed: int = 0) -> dict[str, Any]:
    """Cohen's kappa of two verdict lists with a percentile bootstrap interval over rows."""
    from sklearn.metrics import cohen_kappa_score

    a, b = np.asarray(ours), np.asarray(theirs)
    n = len(a)
    if n == 0:
        return {"value": None, "low": None, "high": None, "n": 0}

    def kappa(x: np.ndarray, y: np.ndarray) -> float:
        if len(set(x) | set(y)) < 2:
            return 1.0 if (x == y).all() else 0.0
        return float(cohen_kappa_score(x, y))

    rng = np.random.default_rng(seed)
    draws = [kappa(a[i], b[i]) for i in (rng.integers(0, n, n) for _ in range(ROUNDS))]
    low, high = np.quantile(draws, [(1 - LEVEL) / 2, (1 + LEVEL) / 2])
    return {"value": kappa(a, b), "low": float(low), "high": float(high), "n": n}


# ---- inputs -------------------------------------------------------------------------------------------------

def crowd_contests(source: Path) -> list[dict[str, Any]]:
    """Contests of the rating summaries below `source` with >= 1,010 rated captions in their primary run: top 10,
    #1000-1009 and the description where known, ascending."""
    from .builders.nextml import primary_runs, read_descriptions, read_summary, stable_sorted
    from .builders.sources import discover

    found = discover(source)
    runs = [(s, read_summary(s)) for s in found.summaries]
    primary = primary_runs(runs)
    descriptions = read_descriptions(found.descriptions) if found.descriptions else {}
    out = []
    for summary, table in runs:
        if summary.run_id not in primary or table.num_rows < LOW_RANKS[1]:
            continue
        captions = stable_sorted(table)["caption"].to_pylist()
        out.append({"contest_number": summary.contest_number, "top10": captions[:10],
                    "low": captions[LOW_RANKS[0]:LOW_RANKS[1]],
                    "description": descriptions.get(summary.contest_number)})
    return sorted(out, key=lambda c: c["contest_number"])


def csv_files(root: Path) -> list[Path]:
    """Every CSV below `root`, symlinked folders followed (an upstream mirror is often links), sorted."""
    return sorted(Path(top) / name for top, _, names in os.walk(root, followlinks=True) for name in names
                  if name.endswith(".csv"))


def rubric_rows(source: Path) -> list[dict[str, Any]]:
    """HumorBench's human-labelled rubric rows below `source`, each (element, explainer, explanation) once."""
    from .judge.protocols.humorbench import load_rubric

    files = [p for p in csv_files(source) if p.parent.name == "rubric"]
    if not files:
        return []
    rows, _ = load_rubric(files)
    seen: dict[tuple, dict[str, Any]] = {}
    for row in rows:
        seen.setdefault((row.get("idx"), row.get("explainer_model"), row["explanation"]), row)
    return list(seen.values())


def autograder_rows(source: Path) -> list[dict[str, Any]]:
    """Published explanations with GPT-4o's stored autograder verdict (PASS/FAIL), each row once."""
    seen: dict[tuple, dict[str, Any]] = {}
    for path in csv_files(source):
        if "analysis" not in path.parts:
            continue
        with open(path, newline="", encoding="utf-8") as handle:
            reader = csv.DictReader(handle)
            if not {"autograder_judgment", "explanation", "element", "explainer_model"} <= set(reader.fieldnames or []):
                continue
            for row in reader:
                if row["autograder_judgment"] in ("PASS", "FAIL"):
                    seen.setdefault((row.get("idx"), row["explainer_model"], row["element"], row["explanation"]), row)
    return list(seen.values())


# ---- checks -------------------------------------------------------------------------------------------------

class Clock:
    """Judgments made and seconds spent, for the per-1,000 figures."""

    def __init__(self) -> None:
        self.n = 0
        self.seconds = 0.0

    def run(self, n: int, call: Any, *args: Any, **kwargs: Any) -> Any:
        start = time.perf_counter()
        out = call(*args, **kwargs)
        self.seconds += time.perf_counter() - start
        self.n += n
        return out


def crowd_checks(judge: JudgeSpec, contests: list[dict[str, Any]], clock: Clock, seed: int = 0,
                 protocol: str = "overall") -> dict[str, Any]:
    """Pairwise (one caption a side) and groups (ten a side), both orders, plus order consistency and P(longer)."""
    rng = random.Random(seed)
    pairs = [(rng.choice(c["top10"]), rng.choice(c["low"])) for c in contests]
    numbers = [c["contest_number"] for c in contests]
    descriptions = [c["description"] for c in contests]
    records = clock.run(2 * len(pairs), group_judgments, judge, [[a] for a, _ in pairs],
                        {"low": [[b] for _, b in pairs]}, numbers, descriptions, protocol)
    from .judge_stress import verdict_of

    picks: dict[int, list[bool]] = {}
    for r in records:
        if (verdict := verdict_of(r, judge.threshold)) != "ERROR":  # an unreadable reply counts nowhere
            picks.setdefault(r["contest_number"], []).append(verdict == r["model_position"])
    right = [p for ps in picks.values() for p in ps]
    both = [ps for ps in picks.values() if len(ps) == 2]
    consistent = sum(ps[0] == ps[1] for ps in both)
    longer = [(len(a) > len(b)) == p for (a, b), c in zip(pairs, numbers, strict=True) if len(a) != len(b)
              for p in picks.get(c, [])]
    groups = clock.run(2 * len(contests), group_judgments, judge, [c["top10"] for c in contests],
                       {"low": [c["low"] for c in contests]}, numbers, descriptions, protocol)
    won = [v == r["model_position"] for r in groups if (v := verdict_of(r, judge.threshold)) != "ERROR"]
    return {"pairwise": rate_cell(sum(right), len(right)), "groups": rate_cell(sum(won), len(won)),
            "order_consistency": rate_cell(consistent, len(both)),
            "prefers_longer": rate_cell(sum(longer), len(longer)), "n_contests": len(contests)}


def _grades(judge: JudgeSpec, rows: list[dict[str, Any]], clock: Clock) -> tuple[list[str], str]:
    """The judge's verdict on each row, and how: a grader fitted on any of these rows is cross-validated."""
    if judge.backend == "embedding":
        from .judging import _grader
        from .reward import cross_validate_grader
        from .reward.grader import row_digest

        grader = _grader(judge.model)
        trained = set(grader.config.get("trained_rows") or [])
        if trained & {row_digest(r["element"], r["explanation"]) for r in rows}:
            cv = clock.run(len(rows), cross_validate_grader, rows, grader.config["embedding_model"],
                           score=grader.config["score"], objective=grader.config.get("objective", "accuracy"),
                           embedder=grader.embedder)
            return list(cv["verdicts"]), "cross-validated (5 folds by element): the grader was fitted on these rows"
    records = clock.run(len(rows), element_judgments, judge, [r["description"] for r in rows],
                        [r["caption"] for r in rows], [r["element"] for r in rows], [r["explanation"] for r in rows])
    return [r["verdict"] for r in records], "held out: the judge was not fitted on these rows"


def _agreement(verdicts: list[str], labels: list[str], models: list[str]) -> dict[str, Any]:
    """Accuracy and kappa pooled and per explainer model, with each model's pass rates."""
    out: dict[str, Any] = {}
    for name in ["pooled", *sorted(set(models))]:
        keep = [i for i, m in enumerate(models) if name == "pooled" or m == name]
        ours, theirs = [verdicts[i] for i in keep], [labels[i] for i in keep]
        out[name] = {"accuracy": rate_cell(sum(a == b for a, b in zip(ours, theirs, strict=True)), len(keep)),
                     "kappa": kappa_cell(ours, theirs),
                     "pass_rate": rate_cell(sum(v == "PASS" for v in ours), len(keep)),
                     "reference_pass_rate": rate_cell(sum(v == "PASS" for v in theirs), len(keep))}
    return out


def report(judge: JudgeSpec, source: str | Path, votes: str | None = None, max_rows: int | None = None,
           seed: int = 0, include_simulated: bool = False,
           progress: Callable[[str], None] | None = None) -> dict[str, Any]:
    """Every check whose inputs are present below `source` (module docstring); absent ones say why. Priced as it
    runs: every LLM call's tokens counted on its prompt (cached or not) at the judge's stated price. `progress` is
    told, before each check, which one runs (the leaderboard shows it while it makes a report)."""
    root = Path(source)
    if not root.is_dir():
        raise NyccBenchError(f"source: {source} is not a folder; pass --source DIR (the shared data or an upstream "
                             "mirror)")
    with counting_calls() as calls:
        out = _checks(judge, root, votes, max_rows, seed, include_simulated, progress or (lambda _: None))
    out["cost"] = cost(judge, out.pop("clock"), calls)
    return out


def cost(judge: JudgeSpec, clock: Clock, calls: list[Any]) -> dict[str, Any]:
    """Seconds and USD per 1,000 judgments (AlpacaEval's evaluator columns): the time measured while judging; the
    price from the tokens of the prompts sent (≈4 characters a token, the engine's estimate) and of the replies
    expected, at the judge's stated price (its configuration's `price:` or the default table, with source and
    date); an offline judge costs 0; a model without a stated price is `price unknown`, never $0."""
    from .llm.pricing import PRICE_UNKNOWN, cost_usd

    tokens_in, tokens_out = sum(c.prompt_tokens for c in calls), sum(c.completion_tokens for c in calls)
    price = judge.stated_price()
    usd = None if price is None else cost_usd(tokens_in, tokens_out, price.pair())
    per = 1000 / clock.n if clock.n else None
    return {"judgments": clock.n, "seconds": clock.seconds,
            "seconds_per_1000": clock.seconds * per if per is not None else None,
            "usd_per_1000": usd * per if usd is not None and per is not None else None,
            "prompt_tokens": tokens_in, "completion_tokens": tokens_out, "llm_calls": sum(c.n_unique for c in calls),
            "price": None if price is None else {"input_usd_per_1m": price.input_usd_per_1m,
                                                 "output_usd_per_1m": price.output_usd_per_1m,
                                                 "source": price.source, "checked": price.checked},
            "price_note": PRICE_UNKNOWN + f" (no price for {judge.model!r}: give the judge configuration a price:)"
            if price is None else price.text()}


def plays(judge: JudgeSpec) -> tuple[str, str | None, str | None]:
    """The group protocol a judge compares captions with, and why it compares none / grades no element (None: it
    does): an offline judge by its kind, a named configuration by the protocol it was made for."""
    from .arena.agreement import GROUP_PROTOCOLS

    named = judge.named
    protocol = named.protocol if named is not None and named.protocol in GROUP_PROTOCOLS else "overall"
    caption = f"{judge.name} grades elements, not captions" if judge.backend == "embedding" else \
        f"{judge.name} is a {named.protocol} judge, not a caption comparison" \
        if named is not None and named.protocol not in GROUP_PROTOCOLS else None
    element = f"{judge.name} compares captions, it grades no element" if judge.backend == "reward" else \
        f"{judge.name} is a {named.protocol} judge, not HumorBench's autograder" \
        if named is not None and named.protocol != "humorbench_autograder" else None
    return protocol, caption, element


def _checks(judge: JudgeSpec, root: Path, votes: str | None, max_rows: int | None, seed: int,
            include_simulated: bool, progress: Callable[[str], None]) -> dict[str, Any]:
    """The checks themselves, with the clock of their judgments under `clock`."""
    clock = Clock()
    out: dict[str, Any] = {"judge": judge.name, "source": str(root), "checks": {}, "absent": {}, "clock": clock}
    protocol, caption_why, element_why = plays(judge)
    contests = [] if caption_why else crowd_contests(root)
    if seen := reward_trained_contests(judge) & {c["contest_number"] for c in contests}:  # never in-sample
        contests = [c for c in contests if c["contest_number"] not in seen]
        out["absent"]["crowd on trained contests"] = (f"{len(seen)} ({', '.join(map(str, sorted(seen)))}): "
                                                      f"{judge.name} was fitted on their ratings; the crowd "
                                                      "rows are the other contests, held out")
    if caption_why:
        out["absent"]["crowd"] = caption_why
    elif contests:
        progress(f"crowd pairwise and groups: {len(contests)} contests, both orders")
        out["checks"]["crowd"] = crowd_checks(judge, contests, clock, seed, protocol)
    else:
        out["absent"]["crowd"] = "no rating summary with >= 1,010 captions below the source"
    for key, rows_of, label in (("rubric", rubric_rows, "label"), ("autograder", autograder_rows,
                                                                    "autograder_judgment")):
        if element_why:
            out["absent"][key] = element_why
            continue
        rows = rows_of(root)[:max_rows] if max_rows else rows_of(root)
        if not rows:
            out["absent"][key] = "no such file below the source"
            continue
        progress(f"{'human rubric labels' if key == 'rubric' else 'GPT-4o stored verdicts'}: {len(rows)} rows")
        verdicts, how = _grades(judge, rows, clock)
        out["checks"][key] = {"how": how, **_agreement(verdicts, [r[label] for r in rows],
                                                      [r["explainer_model"] for r in rows])}
    if votes:
        from .arena.agreement import agree
        from .arena.export import read_votes
        from .arena.settings import ArenaSettings

        if caption_why:
            out["absent"]["arena"] = caption_why
        else:
            frame = read_votes(votes, ArenaSettings.from_env(), include_simulated=include_simulated)
            progress(f"arena votes: {len(frame)} rows")
            arena = agree(frame, judge, protocol=protocol, rounds=ROUNDS, seed=seed)
            clock.seconds += arena["judging"]["seconds"]  # the judging only, not the ratings' bootstrap
            clock.n += arena["judging"]["judgments"]
            out["checks"]["arena"] = arena
    return out


# ---- the table ----------------------------------------------------------------------------------------------

def paper_rubric(model: str) -> float | None:
    """Table 1's accuracy for the pooled row or an explainer model the files name by version
    (`claude-3-7-sonnet-latest`, `gemini-2.5-pro-exp-03-25`)."""
    import re

    version = r"-(latest|exp-[\w.-]+|preview-[\w.-]+|\d{4}-\d{2}-\d{2}|\d{8})"  # not another model (gpt-4o-mini)
    return next((v for k, v in PAPER_RUBRIC.items() if re.fullmatch(re.escape(k) + f"({version})?", model)), None)


def cell(c: dict[str, Any] | None, percent: bool = True) -> str:
    """`value [low, high] (n=…)`."""
    if not c or c.get("value") is None:
        return "n/a"
    scale, digits = (100, 1) if percent else (1, 3)
    return f"{scale * c['value']:.{digits}f} [{scale * c['low']:.{digits}f}, {scale * c['high']:.{digits}f}] " \
           f"(n={c['n']})"


def table_lines(result: dict[str, Any]) -> list[str]:
    """The report as one Markdown table (check, this judge, the published figure beside it)."""
    checks = result["checks"]
    rows: list[tuple[str, str, str]] = []
    if "crowd" in checks:
        crowd = checks["crowd"]
        rows.append(("Crowd pairwise (Zhang Table 2 Pairwise), %", cell(crowd["pairwise"]), "below"))
        rows += [(f"(paper) Zhang Table 2 Pairwise: {name}", "-", f"{v:.1f} ± {se:.2f} (SE)")
                 for name, v, se in PAPER_PAIRWISE]
        rows.append(("Crowd groups, top 10 vs #1000-1009 (Overall), %", cell(crowd["groups"]), "below"))
        rows += [(f"(paper) Zhang Table 2 Overall: {name}", "-", f"{v:.1f} ± {se:.2f} (SE)")
                 for name, v, se in PAPER_OVERALL]
        rows.append(("Order consistency (pairs, both orders), %", cell(crowd["order_consistency"]), "-"))
        rows.append(("P(prefers the longer caption), %", cell(crowd["prefers_longer"]), "-"))
    for key, title in (("rubric", "HumorBench human rubric labels"), ("autograder", "GPT-4o stored verdicts")):
        if key not in checks:
            continue
        for name, part in checks[key].items():
            if name == "how":
                continue
            published = paper_rubric(name) if key == "rubric" else None
            note = RUBRIC_NOTE.get(name, "Narad et al. Table 1, this explainer's row")
            paper = f"GPT-4o autograder {published:.1f} ({note})" if published is not None else "-"
            rows.append((f"{title}, {name}: accuracy %", cell(part["accuracy"]), paper))
            rows.append((f"{title}, {name}: Cohen's kappa", cell(part["kappa"], percent=False), "-"))
            if key == "autograder":
                rows.append((f"{title}, {name}: pass rate % (GPT-4o's)", cell(part["pass_rate"]),
                             cell(part["reference_pass_rate"])))
    if "arena" in checks:
        arena = checks["arena"]

        def votes_cell(c: dict[str, Any]) -> str:
            return cell({"value": c["value"], "low": c["ci_low"], "high": c["ci_high"], "n": c["n_votes"]})

        rows.append(("Arena votes: agreement with people, %", votes_cell(arena["agreement"]),
                     f"ceiling (the arena's own ratings, cross-fitted) {votes_cell(arena['ceiling'])}"))
        rows.append(("Arena votes: order consistency, %", votes_cell(arena["order_consistency"]), "-"))
    cost = result["cost"]
    seconds = f"{cost['seconds_per_1000']:.1f} s" if cost["seconds_per_1000"] is not None else "n/a"
    price = f"${cost['usd_per_1000']:.2f}" if cost["usd_per_1000"] is not None else "price unknown"
    rows.append((f"Time / price per 1,000 judgments (n={cost['judgments']})", f"{seconds} / {price}",
                 cost["price_note"]))
    lines = [f"judges report: {result['judge']} on {result['source']}", "", "| check | this judge | published |",
             "|---|---|---|", *(f"| {a} | {b} | {c} |" for a, b, c in rows)]
    for key in ("rubric", "autograder"):
        if key in checks:
            lines.append(f"{key}: {checks[key]['how']}")
    lines += [f"not run: {key}: {why}" for key, why in result["absent"].items()]
    return lines
