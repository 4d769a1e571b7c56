"""`nycc-bench arena export|ratings` and `nycc-bench judges agree`: the arena's votes, ratings and judge agreement
from the shell (the same functions as `nycc_bench.arena`). Each ends with one JSON line."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any


def add_arena_parsers(subparsers: argparse._SubParsersAction, judge_options: Any) -> None:
    """Register `arena` and `judges` on the CLI's subparsers (`judge_options` adds the shared judge flags)."""
    a = subparsers.add_parser("arena", help="the Caption Arena's votes: `export` them, compute `ratings`")
    sub = a.add_subparsers(dest="arena_command", required=True)
    e = sub.add_parser("export", help="write every vote of a leaderboard data dir to parquet")
    e.add_argument("--data-dir", required=True, metavar="DIR", help="the leaderboard's data folder (NYCC_LB_DATA_DIR)")
    e.add_argument("--out", required=True, metavar="FILE.parquet", help="the export to write")
    e.add_argument("--drop-voter", action="append", default=[], metavar="VOTER",
                   help="leave out every vote of this voter id (repeatable; cleaning a stuffed arena)")
    e.add_argument("--drop-address", action="append", default=[], metavar="HASH",
                   help="leave out every vote from this client-address hash (`address_hash`; repeatable)")
    e.add_argument("--cap-voter", type=int, metavar="N", help="keep at most the first N votes of each voter")
    e.add_argument("--cap-address", type=int, metavar="N",
                   help="keep at most the first N votes of each client-address hash")
    e.set_defaults(func=cmd_export)
    r = sub.add_parser("ratings", help="Bradley-Terry ratings with bootstrap intervals from exported votes")
    r.add_argument("votes", metavar="VOTES.parquet", help="a file written by `arena export`")
    r.add_argument("--length-control", action="store_true",
                   help="add the normalised caption-length difference as a covariate (style control)")
    r.add_argument("--rounds", type=int, default=1000, help="bootstrap rounds over votes (default 1000)")
    r.add_argument("--seed", type=int, default=0, help="bootstrap seed (default 0)")
    r.add_argument("--json", action="store_true", help="print only the JSON object")
    r.add_argument("--include-simulated", action="store_true",
                   help="count the simulated voters' votes too (the seed's; left out by default)")
    r.set_defaults(func=cmd_ratings)

    j = subparsers.add_parser("judges", help="judges measured against people: `agree` with the arena's votes")
    jsub = j.add_subparsers(dest="judges_command", required=True)
    g = jsub.add_parser("agree", help="a judge's agreement with the arena votes, rank correlation, separability")
    g.add_argument("--votes", required=True, metavar="VOTES.parquet", help="a file written by `arena export`")
    judge_options(g, required=True)
    g.add_argument("--protocol", choices=("overall", "best_pick"),
                   help="Zhang's group comparison the judge plays, one caption a side (default: a named judge's, "
                        "else overall)")
    g.add_argument("--dataset", help="also run Zhang's crowd check (top 10 vs #1000-1009) on this dataset")
    g.add_argument("--rounds", type=int, default=1000, help="bootstrap rounds (default 1000)")
    g.add_argument("--include-simulated", action="store_true",
                   help="count the simulated voters' votes too (left out by default)")
    g.add_argument("--out", metavar="FILE.json", help="also write the report (a leaderboard shows the files in its "
                                                      "data folder's arena/judges/ on its About tab)")
    g.set_defaults(func=cmd_agree)


def cmd_export(args: argparse.Namespace) -> int:
    from .export import export_votes
    from .rating import vote_kinds

    frame = export_votes(args.data_dir, args.out, drop_voters=args.drop_voter, drop_addresses=args.drop_address,
                         cap_voter=args.cap_voter, cap_address=args.cap_address)
    kinds = vote_kinds(frame) if len(frame) else {}
    print(f"{len(frame)} votes ({kinds.get('people', 0)} by people, {kinds.get('simulated', 0)} simulated; "
          f"{kinds.get('counted_people', 0)} counted) -> {args.out}")
    print(json.dumps({"out": str(args.out), "n_votes": len(frame), "n_counted": kinds.get("counted_people", 0),
                      "kinds": kinds}))
    return 0


def kinds_line(kinds: dict[str, int]) -> str:
    """How many votes of each kind were read and used (every output says it)."""
    return (f"votes used: {kinds['counted_people']} by people, {kinds['counted_simulated']} simulated "
            f"(read: {kinds['people']} by people, {kinds['simulated']} simulated; {kinds['duplicates_dropped']} "
            "duplicate row(s) dropped)")


def cmd_ratings(args: argparse.Namespace) -> int:
    from .export import read_votes
    from .rating import ratings
    from .settings import ArenaSettings

    frame = read_votes(args.votes, ArenaSettings.from_env(), include_simulated=args.include_simulated)
    result = ratings(frame, length_control=args.length_control, rounds=args.rounds, seed=args.seed)
    if not args.json:
        print(result.frame().to_string(index=False))
        print(kinds_line(result.kinds))
        print(f"prior: {result.prior}; a player with fewer than {result.min_votes} counted votes is provisional "
              "(no rating shown)")
        if result.length_coef is not None:
            print(f"length coefficient: {result.length_coef:+.3f} log-odds per unit of normalised length difference "
                  f"[{result.length_low:+.3f}, {result.length_high:+.3f}]")
        if result.left_win_rate is not None:
            print(f"left side wins {100 * result.left_win_rate:.1f}% of {result.n_decisive} decisive votes "
                  f"[{100 * result.left_low:.1f}, {100 * result.left_high:.1f}]; "
                  f"{len(result.side_biased)} visitor(s) nearly always pick one side")
        for note in result.notes:
            print(f"note: {note}")
    print(json.dumps(result.to_dict()))
    return 0


def cmd_agree(args: argparse.Namespace) -> int:
    from ..judging import JudgeSpec
    from .agreement import agree, table_lines
    from .export import read_votes
    from .settings import ArenaSettings

    frame = read_votes(args.votes, ArenaSettings.from_env(), include_simulated=args.include_simulated)
    judge = JudgeSpec.parse(args.judge, base_url=args.judge_base_url, cache_dir=args.cache_dir,
                            max_concurrency=args.max_concurrency, dry_run=args.dry_run, timeout_s=args.judge_timeout)
    report = agree(frame, judge, protocol=args.protocol, dataset=args.dataset, rounds=args.rounds)
    print("\n".join(table_lines([report])))
    print(kinds_line(report["kinds"]))
    if args.out:
        Path(args.out).parent.mkdir(parents=True, exist_ok=True)
        Path(args.out).write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    print(json.dumps(report))
    return 0
