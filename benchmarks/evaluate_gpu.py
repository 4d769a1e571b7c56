"""A full evaluation of a 7B-shaped model on one GPU: wall-clock per task and peak GPU memory, on the sample and
on the sample replicated to the real task sizes.

The model has Qwen2.5-7B's shape (7.6B parameters: 28 layers, hidden 3,584, 28 query / 4 KV heads, vocabulary
152,064) with random bf16 weights, built on the GPU and saved with `save_pretrained` (safetensors) to a local
folder, then loaded through `hf:<folder>` with the default placement, as a submitted model is. Its tokenizer is a
byte-level BPE trained on the prompts (`--vocab`, default 8,000), so prompts are somewhat longer in tokens than
Qwen's own tokenizer makes them. A random model seldom writes its end token: every generation runs to the task's
`max_new_tokens` (an upper bound on a real model's time), and its caption lists do not parse, so
caption_generation can end unscored (its time is still measured).

Every task runs through `nycc_bench.evaluate` (what `nycc-bench evaluate --tasks all` calls) with the offline
judges trained on the sample (reward model for caption_generation, embedding grader for HumorBench), in this
process so each task's wall-clock (answering and scoring) and peak memory can be read: `torch` peak allocated and
the device's used memory (what nvidia-smi shows), sampled every 50 ms.

`--scaled`: the sample's test rows replicated under new ids to the real sizes (`--sizes`, default matching,
matching_5shot and ranking 5 folds x 528, explanation 5 x 130, caption_generation 91 contests of 10 captions,
HumorBench 499 items), one `evaluate` call per task, stopping before a task once `--budget-s` has passed.
`--tiny` runs a 2-layer model of the same family on CPU (a check of the script). Last line: one JSON object.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import torch

sys.path.insert(0, str(Path(__file__).parent))
from gpu import environment, every_instance, save_tokenizer

from nycc_bench.builders import build_dataset
from nycc_bench.evaluation import evaluate
from nycc_bench.offline_judges import train_offline_judges
from nycc_bench.paths import SAMPLE_DIR
from nycc_bench.systems import make_system
from nycc_bench.tasks import resolve_tasks

QWEN_7B = dict(vocab_size=152064, hidden_size=3584, intermediate_size=18944, num_hidden_layers=28,
               num_attention_heads=28, num_key_value_heads=4, max_position_embeddings=32768, rope_theta=1e6,
               rms_norm_eps=1e-6, tie_word_embeddings=False, use_sliding_window=False)
TINY = dict(vocab_size=2048, hidden_size=64, intermediate_size=128, num_hidden_layers=2, num_attention_heads=4,
            num_key_value_heads=2, max_position_embeddings=4096, tie_word_embeddings=False)
SIZES = "matching=528,ranking=528,explanation=130,caption_generation=91,humorbench=499"
HESSEL = ("matching", "ranking", "explanation")
FOLDS = 5


def build_model(folder: Path, corpus: list[str], shape: dict[str, Any], vocab: int) -> None:
    """Save a random Qwen2 of `shape` (bf16 on the GPU when there is one) and a BPE tokenizer."""
    from transformers import Qwen2Config, Qwen2ForCausalLM

    save_tokenizer(folder, corpus, vocab)
    torch.manual_seed(0)
    cuda = torch.cuda.is_available()
    dtype = torch.bfloat16 if cuda else torch.float32
    config = Qwen2Config(**shape, bos_token_id=1, eos_token_id=2, pad_token_id=0, dtype=dtype)
    default = torch.get_default_dtype()
    torch.set_default_dtype(dtype)
    try:
        with torch.device("cuda" if cuda else "cpu"):
            model = Qwen2ForCausalLM(config)
    finally:
        torch.set_default_dtype(default)
    model.save_pretrained(folder)  # safetensors
    (folder / "README.md").write_text("---\nlicense: mit\nlibrary_name: transformers\n---\n\nA random Qwen2.5-7B "
                                      "shape for timing.\n")
    del model
    if cuda:
        torch.cuda.empty_cache()


def replicate(table: Any, n: int, id_column: str, offset: int | None = None) -> Any:
    """`n` rows cycling through `table`'s, each with a new id (`<id>#<k>`, or `id + offset * k` for integers)."""
    import pyarrow as pa

    rows = table.take(pa.array([k % table.num_rows for k in range(n)]))
    ids = rows.column(id_column).to_pylist()
    new = [i + offset * (k // table.num_rows) for k, i in enumerate(ids)] if offset else \
        [f"{i}#{k // table.num_rows}" for k, i in enumerate(ids)]
    index = rows.schema.get_field_index(id_column)
    return rows.set_column(index, rows.schema.field(index), pa.array(new, type=rows.schema.field(index).type))


def scale_dataset(sample: Path, out: Path, sizes: dict[str, int]) -> None:
    """A copy of the built sample whose test splits are replicated to `sizes` (Hessel: per fold, FOLDS folds)."""
    import pyarrow.parquet as pq

    shutil.copytree(sample, out)
    data = out / "data"

    def write(config: str, table: Any) -> None:
        (data / config).mkdir(exist_ok=True)
        pq.write_table(table, data / config / "test-00000-of-00001.parquet")

    for base in HESSEL:
        source = sorted(p.name for p in data.glob(f"{base}*") if p.name == base or p.name[len(base) + 1:].isdigit())
        for fold in range(FOLDS):
            config = base + (f"_{fold}" if fold else "")
            origin = data / source[fold % len(source)]
            if config != origin.name:
                shutil.copytree(origin, data / config, dirs_exist_ok=True)
            write(config, replicate(pq.read_table(origin / "test-00000-of-00001.parquet"), sizes[base], "instance_id"))
    captions = pq.read_table(data / "caption_generation" / "test-00000-of-00001.parquet")
    described = [k for k, row in enumerate(captions.select(["gpt4o_canny", "image_description", "description"])
                                           .to_pylist()) if any(row.values())]  # the contests that can be prompted
    captions = captions.take(described)
    write("caption_generation", replicate(captions, sizes["caption_generation"], "contest_number", offset=100000))
    humor = pq.read_table(data / "humorbench" / "test-00000-of-00001.parquet")
    per_row = [len(e) for e in humor.column("elements").to_pylist()]
    rows, total = 0, 0
    while total < sizes["humorbench"]:
        total += per_row[rows % len(per_row)]
        rows += 1
    write("humorbench", replicate(humor, rows, "caption_id"))


class MemoryWatch(threading.Thread):
    """The device's used memory (bytes, all processes: what nvidia-smi shows), sampled until stopped."""

    def __init__(self, every_s: float = 0.05) -> None:
        super().__init__(daemon=True)
        self.every_s, self.peak, self.stopped = every_s, 0, threading.Event()

    def used(self) -> int:
        free, total = torch.cuda.mem_get_info()
        return total - free

    def reset(self) -> int:
        """Start a new interval; the peak of the last one."""
        peak, self.peak = self.peak, self.used()
        return peak

    def run(self) -> None:
        while not self.stopped.wait(self.every_s):
            self.peak = max(self.peak, self.used())


def count_lines(paths: list[Path]) -> int:
    return sum(len(p.read_text().splitlines()) for p in paths if p.exists())


def run(system: Any, names: list[str], dataset: str, judges: dict[str, Any], out: Path, one_call: bool,
        budget_s: float, watch: MemoryWatch | None, figures: dict[str, Any], save: Any) -> dict[str, Any]:
    """Every task through `evaluate` (one call, or one call per task within the budget) into `figures`, per task;
    `save()` after each call."""
    cuda = torch.cuda.is_available()
    started = time.perf_counter()
    current: list[Any] = [None, 0.0, 0]  # task, start time, generated tokens at its start

    def close() -> None:
        name, since, tokens = current
        if name is None:
            return
        entry = figures[name] = {"wall_s": round(time.perf_counter() - since, 1),
                                 "generated_tokens": system.generated_tokens - tokens}
        if cuda:
            entry["peak_allocated_gib"] = round(torch.cuda.max_memory_allocated() / 2**30, 2)
        if watch is not None:
            entry["peak_device_used_gib"] = round(watch.reset() / 2**30, 2)
        print(f"  done: {name} in {entry['wall_s']} s, {entry['generated_tokens']} new tokens", flush=True)

    def on_task(name: str, index: int, total: int) -> None:
        close()
        if cuda:
            torch.cuda.reset_peak_memory_stats()
        current[:] = [name, time.perf_counter(), system.generated_tokens]

    groups = [names] if one_call else [[n] for n in names]
    records = []
    for group in groups:
        if time.perf_counter() - started > budget_s:
            for name in group:
                figures[name] = {"not_run": f"over the {budget_s:.0f} s budget"}
            continue
        result = evaluate(system, group, dataset=dataset, judge=judges, out=out if one_call else out / group[0],
                          progress=False, raise_errors=False, on_task=on_task)
        close()
        current[0] = None
        records.append(result.record)
        save()
    for record in records:
        for name in (*record["tasks"], *record["errors"]):
            folder = (out if one_call else out / name) / "predictions"
            figures[name]["items"] = count_lines([*folder.glob(f"{name}.jsonl"), *folder.glob(f"{name}_fold*.jsonl")])
        for name, why in {**record["skipped"], **record["errors"]}.items():
            figures[name]["skipped" if name in record["skipped"] else "error"] = why[:200]
    figures["_total_s"] = round(time.perf_counter() - started, 1)
    return figures


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tiny", action="store_true", help="a 2-layer model on CPU (a check of the script)")
    ap.add_argument("--quick", action="store_true",
                    help="CI mode: --tiny --no-judges (on the GPU when there is one, else CPU)")
    ap.add_argument("--scaled", action="store_true", help="also run the sample replicated to the real sizes")
    ap.add_argument("--only-scaled", action="store_true", help="run the scaled dataset only (not the sample)")
    ap.add_argument("--sizes", default=SIZES, help=f"scaled test sizes (default {SIZES})")
    ap.add_argument("--scaled-tasks", default="all", help="tasks of the scaled run, in order (default all)")
    ap.add_argument("--budget-s", type=float, default=1e9, help="scaled run: start no task after this many s")
    ap.add_argument("--no-judges", action="store_true",
                    help="no judges: the judged tasks are answered and timed, then listed as needing a judge")
    ap.add_argument("--vocab", type=int, default=8000, help="the BPE tokenizer's vocabulary")
    ap.add_argument("--work", help="folder for the model, datasets and runs (default: a temporary one)")
    ap.add_argument("--json-out", help="also write the figures here after each stage")
    args = ap.parse_args()
    args.tiny = args.tiny or args.quick
    args.no_judges = args.no_judges or args.quick
    import datasets
    import transformers

    datasets.disable_progress_bars()
    transformers.utils.logging.disable_progress_bar()
    cuda = torch.cuda.is_available()
    figures: dict[str, Any] = {"model": "random Qwen2 (tiny)" if args.tiny else "random Qwen2 (Qwen2.5-7B shape)",
                               **environment()}
    lines: list[str] = []

    def save() -> None:
        if args.json_out:
            Path(args.json_out).write_text(json.dumps(figures, indent=1))

    with tempfile.TemporaryDirectory() as tmp:
        work = Path(args.work or tmp)
        sample = work / "sample"
        if not sample.exists():
            build_dataset(SAMPLE_DIR, sample, progress=False)
        t = time.perf_counter()
        if args.no_judges:
            judges: dict[str, Any] = {}
        else:
            judges = train_offline_judges(sample, work / "judges", SAMPLE_DIR / "humorbench_reubennarad" / "rubric")
            figures["judges_trained_s"] = round(time.perf_counter() - t, 1)
        figures["judged"] = bool(judges)
        folder = work / "model"
        corpus = [i.user for name in ("explanation", "matching", "ranking") for i in every_instance(name, str(sample))]
        t = time.perf_counter()
        if not (folder / "config.json").exists():  # a `--work` folder of an earlier run keeps its model
            build_model(folder, corpus, TINY if args.tiny else QWEN_7B, 1000 if args.tiny else args.vocab)
            figures["built_and_saved_s"] = round(time.perf_counter() - t, 1)
        figures["saved_gib"] = round(sum(f.stat().st_size for f in folder.glob("*.safetensors")) / 2**30, 2)
        watch = MemoryWatch() if cuda else None
        if watch is not None:
            figures["device_used_before_load_gib"] = round(watch.used() / 2**30, 2)
            watch.start()
        t = time.perf_counter()
        system = make_system(f"hf:{folder}", str(sample))
        figures["load_s"] = round(time.perf_counter() - t, 1)
        params = system.describe()["parameters"]
        figures["params_b"] = round(params / 1e9, 3)
        lines.append(f"model: {figures['model']}, {params / 1e9:.2f}B parameters, {figures['saved_gib']} GiB "
                     f"safetensors, built and saved in {figures.get('built_and_saved_s', '(earlier)')} s")
        figures["placement"] = {k: system.describe()[k] for k in ("dtype", "device", "kv_cache", "compile",
                                                                    "batch_size")}
        if cuda:
            figures["weights_allocated_gib"] = round(torch.cuda.memory_allocated() / 2**30, 2)
        lines.append(f"loaded in {figures['load_s']} s: {figures['placement']}")
        names = resolve_tasks("all")
        runs = [] if args.only_scaled else [("sample", str(sample), names, True)]
        if args.scaled or args.only_scaled:
            sizes = {k: int(v) for k, v in (kv.split("=") for kv in args.sizes.split(","))}
            scaled = work / "scaled"
            if not scaled.exists():
                scale_dataset(sample, scaled, sizes)
            figures["scaled_sizes"] = {**sizes, "folds": FOLDS}
            runs.append(("scaled", str(scaled), resolve_tasks(args.scaled_tasks), False))
        for label, dataset, tasks, one_call in runs:
            per_task = figures[label] = {}
            run(system, tasks, dataset, judges, work / "runs" / label, one_call,
                args.budget_s if label == "scaled" else 1e9, watch, per_task, save)
            save()
            lines.append(f"{label}: {per_task['_total_s']} s in all")
            for name in tasks:
                entry = per_task.get(name, {})
                if "wall_s" not in entry:
                    lines.append(f"  {name:<24} {entry.get('not_run') or 'not run'}")
                    continue
                note = entry.get("skipped") or entry.get("error") or ""
                peak = f"{entry.get('peak_allocated_gib', '-')} GiB, device {entry.get('peak_device_used_gib', '-')}"
                lines.append(f"  {name:<24} {entry['wall_s']:>7} s  {entry.get('items', 0):>5} items  "
                             f"{entry['generated_tokens']:>8} new tokens  peak allocated {peak} GiB  {note[:80]}")
        if watch is not None:
            watch.stopped.set()
    print("\n".join(lines))
    save()
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
