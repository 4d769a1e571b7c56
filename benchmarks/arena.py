"""The Caption Arena at scale (100k votes over 60 players), its gold-probe rule and its anchored intervals.

0. The gold rule, simulated (`rules.probe_due` and `rules.voter_reason`, the arena's own code) for attentive
   visitors (probes right 94% of the time, sides at random), random clickers (50%) and always-left clickers, at
   10, 20 and 50 votes a visitor, for several (probes needed, accuracy threshold) pairs: the share of attentive
   visitors dropped (not yet counted, or failing the rule) and of random / always-left clickers kept. The default
   is the pair that keeps the fewest random clickers at 20 votes while dropping at most 5% of attentive visitors
   who reached the probes needed at 20 votes.
0b. Coverage of the table's intervals (each player's distance from Human #200-209, re-anchored each bootstrap
   round) of the true distance, over seeded draws of Bradley-Terry votes; target >= 92%.
1. Ratings with --rounds bootstrap rounds (`nycc_bench.arena.ratings`: evalica's Bradley-Terry on the vote cells,
   multinomial resampling of votes), against a plain NumPy MM fit (Hunter 2004) of the same model with the same
   resampling in the same run; the two point estimates must agree.
2. Serving the next battle (`Arena.next_battle`: scheduler, token, the battle's row) with the 100k votes stored.
3. Recording a vote (`Arena.vote`: token check, minimum time, cap, append with fsync) on the same store.

Figures to meet: ratings under 10 s on 2 cores, next battle p95 under 50 ms, a vote p95 under 20 ms. Last line:
one JSON object.
"""

from __future__ import annotations

import argparse
import json
import os
import secrets
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

from nycc_bench.arena import Arena, ArenaSettings, SimulatedClock, Vote, VoteStore, ratings
from nycc_bench.arena.pool import ANCHOR, Cartoon, Player, Pool, human_player
from nycc_bench.arena.rating import BASE, SCALE
from nycc_bench.arena.rules import VoterRecord, probe_due, voter_reason

RULES = [(2, 0.75), (3, 0.75), (4, 0.75), (5, 0.8), (6, 0.8)]  # (probes needed, accuracy threshold); (2, .75): old
KINDS = {"attentive": (0.94, None), "random": (0.5, None), "always_left": (0.5, "left")}


def gold_rule(visitors: int, settings: ArenaSettings, seed: int = 0) -> dict[str, dict[str, dict[str, float]]]:
    """Per votes-a-visitor and visitor kind: the share dropped for not having answered enough probes yet
    (`waiting`), for failing the rule (`failed`), and kept; every draw through the arena's own rule functions."""
    rng = np.random.default_rng(seed)
    out: dict[str, dict[str, dict[str, float]]] = {}
    for per_visitor in (10, 20, 50):
        row = {}
        for kind, (accuracy, side) in KINDS.items():
            waiting = failed = 0
            for v in range(visitors):
                record = VoterRecord()
                draws = rng.random((per_visitor, 3))
                for k in range(per_visitor):
                    if probe_due("bench", f"{kind}-{v}", k, record.answered, settings.gold_min, settings.probe_every,
                                 settings.gold_share, draws[k, 0]):
                        record.add(True, draws[k, 1] < accuracy, "a", "a")
                    elif draws[k, 1] >= 0.05 or side:  # 5% ties for people choosing freely
                        left = side == "left" or draws[k, 2] < 0.5
                        record.add(False, False, "a", "a" if left else "b")
                reason = voter_reason(record, settings.gold_min, settings.gold_threshold, True)
                waiting += reason is not None and "needed answered" in reason
                failed += reason is not None and "needed answered" not in reason
            row[kind] = {"waiting": waiting / visitors, "failed": failed / visitors,
                         "kept": 1 - (waiting + failed) / visitors}
        out[str(per_visitor)] = row
    return out


def choose_rule(rules: dict[str, dict[str, dict[str, dict[str, float]]]]) -> str:
    """The (probes, threshold) pair keeping the fewest random clickers at 20 votes a visitor among those that drop
    at most 5% of attentive visitors there."""
    fair = {name: r["20"] for name, r in rules.items() if 1 - r["20"]["attentive"]["kept"] <= 0.05}
    return min(fair, key=lambda name: fair[name]["random"]["kept"]) if fair else "none"


def with_random_clickers(draws: int, visitors: int, per_visitor: int, share: float, rounds: int,
                         seed: int = 0) -> dict[str, dict[str, float]]:
    """Ratings when `share` of the visitors click at random (probes and battles alike): for no rule, the old rule
    (2 probes, 75%) and the default, the slope of the rated against the true distances from the anchor and the
    coverage of their 95% intervals, over `draws` seeded arenas (`export.recount` decides what counts)."""
    from nycc_bench.arena.export import recount
    from nycc_bench.arena.pool import GOLD_DECOY, GOLD_REAL

    rng = np.random.default_rng(seed)
    truth = {ANCHOR: 0.0, **{f"p{i}": float(x) for i, x in enumerate(np.linspace(-0.6, 0.6, 7))}}
    names = list(truth)
    settings = {"none": ArenaSettings(gold_min=0, gold_threshold=0.0),
                "old 2@0.75": ArenaSettings(gold_min=2, gold_threshold=0.75), "default": ArenaSettings()}
    out = {name: {"slope": [], "covered": 0, "total": 0} for name in settings}
    for draw in range(draws):
        rows = []
        for v in range(visitors):
            careless, answered = rng.random() < share, 0
            for k in range(per_visitor):
                left = "ab"[rng.integers(2)]
                if probe_due("bench", f"v{v}", k, answered, 5, 3, 0.1, rng.random()):
                    answered += 1
                    a, b = GOLD_REAL, GOLD_DECOY
                    win = rng.random() < (0.5 if careless else 0.94)
                else:
                    i, j = rng.choice(len(names), 2, replace=False)
                    a, b = names[i], names[j]
                    win = rng.random() < (0.5 if careless else 1 / (1 + np.exp(truth[b] - truth[a])))
                rows.append({"player_a": a, "player_b": b, "winner": "a" if win else "b", "left_side": left,
                             "voter": f"{draw}-{v}", "simulated": False, "voter_kind": "account",
                             "caption_a": "x", "caption_b": "y"})
        frame = pd.DataFrame(rows)
        for name, rule in settings.items():
            table = ratings(recount(frame, rule), rounds=rounds, seed=draw)
            rated = {r.player: r for r in table.rows if r.player != ANCHOR}
            x = np.array([SCALE * truth[p] for p in rated])
            y = np.array([rated[p].rating - BASE for p in rated])
            out[name]["slope"].append(float(x @ y / (x @ x)))
            out[name]["covered"] += sum(r.low <= BASE + SCALE * truth[p] <= r.high for p, r in rated.items())
            out[name]["total"] += len(rated)
    return {name: {"slope": float(np.mean(r["slope"])), "coverage": r["covered"] / r["total"],
                   "intervals": r["total"]} for name, r in out.items()}


def anchored_coverage(draws: int, rounds: int, n_votes: int, seed: int = 0) -> dict[str, float]:
    """Share of the table's 95% intervals (distance from Human #200-209) that cover the true distance, and their
    mean width in Elo, over `draws` seeded rounds of Bradley-Terry votes among 8 players."""
    rng = np.random.default_rng(seed)
    truth = {ANCHOR: 0.0, **{f"p{i}": float(s) for i, s in enumerate(rng.normal(0, 0.5, 7))}}
    names = list(truth)
    s = np.array([truth[p] for p in names])
    covered = total = 0
    widths = []
    for draw in range(draws):
        a = rng.integers(0, len(names), n_votes)
        b = (a + rng.integers(1, len(names), n_votes)) % len(names)
        win = rng.random(n_votes) < 1 / (1 + np.exp(-(s[a] - s[b])))
        frame = pd.DataFrame({"player_a": [names[i] for i in a], "player_b": [names[i] for i in b],
                              "winner": np.where(win, "a", "b"), "caption_a": "x", "caption_b": "y"})
        for row in ratings(frame, rounds=rounds, seed=draw).rows:
            if row.player == ANCHOR:
                continue
            total += 1
            covered += row.low <= BASE + SCALE * truth[row.player] <= row.high
            widths.append(row.high - row.low)
    return {"coverage": covered / total, "intervals": total, "mean_width": float(np.mean(widths)),
            "votes_per_draw": n_votes, "draws": draws, "rounds": rounds}


def synthetic_pool(n_players: int, n_cartoons: int, per_player: int = 3) -> Pool:
    """`n_players` players (the anchor among them) with captions for every cartoon."""
    pool = Pool()
    for contest in range(1, n_cartoons + 1):
        pool.cartoons[contest] = Cartoon(contest, f"cartoon {contest}")
        players = [human_player("human_200")] + [Player(f"run:model-{i}", f"model {i}", "model")
                                                 for i in range(n_players - 1)]
        for player in players:
            pool.add(player, contest, [f"{player.id} caption {k} on {contest}" for k in range(per_player)])
        pool.add_gold(contest, [f"real caption of {contest}"])
    return pool


def synthetic_votes(pool: Pool, n: int, rng: np.random.Generator) -> list[Vote]:
    """`n` votes drawn from Bradley-Terry strengths over the pool's players (some ties)."""
    players = pool.rated_players()
    strength = dict(zip(players, rng.normal(0, 0.5, len(players)), strict=True))
    contests = list(pool.by_contest)
    out = []
    for k in range(n):
        contest = contests[k % len(contests)]
        pa, pb = rng.choice(len(players), 2, replace=False)
        a = pool.captions[pool.by_contest[contest][players[pa]][k % 3]]
        b = pool.captions[pool.by_contest[contest][players[pb]][(k + 1) % 3]]
        p = 1 / (1 + np.exp(strength[a.player] - strength[b.player]))
        u = rng.random()
        winner = "tie" if u < 0.05 else ("a" if rng.random() > p else "b")
        out.append(Vote(secrets.token_hex(8), secrets.token_hex(8), f"v{k % 2000}", contest, a.id, b.id, a.player,
                        b.player, a.text, b.text, "", "ab"[k % 2], winner, False, False, 1.6e9 + k, 1.6e9 + k + 5,
                        False, None))
    return out


def numpy_mm(frame: pd.DataFrame, rounds: int, seed: int) -> tuple[np.ndarray, float, list[str]]:
    """The naive way: Hunter's MM iteration on the win matrix (ties half a win each), same resampling."""
    players = sorted(set(frame["player_a"]) | set(frame["player_b"]))
    index = {p: i for i, p in enumerate(players)}
    n = len(players)
    a = frame["player_a"].map(index).to_numpy()
    b = frame["player_b"].map(index).to_numpy()
    o = frame["winner"].map({"a": 0, "b": 1, "tie": 2, "both_bad": 2}).to_numpy()
    code = (a * n + b) * 3 + o
    cells, counts = np.unique(code, return_counts=True)
    ca, cb, co = cells // 3 // n, cells // 3 % n, cells % 3

    def fit(weights: np.ndarray) -> np.ndarray:
        wins = np.zeros((n, n))
        np.add.at(wins, (ca, cb), weights * np.where(co == 0, 1.0, np.where(co == 2, 0.5, 0.0)))
        np.add.at(wins, (cb, ca), weights * np.where(co == 1, 1.0, np.where(co == 2, 0.5, 0.0)))
        games = wins + wins.T
        p = np.ones(n)
        for _ in range(500):
            new = wins.sum(1) / (games / (p[:, None] + p[None, :])).sum(1)
            new /= np.exp(np.mean(np.log(new)))
            if np.max(np.abs(new - p)) < 1e-8:
                p = new
                break
            p = new
        return np.log(p)

    rng = np.random.default_rng(seed)
    start = time.perf_counter()
    point = fit(counts.astype(float))
    draws = np.array([fit(rng.multinomial(len(frame), counts / counts.sum()).astype(float)) for _ in range(rounds)])
    np.percentile(draws - draws.mean(1, keepdims=True), [2.5, 97.5], axis=0)
    return BASE + SCALE * (point - point[index[ANCHOR]]), time.perf_counter() - start, players


def p95_ms(times: list[float]) -> float:
    return float(np.percentile(np.array(times) * 1e3, 95))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--votes", type=int, default=100_000)
    parser.add_argument("--players", type=int, default=60)
    parser.add_argument("--rounds", type=int, default=1000)
    parser.add_argument("--cartoons", type=int, default=50)
    parser.add_argument("--calls", type=int, default=500, help="battles served and votes recorded, timed")
    parser.add_argument("--visitors", type=int, default=2000, help="simulated visitors per kind (the gold rule)")
    parser.add_argument("--coverage-draws", type=int, default=60, help="seeded vote draws (interval coverage)")
    parser.add_argument("--quick", action="store_true", help="CI sizes: 5,000 votes, 20 players, every step once")
    args = parser.parse_args()
    if args.quick:
        args.votes, args.players, args.rounds, args.cartoons = 5_000, 20, 50, 5
        args.calls, args.visitors, args.coverage_draws = 20, 300, 6

    print("gold rule: share of visitors dropped (waiting for probes + failing) / kept, by votes a visitor")
    rules: dict[str, object] = {}
    for gold_min, threshold in RULES:
        settings = ArenaSettings(gold_min=gold_min, gold_threshold=threshold)
        result = gold_rule(args.visitors, settings)
        rules[f"{gold_min}@{threshold}"] = result
        cells = "; ".join(f"{n} votes: attentive dropped {100 * (1 - r['attentive']['kept']):.1f}% "
                          f"(failed {100 * r['attentive']['failed']:.1f}%), random kept "
                          f"{100 * r['random']['kept']:.1f}%, always-left kept {100 * r['always_left']['kept']:.1f}%"
                          for n, r in result.items())
        print(f"  {gold_min} probes, >= {threshold:.0%}: {cells}")
    default = ArenaSettings()
    chosen = choose_rule(rules)
    print(f"chosen (fewest random clickers kept at 20 votes, attentive dropped <= 5%): {chosen}; the default: "
          f"{default.gold_min} probes needed, >= {default.gold_threshold:.0%} right, one probe in every "
          f"{default.probe_every} battles until then")
    coverage = anchored_coverage(args.coverage_draws, 200, 1500)
    careless = with_random_clickers(args.coverage_draws // 6, 300, 20, 0.2, 100)
    print("with 20% random clickers (20 votes a visitor): " + "; ".join(
        f"{name}: slope {r['slope']:.2f}, coverage {100 * r['coverage']:.1f}% of {r['intervals']}"
        for name, r in careless.items()))
    print(f"anchored intervals (distance from Human #200-209, re-anchored each round): cover the truth "
          f"{100 * coverage['coverage']:.1f}% of {coverage['intervals']} intervals (target >= 92%), mean width "
          f"{coverage['mean_width']:.0f} Elo")
    rng = np.random.default_rng(0)
    pool = synthetic_pool(args.players, args.cartoons)
    votes = synthetic_votes(pool, args.votes, rng)
    frame = pd.DataFrame({"player_a": [v.player_a for v in votes], "player_b": [v.player_b for v in votes],
                          "winner": [v.winner for v in votes], "caption_a": [v.text_a for v in votes],
                          "caption_b": [v.text_b for v in votes], "left_side": [v.left_side for v in votes],
                          "voter": [v.voter for v in votes]})

    start = time.perf_counter()
    table = ratings(frame, rounds=args.rounds, seed=0)
    t_ratings = time.perf_counter() - start
    naive, t_naive, players = numpy_mm(frame, args.rounds, seed=0)
    ours = {r.player: r.rating for r in table.rows}
    diff = max(abs(ours[p] - naive[i]) for i, p in enumerate(players))

    with tempfile.TemporaryDirectory() as name:
        store = VoteStore(Path(name) / "arena")
        store.add_many(votes)
        clock = SimulatedClock(2e9)
        arena = Arena(store, pool, ArenaSettings(daily_cap=10**6), clock=clock, seed=0)
        served_t, vote_t = [], []
        for k in range(args.calls):
            visitor = f"visitor-{k % 50}"
            t0 = time.perf_counter()
            served = arena.next_battle(visitor)
            served_t.append(time.perf_counter() - t0)
            clock.advance(5)
            t0 = time.perf_counter()
            arena.vote(served.token, "left", visitor)
            vote_t.append(time.perf_counter() - t0)
        stored = store.count()
    cores = len(os.sched_getaffinity(0))
    print(f"{args.votes:,} votes, {args.players} players, {args.rounds} bootstrap rounds, {cores} cores")
    print(f"ratings (evalica Bradley-Terry + bootstrap): {t_ratings:.2f} s; plain NumPy MM, same rounds: "
          f"{t_naive:.2f} s; largest difference of the point ratings: {diff:.3f} points")
    print(f"next battle with {stored:,} votes stored: p95 {p95_ms(served_t):.2f} ms; record a vote: p95 "
          f"{p95_ms(vote_t):.2f} ms ({args.calls} each)")
    print(json.dumps({"gold_rule": rules, "gold_chosen": chosen,
                      "gold_default": {"gold_min": default.gold_min, "gold_threshold": default.gold_threshold,
                                       "probe_every": default.probe_every},
                      "anchored_coverage": coverage, "random_clickers_20pct": careless, "votes": args.votes,
                      "players": args.players,
                      "rounds": args.rounds, "cores": cores,
                      "ratings_s": round(t_ratings, 3), "numpy_mm_s": round(t_naive, 3),
                      "max_rating_diff": round(diff, 4), "next_battle_p95_ms": round(p95_ms(served_t), 3),
                      "vote_p95_ms": round(p95_ms(vote_t), 3), "stored_votes": stored,
                      "meets": {"anchored_coverage_at_least_92": coverage["coverage"] >= 0.92,
                                "default_is_the_chosen_rule": chosen == f"{default.gold_min}@{default.gold_threshold}",
                                "ratings_under_10s": t_ratings < 10, "next_battle_p95_under_50ms":
                                p95_ms(served_t) < 50, "vote_p95_under_20ms": p95_ms(vote_t) < 20}}))


if __name__ == "__main__":
    main()
