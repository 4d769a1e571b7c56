"""One leaderboard job on the GPU: a submitted local model folder goes through the queue, the worker and the
results record, and the GPU memory the job took is given back afterwards.

A random Llama of Llama-3.2-1B's shape (or `--model FOLDER`, any saved causal LM with a licensed model card) is
submitted with `submit` to a `LocalStore` on the embedded sample, with the offline judges; `run_worker_once` runs
it as the app's worker does (in this process or in a child process, whichever the worker does). Memory is read at
the device level (all processes, what nvidia-smi shows) and, for this process, as torch's allocated and reserved
bytes: before the job, at its peak (sampled every 50 ms), after it, and after `gc.collect()` +
`torch.cuda.empty_cache()` (what a long-running worker process can give back by itself). Then a second job
with a time limit of `--kill-after-s` seconds: its child process is killed past the limit, the job ends FAILED with
its reason, and the device memory after it shows what the kill gave back. Last line: one JSON object.
"""

from __future__ import annotations

import argparse
import gc
import json
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import torch

sys.path.insert(0, str(Path(__file__).parent))
from evaluate_gpu import MemoryWatch
from gpu import LLAMA_1B, TINY, build_model, environment, every_instance

from nycc_bench.builders import build_dataset
from nycc_bench.leaderboard.settings import Settings
from nycc_bench.leaderboard.store import LocalStore
from nycc_bench.leaderboard.submit import submit
from nycc_bench.offline_judges import train_offline_judges
from nycc_bench.paths import SAMPLE_DIR

TASKS = ["matching", "matching_5shot", "ranking", "explanation", "humorbench"]  # what a random model can finish
CARD = "---\nlicense: mit\nlibrary_name: transformers\n---\n\nA random model for a GPU check of the worker.\n"
GIB = 2**30


def memory(watch: MemoryWatch | None) -> dict[str, float]:
    """Device-level used memory and this process's torch allocated / reserved memory, in GiB."""
    if watch is None:
        return {}
    return {"device_used_gib": round(watch.used() / GIB, 3),
            "allocated_gib": round(torch.cuda.memory_allocated() / GIB, 3),
            "reserved_gib": round(torch.cuda.memory_reserved() / GIB, 3)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--model", help="a saved model folder (default: a random Llama-3.2-1B shape, built here)")
    ap.add_argument("--tiny", action="store_true", help="a 2-layer model (a CPU check of the script)")
    ap.add_argument("--quick", action="store_true",
                    help="CI mode: --tiny, the job runs matching, the killed one after 10 s (GPU if any, else CPU)")
    ap.add_argument("--tasks", default=",".join(TASKS), help=f"the job's tasks (default {','.join(TASKS)})")
    ap.add_argument("--work", help="folder for the dataset, judges, model and store (default: a temporary one)")
    ap.add_argument("--kill-tasks", help="the time-limited job's tasks (default: the tasks of TASKS the first job "
                                         "did not run, or all of them: the store refuses a finished task again)")
    ap.add_argument("--kill-after-s", type=float, default=25.0,
                    help="a second job whose time limit is this many seconds: killed, and its GPU memory given back "
                         "(0: skip it)")
    args = ap.parse_args()
    args.tiny = args.tiny or args.quick
    if args.quick:  # one task for the job, the others for the job killed after 10 s
        args.tasks, args.kill_after_s = "matching", 10.0
    import datasets
    import transformers

    datasets.disable_progress_bars()
    transformers.utils.logging.disable_progress_bar()
    cuda = torch.cuda.is_available()
    watch = MemoryWatch() if cuda else None
    if watch is not None:
        torch.cuda.init()
        watch.start()
    figures: dict[str, Any] = {**environment()}
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(args.work or tmp)
        sample = work / "sample"
        if not sample.exists():
            build_dataset(SAMPLE_DIR, sample, progress=False)
        judges = train_offline_judges(sample, work / "judges", SAMPLE_DIR / "humorbench_reubennarad" / "rubric")
        model = Path(args.model) if args.model else work / "submitted-llama"
        if not args.model:
            corpus = [i.user for name in ("explanation", "matching") for i in every_instance(name, str(sample))]
            build_model(model, corpus, TINY if args.tiny else LLAMA_1B, 1000 if args.tiny else 8000)
            (model / "README.md").write_text(CARD)
        gc.collect()
        if cuda:
            torch.cuda.empty_cache()
        settings = Settings(data_dir=work / "store", dataset=str(sample), allow_local=True, sample_data=True,
                            worker=False, judges={t: f"{j.backend}:{j.model}" for t, j in judges.items()})
        store = LocalStore(settings.data_dir)
        from nycc_bench.leaderboard.worker import run_worker_once

        job = submit(store, settings, str(model), "", args.tasks.split(","), "gpu-check")
        figures["before"] = memory(watch)
        if watch is not None:
            watch.reset()
        start = time.perf_counter()
        done = run_worker_once(store, settings)
        figures["job_s"] = round(time.perf_counter() - start, 1)
        if watch is not None:
            figures["peak_device_used_gib"] = round(watch.reset() / GIB, 3)
        figures["after"] = memory(watch)
        gc.collect()
        if cuda:
            torch.cuda.empty_cache()
        figures["after_gc_empty_cache"] = memory(watch)
        assert done is not None and done.id == job.id
        results = store.results()
        figures.update(job=job.id, spec=job.spec, status=done.status, reason=done.reason, params=job.params,
                       recorded=len(results))
        if results:
            result = results[0]
            figures["model_record"] = {k: result["model"].get(k) for k in ("name", "source", "dtype", "device",
                                                                            "parameters", "kv_cache")}
            figures["scores"] = {t: {k: v.get("value") for k, v in e["scores"].items()}
                                 for t, e in result["tasks"].items()}
            figures["errors"] = result.get("errors")
        if args.kill_after_s > 0:  # a job past its time limit: its child process is killed, its GPU memory freed
            limited = replace(settings, job_timeout_s=args.kill_after_s)
            rest = [t for t in TASKS if t not in args.tasks.split(",")] or TASKS
            killed = submit(store, limited, str(model), "", args.kill_tasks.split(",") if args.kill_tasks else rest,
                            "gpu-check-killed")
            if watch is not None:
                watch.reset()
            start = time.perf_counter()
            done = run_worker_once(store, limited)
            assert done is not None and done.id == killed.id
            figures["killed"] = {"limit_s": args.kill_after_s, "ended_s": round(time.perf_counter() - start, 1),
                                 "status": done.status, "reason": done.reason,
                                 "peak_device_used_gib": round(watch.reset() / GIB, 3) if watch else None,
                                 "after": memory(watch)}
        if watch is not None:
            watch.stopped.set()
    reason = f"; reason: {figures['reason']}" if figures["reason"] else ""
    lines = [f"job {figures['job']} ({figures['spec']}): {figures['status']} in {figures['job_s']} s; "
             f"{figures['recorded']} record(s) stored{reason}"]
    for key in ("before", "after", "after_gc_empty_cache"):
        lines.append(f"  memory {key:<22} {figures[key]}")
    if "peak_device_used_gib" in figures:
        lines.append(f"  memory peak device used   {figures['peak_device_used_gib']} GiB")
    if "killed" in figures:
        k = figures["killed"]
        lines.append(f"job with a {k['limit_s']:.0f} s limit: {k['status']} after {k['ended_s']} s ({k['reason']}); "
                     f"peak {k['peak_device_used_gib']} GiB, after {k['after']}")
    print("\n".join(lines))
    print(json.dumps(figures, default=str))


if __name__ == "__main__":
    main()
