"""Time `caption_ratings` from every nextml summary below --source against a plain pandas.read_csv loop.

The builder reads, validates, stable-sorts and writes parquet; the pandas loop only reads; a third figure is
pandas doing the builder's work naively (read, sort, concat, to_parquet). Both run in one
process, each timed over --repeat runs (best of), so the ratio compares like with like on this machine.

`--synthetic 2.2M` instead writes that many captions over --contests summaries in the upstream API format
(`contests/summaries/<n>_summary_KLUCB.csv`: target_id, rank, votes, mean, precision, contest, caption) and
measures, each in a fresh process (wall and CPU time, peak memory), --repeat times interleaved (the run with the
least wall time of each is shown): the builder; the builder with pyarrow's default memory pool (mimalloc, what it
used before); and the floors: pyarrow reading every file (one thread, as `read_csv` is called), pyarrow reading
every file on as many threads as the builder uses, and the project's parquet writer writing the built rows again
(in the build's chunk layout, so the same bytes: checked). "read + write" is the floor of a build that parses,
then writes, and does nothing else. Two steps of the build are timed alone (its read: parse, check and sort every
run; then the same with each run's rows and flags), so that what each part adds is measured in the same run. The
same rows are also written with the writer's previous encoding (snappy on
every column, only repetitive text dictionary-encoded, statistics everywhere) to print both sets of file sizes and
write times: the parquet encoding may not grow the files by more than ~15%. `--previous REV` also times the
build as it was at a git revision (unpacked with `git archive`, run under the same rounds; in process and as the
whole command), so that a change is measured against what it replaces under the same load.

Whole processes, as a user waits for them: the command (`python -m nycc_bench.cli build`) against a fresh python
reading the same files with pyarrow, with what the command's fixed cost is made of (python, its imports, pandas
imported by pyarrow itself) and the heavy libraries it imported (target: 3x the read's CPU, without `datasets`).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.csv as pcsv

from nycc_bench.builders import build_dataset
from nycc_bench.builders.sources import discover

from process import measure

HEAVY = ("datasets", "pandas", "torch", "huggingface_hub", "tqdm", "scipy", "sklearn")  # listed when imported


def best_of(repeat: int, fn) -> float:
    """Fastest wall time of `repeat` calls, in seconds."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def count(text: str) -> int:
    """2.2M, 500k, 1e6 or 2200000 as a number of captions."""
    scale = {"k": 1e3, "m": 1e6}.get(text[-1].lower(), 1)
    return int(float(text[:-1] if scale != 1 else text) * scale)


def write_synthetic(root: Path, n: int, contests: int) -> int:
    """Upstream-format summaries of `n` seeded captions over `contests` contests; the bytes written."""
    from novelty import make_captions, make_vocabulary

    folder = root / "contests" / "summaries"
    folder.mkdir(parents=True)
    vocabulary = make_vocabulary(30_000, np.random.default_rng(0))
    rng = np.random.default_rng(1)
    sizes = np.full(contests, n // contests)
    sizes[: n % contests] += 1
    for i, size in enumerate(sizes.tolist()):
        contest = 500 + i
        captions = list(dict.fromkeys(make_captions(size, i, vocabulary)))  # upstream has one row per caption
        m = len(captions)
        votes = rng.integers(20, 400, m)
        funny = rng.binomial(votes, 0.15)
        somewhat = rng.binomial(votes - funny, 0.35)
        unfunny = votes - funny - somewhat
        mean = (unfunny + 2 * somewhat + 3 * funny) / votes
        order = np.argsort(-mean, kind="stable")
        table = pa.table({"target_id": np.arange(m), "rank": np.arange(1, m + 1), "funny": funny[order],
                          "somewhat_funny": somewhat[order], "unfunny": unfunny[order], "count": votes[order],
                          "score": mean[order], "precision": (np.sqrt(mean * (1 - mean / 3)) / np.sqrt(votes))[order],
                          "contest": np.full(m, contest), "caption": pa.array(captions).take(order)})
        pcsv.write_csv(table, folder / f"{contest}_summary_KLUCB.csv")
    return sum(p.stat().st_size for p in folder.iterdir())


def measured(setup: str, code: str, env: dict[str, str] | None = None) -> dict:
    """Run Python `setup` (imports, untimed) then `code` in a fresh process: wall and CPU seconds of `code`, peak
    resident MB of the process, and the `value` it sets."""
    script = (f"import resource, time, json\n{setup}\nstart, cpu = time.perf_counter(), time.process_time()\n" + code +
              "\nprint(json.dumps({'wall_s': round(time.perf_counter() - start, 2), 'cpu_s': round(time.process_time()"
              " - cpu, 2), 'peak_mb': round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1), "
              "'value': value}))")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          cwd=Path(__file__).parent, env={**os.environ, **(env or {})})
    if done.returncode:
        raise RuntimeError(f"{setup.splitlines()[-1]!r} step failed: {done.stderr[-2000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def digests(folder: Path) -> dict[str, str]:
    """sha256 of each parquet file below a folder, by name."""
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(folder.glob("*.parquet"))}


def previous_tree(revision: str, into: Path) -> Path:
    """The package as it was at a git revision of this repository, unpacked below `into` (for PYTHONPATH)."""
    root = Path(__file__).resolve().parent.parent
    into.mkdir(parents=True)
    archive = subprocess.run(["git", "-C", str(root), "archive", revision, "nycc_bench"], capture_output=True,
                             check=True).stdout
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive, check=True)
    return into


def synthetic(n: int, contests: int, repeat: int, previous: str | None = None) -> None:
    """Build caption_ratings from a synthetic upstream-format input; compare with pyarrow's read and write floors."""
    with tempfile.TemporaryDirectory() as tmp:
        source, out = Path(tmp) / "source", Path(tmp) / "out"
        start = time.perf_counter()
        size = write_synthetic(source, n, contests)
        print(f"synthetic input: {n:,} captions over {contests} contests, {size / 2**20:,.0f} MiB of CSV, written in "
              f"{time.perf_counter() - start:.0f} s", flush=True)
        files = f"sorted(pathlib.Path({str(source)!r}).rglob('*.csv'))"
        built = f"Path({str(out)!r}) / 'data' / 'caption_ratings'"
        steps = {
            "floor": ("import pyarrow.csv as c, pathlib", f"value = sum(c.read_csv(p).num_rows for p in {files})", {}),
            "floor_threads": ("import os, pathlib, pyarrow.csv as c\nfrom concurrent.futures import ThreadPoolExecutor",
                              "with ThreadPoolExecutor(os.cpu_count()) as pool:\n"
                              f"    value = sum(t.num_rows for t in pool.map(c.read_csv, {files}))", {}),
            "build": ("from pathlib import Path\nfrom nycc_bench.builders import build_dataset",
                      f"r = build_dataset(Path({str(source)!r}), Path({str(out)!r}), ['caption_ratings'], "
                      "progress=False, replace=True)\nvalue = sum(r.rows['caption_ratings'].values())", {}),
            # the build's own steps up to the writer, within the build's memory pool: its read (parse, validate,
            # sort each run), then the same with each run's rows and flags made in the reading thread
            "read_runs": ("from pathlib import Path\nfrom nycc_bench.builders.memory import build_memory_pool\n"
                          "from nycc_bench.builders.sources import discover\n"
                          "from nycc_bench.builders.zhang2024 import read_runs",
                          "with build_memory_pool():\n"
                          f"    value = sum(r.table.num_rows for r in read_runs(discover(Path({str(source)!r})), "
                          "progress=False))", {}),
            "read_rows": ("from pathlib import Path\nfrom nycc_bench.builders.memory import build_memory_pool\n"
                          "from nycc_bench.builders.sources import discover\n"
                          "from nycc_bench.builders.zhang2024 import read_runs",
                          "with build_memory_pool():\n"
                          f"    value = sum(r.ratings.num_rows for r in read_runs(discover(Path({str(source)!r})), "
                          "progress=False, ratings=True))", {}),
            "build_mimalloc": ("from pathlib import Path\nfrom nycc_bench.builders import build_dataset",
                               f"r = build_dataset(Path({str(source)!r}), Path({str(tmp)!r}) / 'out_mimalloc', "
                               "['caption_ratings'], progress=False, replace=True)\n"
                               "value = sum(r.rows['caption_ratings'].values())",
                               {"ARROW_DEFAULT_MEMORY_POOL": "mimalloc"}),
            # writing the built rows again with the project's writer, in the build's chunk layout (one chunk per
            # rating run: the run boundaries are where run_id changes), so the bytes are the build's
            "write": ("from pathlib import Path\nimport numpy as np, pyarrow as pa, pyarrow.parquet as pq\n"
                      "from nycc_bench.builders.writer import BuiltConfig, write_config\n"
                      "from nycc_bench.builders.zhang2024 import CAPTION_RATINGS\n"
                      f"folder = {built}\n"
                      "def runs(t):\n"
                      "    t = t.combine_chunks()\n"
                      "    ids = t['run_id'].to_numpy(zero_copy_only=False)\n"
                      "    cut = [0, *(np.flatnonzero(ids[1:] != ids[:-1]) + 1).tolist(), t.num_rows]\n"
                      "    return pa.concat_tables([t.slice(a, b - a) for a, b in zip(cut, cut[1:]) if b > a])\n"
                      "splits = {s: runs(pq.read_table(sorted(folder.glob(s + '-*.parquet')))) "
                      "for s in ('train', 'validation', 'test')}",
                      f"write_config(Path({str(out)!r}) / 'again', BuiltConfig(CAPTION_RATINGS, splits))\n"
                      "value = sum(t.num_rows for t in splits.values())", {}),
        }
        # the same rows with the encoding the writer used before (for the file sizes and the write time)
        setup, code, _ = steps["write"]
        steps["write_previous"] = (
            setup + "\nimport pyarrow.compute as pc\nfrom nycc_bench.builders import writer\n"
            "def previous(table):\n"
            "    sample = table.slice(0, 10_000)\n"
            "    return {'compression': 'snappy', 'use_dictionary': [f.name for f in table.schema if "
            "pa.types.is_string(f.type) and sample.num_rows and "
            "pc.count_distinct(sample[f.name]).as_py() <= sample.num_rows // 10]}\n"
            "writer.encoding = previous",
            code.replace("/ 'again'", "/ 'previous'"), {})
        # the floor of any build on this machine: the reads and the write at once (the reads on the builder's
        # threads, the writer on its own), as if parsing could overlap the writing of rows not yet made
        setup, code, _ = steps["write"]
        steps["overlapped"] = (setup + "\nimport os, pyarrow.csv as c, pathlib\n"
                               "from concurrent.futures import ThreadPoolExecutor",
                               "with ThreadPoolExecutor(os.cpu_count()) as pool:\n"
                               "    one = c.ReadOptions(use_threads=False)  # (the pool is the parallelism)\n"
                               f"    reads = [pool.submit(c.read_csv, p, one) for p in {files}]\n"
                               f"    write_config(Path({str(out)!r}) / 'overlapped', "
                               "BuiltConfig(CAPTION_RATINGS, splits))\n"
                               "    value = sum(r.result().num_rows for r in reads)", {})
        if previous:  # the same build at an earlier commit, in the same interleaved rounds
            tree = previous_tree(previous, Path(tmp) / "previous_tree")
            setup, code, _ = steps["build"]
            steps["build_previous"] = (setup, code.replace(f"Path({str(out)!r}), ['caption_ratings']",
                                                           f"Path({str(tmp)!r}) / 'out_previous', ['caption_ratings']"),
                                       {"PYTHONPATH": str(tree)})
        runs: dict[str, list[dict]] = {name: [] for name in steps}
        # whole processes, as a user waits for them (imports included): the command, and a fresh python reading
        # the same files with pyarrow (one thread)
        whole = {"floor_process": ["-c", f"import pyarrow.csv as c, pathlib\nsum(c.read_csv(p).num_rows for p in "
                                         f"{files})"],
                 "build_process": ["-m", "nycc_bench.cli", "build", "--source", str(source), "--out",
                                   str(Path(tmp) / "out_cli"), "--configs", "caption_ratings", "--replace", "--quiet"],
                 # what the command's fixed cost is made of: python itself, what the command imports before it
                 # reads (the CLI, the builders, the card's task registry), and pandas, which pyarrow imports at its
                 # first conversion to or from NumPy (`pa.scalar`, `to_numpy`): the floor never converts
                 "pass_process": ["-c", "pass"],
                 "builders_import_process": ["-c", "import nycc_bench.cli, nycc_bench.commands.build, "
                                                   "nycc_bench.builders, nycc_bench.building"],
                 "pyarrow_import_process": ["-c", "import pyarrow.csv"],
                 "pyarrow_pandas_import_process": ["-c", "import pyarrow.csv, pyarrow as pa\npa.scalar(1)"]}
        if previous:  # the command at the earlier revision, whole, in the same rounds
            at = whole["build_process"].index("--out") + 1
            whole["build_process_previous"] = [*whole["build_process"][:at], str(Path(tmp) / "out_cli_previous"),
                                               *whole["build_process"][at + 1:]]
        runs |= {name: [] for name in whole}
        loads = [os.getloadavg()[0]]
        for _ in range(repeat):
            for name, (setup, code, env) in steps.items():
                runs[name].append(measured(setup, code, env))
            for name, argv in whole.items():
                figures = measure(argv, {"PYTHONPATH": str(tree)} if name.endswith("_previous") else None)
                figures.pop("stdout")
                runs[name].append(figures)
            loads.append(os.getloadavg()[0])
        # the libraries the command imported (one more run, untimed, as the console script runs it)
        command = whole["build_process"][2:]
        listed = subprocess.run([sys.executable, "-c", "import json, sys\nfrom nycc_bench.cli import main\n"
                                 "main(sys.argv[1:])\nprint(json.dumps(sorted(m for m in " + repr(HEAVY) +
                                 " if m in sys.modules)))", *command], capture_output=True, text=True, check=True,
                                cwd=Path(__file__).parent)
        heavy = json.loads(listed.stdout.strip().splitlines()[-1])
        same_cli = digests(Path(tmp) / "out_cli" / "data" / "caption_ratings") == digests(
            out / "data" / "caption_ratings")
        if previous:
            same_cli = same_cli and digests(Path(tmp) / "out_cli_previous" / "data" / "caption_ratings") == digests(
                out / "data" / "caption_ratings") and (Path(tmp) / "out_cli_previous" / "README.md").read_bytes() == (
                Path(tmp) / "out_cli" / "README.md").read_bytes()
        same_bytes = digests(out / "again" / "data" / "caption_ratings") == digests(out / "data" / "caption_ratings")
        same_mimalloc = digests(Path(tmp) / "out_mimalloc" / "data" / "caption_ratings") == digests(
            out / "data" / "caption_ratings")
        sizes = {p.name: p.stat().st_size for p in sorted((out / "data" / "caption_ratings").glob("*.parquet"))}
        previous_sizes = {p.name: p.stat().st_size
                          for p in sorted((out / "previous" / "data" / "caption_ratings").glob("*.parquet"))}
    best = {name: min(results, key=lambda r: r["wall_s"]) for name, results in runs.items()}
    previous = best["write_previous"]
    mb, previous_mb = sum(sizes.values()) / 1e6, sum(previous_sizes.values()) / 1e6
    floor, threads, write, build, old, overlapped = (best[k] for k in ("floor", "floor_threads", "write", "build",
                                                                      "build_mimalloc", "overlapped"))
    both = {"wall_s": round(threads["wall_s"] + write["wall_s"], 2), "cpu_s": round(floor["cpu_s"] + write["cpu_s"], 2)}

    def line(label: str, r: dict, note: str = "") -> str:
        return f"{label:<44}{r['wall_s']:>6.2f} s wall {r['cpu_s']:>6.2f} s CPU {r['peak_mb']:>8,.0f} MB peak{note}"

    print(f"best wall of {repeat} runs each, interleaved; load average {loads[0]:.2f} at the start, "
          f"{max(loads):.2f} at most (1 min; {os.cpu_count()} CPUs)")
    print(line("pyarrow read floor (one thread):", floor, f", {floor['value']:,} rows"))
    print(line(f"pyarrow read floor ({os.cpu_count()} threads over files):", threads))
    print(line("parquet write floor (built rows again):", write,
               f", {write['value']:,} rows; same bytes as the build: {'yes' if same_bytes else 'NO'}"))
    print(line("  the same rows in the previous encoding:", previous))
    print(f"parquet files: {mb:,.1f} MB ({', '.join(f'{n} {b / 1e6:.1f}' for n, b in sizes.items())}); in the "
          f"previous encoding {previous_mb:,.1f} MB: {mb / previous_mb:.2f}x (at most ~1.15x allowed)")
    print(f"{'read (threads) + write floor:':<44}{both['wall_s']:>6.2f} s wall {both['cpu_s']:>6.2f} s CPU")
    print(line("read and write at once (overlapped floor):", overlapped))
    print(line("the build's read (parse, check, sort runs):", best["read_runs"]))
    print(line("  and each run's rows and flags:", best["read_rows"]))
    print(line("nycc-bench build caption_ratings:", build, f", {build['value']:,} rows"))
    if "build_previous" in best:
        print(line("  the same build at the previous revision:", best["build_previous"],
                   f" ({best['build_previous']['wall_s'] / floor['wall_s']:.2f}x the read floor)"))
    print(line("  the same with pyarrow's mimalloc pool:", old,
               f" (pyarrow's default pool; same bytes: {'yes' if same_mimalloc else 'NO'})"))
    process, floor_process = best["build_process"], best["floor_process"]
    print(line("whole process: python reading the CSVs:", floor_process))
    print(line("whole process: nycc-bench build caption_ratings:", process,
               f" ({process['cpu_s'] / floor_process['cpu_s']:.2f}x the read's CPU, "
               f"{process['wall_s'] / floor_process['wall_s']:.2f}x its wall; target 3x)"))
    if "build_process_previous" in best:
        old_process = best["build_process_previous"]
        print(line("  the same command at the previous revision:", old_process,
                   f" ({old_process['cpu_s'] / floor_process['cpu_s']:.2f}x the read's CPU)"))
    python, imports = best["pass_process"], best["builders_import_process"]
    arrow, pandas = best["pyarrow_import_process"], best["pyarrow_pandas_import_process"]
    print(f"  of which: python itself {python['cpu_s']:.2f} CPU s, the command's imports before it reads "
          f"{imports['cpu_s']:.2f} s (`import pyarrow.csv` alone {arrow['cpu_s']:.2f} s, as the floor's), pandas "
          f"imported by pyarrow's first NumPy conversion {pandas['cpu_s'] - arrow['cpu_s']:.2f} s; heavy libraries "
          f"the command imported: {', '.join(heavy) or 'none'} (of {', '.join(HEAVY)}); same bytes as the "
          f"build: {'yes' if same_cli else 'NO'}")
    print(f"build: {build['wall_s'] / floor['wall_s']:.2f}x the read floor's wall time "
          f"({build['cpu_s'] / floor['cpu_s']:.2f}x its CPU), {build['wall_s'] / both['wall_s']:.2f}x read + write "
          f"({build['cpu_s'] / both['cpu_s']:.2f}x its CPU), {build['wall_s'] / overlapped['wall_s']:.2f}x read and "
          f"write overlapped (which is {overlapped['wall_s'] / floor['wall_s']:.2f}x the read floor); "
          "target 1.5x the read floor, under 4,000 MB")
    print(json.dumps({"synthetic_captions": n, "contests": contests, "csv_mib": round(size / 2**20, 1),
                      "repeat": repeat, "floor": floor, "floor_threads": threads, "write_floor": write,
                      "read_plus_write_floor": both, "overlapped_floor": overlapped, "build": build,
                      "build_mimalloc": old, "write_previous_encoding": previous,
                      "build_previous_revision": best.get("build_previous"),
                      "build_read_runs": best["read_runs"], "build_read_runs_with_rows": best["read_rows"],
                      "parquet_mb": round(mb, 1), "previous_encoding_parquet_mb": round(previous_mb, 1),
                      "size_vs_previous_encoding": round(mb / previous_mb, 3), "parquet_bytes": sizes,
                      "same_bytes": same_bytes and same_mimalloc,
                      "wall_vs_floor": round(build["wall_s"] / floor["wall_s"], 2),
                      "cpu_vs_floor": round(build["cpu_s"] / floor["cpu_s"], 2),
                      "wall_vs_read_plus_write": round(build["wall_s"] / both["wall_s"], 2),
                      "cpu_vs_read_plus_write": round(build["cpu_s"] / both["cpu_s"], 2),
                      "wall_vs_overlapped": round(build["wall_s"] / overlapped["wall_s"], 2),
                      "overlapped_vs_floor": round(overlapped["wall_s"] / floor["wall_s"], 2),
                      "whole_process": {"floor": floor_process, "build": process,
                                        "cpu_vs_floor": round(process["cpu_s"] / floor_process["cpu_s"], 2),
                                        "wall_vs_floor": round(process["wall_s"] / floor_process["wall_s"], 2),
                                        "build_previous_revision": best.get("build_process_previous"),
                                        "python": python, "import_builders": imports, "import_pyarrow": arrow,
                                        "import_pyarrow_pandas": pandas, "heavy_imports": heavy,
                                        "same_bytes": same_cli},
                      "runs": runs, "load_average": round(loads[0], 2), "load_average_max": round(max(loads), 2),
                      "cpu_count": os.cpu_count()}))


def main() -> None:
    """Run both, print the figures, then one JSON line."""
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--source", default="../shared/data", help="folder with the nextml summaries")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--synthetic", type=count, default=None, metavar="N",
                    help="build from N synthetic captions in the upstream format instead (e.g. 2.2M)")
    ap.add_argument("--contests", type=int, default=365, help="contests of the synthetic input (default 365)")
    ap.add_argument("--previous", metavar="REV", default=None,
                    help="with --synthetic, also time the build as it was at this git revision (e.g. HEAD~3)")
    ap.add_argument("--quick", action="store_true", help="--synthetic 20000 over 100 contests, once (CI)")
    args = ap.parse_args()
    if args.quick:
        args.synthetic, args.contests, args.repeat = 20_000, 100, 1
    if args.synthetic:
        synthetic(args.synthetic, args.contests, args.repeat, args.previous)
        return
    files = [s.path for s in discover(Path(args.source)).summaries]
    size_mb = sum(p.stat().st_size for p in files) / 2**20
    with tempfile.TemporaryDirectory() as out:
        rows = 0

        def builder() -> None:
            nonlocal rows
            report = build_dataset(Path(args.source), Path(out), ["caption_ratings"], progress=False)
            rows = sum(report.rows["caption_ratings"].values())

        def pandas_loop() -> None:
            for path in files:
                pd.read_csv(path)

        def pandas_build() -> None:
            frames = [pd.read_csv(p).sort_values("score" if "score" in pd.read_csv(p, nrows=0) else "mean",
                                                 ascending=False, kind="stable") for p in files]
            pd.concat(frames).to_parquet(Path(out) / "naive.parquet")

        t_builder = best_of(args.repeat, builder)
        t_pandas = best_of(args.repeat, pandas_loop)
        t_naive = best_of(args.repeat, pandas_build)
    print(f"{len(files)} files, {size_mb:.1f} MiB, {rows:,} caption rows")
    print(f"nycc-bench build caption_ratings (read+validate+sort+write parquet): {t_builder:.2f} s")
    print(f"plain pandas.read_csv loop (read only):                            {t_pandas:.2f} s")
    print(f"pandas doing the same work (read+sort+concat+to_parquet):          {t_naive:.2f} s")
    print(f"ratio pandas read loop / builder: {t_pandas / t_builder:.2f}x; naive pandas build / builder: "
          f"{t_naive / t_builder:.2f}x")
    print(json.dumps({"files": len(files), "rows": rows, "mib": round(size_mb, 1),
                      "builder_s": round(t_builder, 3), "pandas_loop_s": round(t_pandas, 3),
                      "pandas_build_s": round(t_naive, 3),
                      "speedup_vs_pandas": round(t_pandas / t_builder, 2)}))


if __name__ == "__main__":
    main()
