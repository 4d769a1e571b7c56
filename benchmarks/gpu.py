"""GPU throughput of the `hf:` system against the naive way, in one run: generation and multiple choice.

The model is a randomly initialised Llama built from a config: by default Llama-3.2-1B's shape (1.24B parameters,
16 layers, hidden 2,048, vocabulary 128,256), with `--tiny` a 2-layer one that runs on CPU in seconds. Its
tokenizer is a byte-level BPE trained on the prompts (the model's vocabulary is larger; ids past the tokenizer's
decode to nothing, which changes no timing). Both are saved to a temporary folder and loaded through `hf:<folder>`
as any submitted model would be, with the default placement (bf16 on the GPU; fp32 on CPU).

Generation: the explanation prompts of `--dataset` (default: the embedded sample, built here), every split and
fold, greedy, `--new-tokens` new tokens each.
- plain: one `model.generate` per batch in the order given, padded to its longest prompt, dynamic cache, no
  compilation, at batch 128/256/512 (`--prompts-per-batch` x batch prompts; default 1);
- ours: `CausalLMSystem.generate` fed as the runner feeds it (`system.batch_size` instances a call) on
  `--prompts-per-batch` x the largest batch prompts, with the default placement: static batches (prompts sorted by
  length, sized from free GPU memory, static KV cache whose decoding step `generate` compiles); `--ours-batch N`
  adds a fixed batch of N, `--continuous` transformers' continuous batching (`batching=continuous`, opt-in);
- the weight-read bound: a decoding step reads every weight once, so at most batch x HBM bandwidth / weight bytes
  tokens/s (bandwidth measured here by a device-to-device copy).
Tokens are counted up to each sequence's end (EOS included), the same way for all. Ours runs once untimed first on
the very prompts it is timed on (so every shape is compiled and every CUDA graph recorded before the clock starts;
the compilations are counted and printed), then once timed; plain (nothing to compile) warms up on one short batch.

Multiple choice: the matching prompts (5 letters), repeated to `--mc-instances`, each made distinct by a numbered
first line (identical prompts share one forward pass, which would time nothing); ours is `choose` fed as the
runner feeds it (one row per prompt, batched by tokens, log-likelihood of the letter through decoder + head) with
the default placement (eager; `--mc-compile` also times `compile=true`), and at batch 8; naive is one unpadded
forward pass per (prompt, letter) on `--naive-mc-instances` of them. The chosen letters of ours and naive are
compared.

Multiple choice against the FLOP bound: an instance costs about 2 x (non-embedding parameters) x (its prompt's
tokens) FLOPs (attention and the one row of logits kept add a few percent, not counted), and the bound is the bf16
matrix-product rate measured here (an 8192^3 product) over that; `mc_fraction_of_flop_bound` = ours / bound.

Last line: one JSON object (`generation_speedup` = ours at its best / plain at its best batch, in tokens/s).
"""

from __future__ import annotations

import argparse
import copy
import datetime as dt
import json
import platform
import tempfile
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import torch

from nycc_bench.builders import build_dataset
from nycc_bench.kinds import Instance
from nycc_bench.kinds.instances import build_instances
from nycc_bench.paths import SAMPLE_DIR
from nycc_bench.systems import make_system
from nycc_bench.systems.hf import AUTO_MAX_BATCH, generation_config
from nycc_bench.systems.hf_causal import COMPILE_AFTER_ROWS
from nycc_bench.tasks import get_task

LLAMA_1B = dict(vocab_size=128256, hidden_size=2048, intermediate_size=8192, num_hidden_layers=16,
                num_attention_heads=32, num_key_value_heads=8, head_dim=64, tie_word_embeddings=True,
                max_position_embeddings=8192, rope_theta=500000.0, rms_norm_eps=1e-5)
TINY = dict(vocab_size=2048, hidden_size=64, intermediate_size=128, num_hidden_layers=2, num_attention_heads=4,
            num_key_value_heads=2, head_dim=16, tie_word_embeddings=True, max_position_embeddings=4096)
TEMPLATE = ("{{ bos_token }}{% for m in messages %}<|{{ m.role }}|>\n{{ m.content }}<|end|>\n{% endfor %}"
            "{% if add_generation_prompt %}<|assistant|>\n{% endif %}")
BATCHES = (128, 256, 512)


def save_tokenizer(folder: Path, corpus: list[str], vocab: int) -> None:
    """Train and save a byte-level BPE tokenizer with a chat template on `corpus` (no download)."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, processors, trainers
    from transformers import PreTrainedTokenizerFast

    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    tok.train_from_iterator(corpus, trainers.BpeTrainer(vocab_size=vocab, special_tokens=["<pad>", "<s>", "<|end|>"],
                                                        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
                                                        show_progress=False))
    tok.post_processor = processors.TemplateProcessing(single="<s> $A", special_tokens=[("<s>", 1)])
    PreTrainedTokenizerFast(tokenizer_object=tok, bos_token="<s>", eos_token="<|end|>", pad_token="<pad>",
                            chat_template=TEMPLATE).save_pretrained(folder)


def build_model(folder: Path, corpus: list[str], shape: dict[str, Any], vocab: int) -> int:
    """Save a random Llama of `shape` (built on the GPU in bf16 when there is one) and a BPE tokenizer."""
    from transformers import LlamaConfig, LlamaForCausalLM

    save_tokenizer(folder, corpus, vocab)
    torch.manual_seed(0)
    cuda = torch.cuda.is_available()
    with torch.device("cuda" if cuda else "cpu"):
        model = LlamaForCausalLM(LlamaConfig(**shape, bos_token_id=1, eos_token_id=2, pad_token_id=0))
    model.to(torch.bfloat16 if cuda else torch.float32).save_pretrained(folder)
    n = sum(p.numel() for p in model.parameters())
    del model
    if cuda:
        torch.cuda.empty_cache()
    return n


def repeated(instances: list[Instance], n: int) -> list[Instance]:
    """`n` instances cycling through the given ones, each with its own id."""
    return [replace(instances[k % len(instances)], instance_id=f"{instances[k % len(instances)].instance_id}#{k}")
            for k in range(n)]


def distinct(instances: list[Instance], n: int) -> list[Instance]:
    """`n` instances cycling through the given ones, each prompt made unique by a numbered first line (scoring
    shares one forward pass among identical prompts, so repeated prompts would not be scored again)."""
    return [replace(inst, user=f"Item {k}.\n{inst.user}") for k, inst in enumerate(repeated(instances, n))]


def every_instance(task_name: str, dataset: str) -> list[Instance]:
    """A task's instances over every split and fold the dataset has."""
    task = get_task(task_name)
    out: list[Instance] = []
    for fold in task.folds if task.has_folds else (0,):
        for split in ("train", "validation", "test"):
            try:
                out += build_instances(task, dataset, split, fold)
            except Exception:  # a split or fold the dataset does not have
                continue
    return out


def sync() -> None:
    if torch.cuda.is_available():
        torch.cuda.synchronize()


def count_tokens(new: Any, eos: int) -> int:
    """New tokens up to and including each row's first EOS."""
    ended = new == eos
    return int(torch.where(ended.any(-1), ended.int().argmax(-1) + 1, new.shape[1]).sum())


def plain_generate(system: Any, task: Any, instances: list[Instance], batch: int) -> int:
    """Generation as before this change: one `model.generate` per runner batch, unsorted, dynamic cache."""
    config = generation_config(system.model, system.tokenizer, system.decoding(task))
    tokens = 0
    for start in range(0, len(instances), batch):
        enc = system.tokenizer([system.prompt(i) for i in instances[start:start + batch]], padding=True,
                               add_special_tokens=not system.chat, return_tensors="pt")
        with torch.inference_mode():
            out = system.model.generate(input_ids=enc["input_ids"].to(system.model.device),
                                        attention_mask=enc["attention_mask"].to(system.model.device),
                                        generation_config=config)
        tokens += count_tokens(out[:, enc["input_ids"].shape[1]:], system.tokenizer.eos_token_id)
    return tokens


def our_generate(system: Any, task: Any, instances: list[Instance]) -> int:
    """Generation through the system, fed as the runner feeds it."""
    before = system.generated_tokens
    for start in range(0, len(instances), system.batch_size):
        system.generate(task, instances[start:start + system.batch_size])
    return system.generated_tokens - before


def timed(fn: Any, *args: Any) -> tuple[float, Any]:
    sync()
    start = time.perf_counter()
    result = fn(*args)
    sync()
    return time.perf_counter() - start, result


def naive_choose(system: Any, instances: list[Instance]) -> list[str]:
    """One unpadded forward pass per (prompt, letter), full logits; the letter with the highest log-likelihood."""
    tok, model = system.tokenizer, system.model
    letters = []
    for inst in instances:
        text = system.choice_context(inst)
        ctx = tok(text, add_special_tokens=not system.chat)["input_ids"]
        scores = []
        for letter in inst.letters:
            cont = tok(f"{text} {letter}", add_special_tokens=not system.chat)["input_ids"][len(ctx):]
            with torch.inference_mode():
                logits = model(torch.tensor([ctx + cont], device=model.device)).logits[0]
            logprobs = logits[len(ctx) - 1:-1].float().log_softmax(-1)
            scores.append(float(logprobs[torch.arange(len(cont)), torch.tensor(cont, device=logprobs.device)].sum()))
        letters.append(inst.letters[max(range(len(scores)), key=scores.__getitem__)])
    return letters


class Echo(list):
    """Lines of the report, each printed as it is added (a run stopped at its time limit keeps what it measured)."""

    def __init__(self, first: list[str]) -> None:
        super().__init__()
        for line in first:
            self.append(line)

    def append(self, line: str) -> None:
        print(line, flush=True)
        super().append(line)


def runner_fed(system: Any, task: Any, instances: list[Instance]) -> list[Any]:
    """`choose` fed as the runner feeds it: `system.batch_size` instances a call."""
    return [o for s in range(0, len(instances), system.batch_size)
            for o in system.choose(task, instances[s:s + system.batch_size])]


def hbm_bandwidth(n_bytes: int = 2**31, repeat: int = 10) -> float:
    """Device memory bandwidth (bytes/s, read + write counted) of a device-to-device copy; 0 without CUDA."""
    if not torch.cuda.is_available():
        return 0.0
    a = torch.empty(n_bytes, dtype=torch.uint8, device="cuda")
    b = torch.empty_like(a)
    b.copy_(a)
    sync()
    start = time.perf_counter()
    for _ in range(repeat):
        b.copy_(a)
    sync()
    return 2 * n_bytes * repeat / (time.perf_counter() - start)


def matmul_tflops(n: int = 8192, repeat: int = 10) -> float:
    """The bf16 matrix-product rate of this GPU (TFLOP/s), measured on random data; 0 without CUDA."""
    if not torch.cuda.is_available():
        return 0.0
    a, b = (torch.randn(n, n, device="cuda", dtype=torch.bfloat16) for _ in range(2))
    for _ in range(3):
        a @ b
    sync()
    start = time.perf_counter()
    for _ in range(repeat):
        a @ b
    sync()
    return 2 * n**3 * repeat / (time.perf_counter() - start) / 1e12


def non_embedding_parameters(model: Any) -> int:
    """Parameters a token's forward pass multiplies by: all but the input embeddings and the output head."""
    skip = {id(model.get_input_embeddings().weight), id(model.get_output_embeddings().weight)}
    return sum(p.numel() for p in model.parameters() if id(p) not in skip)


def profile(system: Any, task: Any, instances: list[Instance], rows: int = 18) -> str:
    """The top kernels and operators of one `our_generate` on `instances` (already warmed up), by device time."""
    from torch.profiler import ProfilerActivity
    from torch.profiler import profile as torch_profile

    activities = [ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if torch.cuda.is_available() else [])
    with torch_profile(activities=activities) as prof:
        our_generate(system, task, instances)
        sync()
    key = "self_cuda_time_total" if torch.cuda.is_available() else "self_cpu_time_total"
    return f"  profile of ours on {len(instances)} prompts:\n" + prof.key_averages().table(sort_by=key, row_limit=rows)


def compilations() -> int:
    """Frames torch.compile has compiled in this process so far (first compilations and recompilations)."""
    try:
        from torch._dynamo.utils import counters
    except ImportError:
        return 0
    return int(counters["stats"].get("unique_graphs", 0))


def environment() -> dict[str, Any]:
    """The machine and library versions the figures were measured with."""
    import transformers

    gpu = torch.cuda.get_device_name(0) if torch.cuda.is_available() else None
    return {"date": dt.date.today().isoformat(), "gpu": gpu, "cpu_threads": torch.get_num_threads(),
            "torch": torch.__version__, "cuda": torch.version.cuda, "transformers": transformers.__version__,
            "python": platform.python_version()}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tiny", action="store_true", help="a 2-layer model and short runs (a CPU check of the script)")
    ap.add_argument("--quick", action="store_true",
                    help="CI mode: --tiny, batches 4 and 8, 8 new tokens, 16 multiple-choice instances "
                         "(GPU if any, else CPU)")
    ap.add_argument("--dataset", help="a built dataset folder (default: the embedded sample, built here)")
    ap.add_argument("--batch-sizes", default=",".join(map(str, BATCHES)))
    ap.add_argument("--prompts-per-batch", type=int, help="generation prompts = this x batch (default 1)")
    ap.add_argument("--ours-batch", help="also time ours at this fixed batch (e.g. 512); `best`: at plain's best "
                                         "batch when that is past what auto picks")
    ap.add_argument("--continuous", action="store_true", help="also time ours with continuous batching")
    ap.add_argument("--mc-compile", action="store_true", help="also time multiple choice with compile=true")
    ap.add_argument("--profile", type=int, default=0, metavar="N",
                    help="after the timed runs, profile ours on N prompts (torch.profiler): the kernels and CPU ops "
                         "that take the time of a decoding step")
    ap.add_argument("--new-tokens", type=int, help="new tokens a prompt (default 256; tiny 16)")
    ap.add_argument("--mc-instances", type=int, help="matching instances for ours (default 2048; tiny 64)")
    ap.add_argument("--naive-mc-instances", type=int, help="of them for the naive way (default 32; tiny 16)")
    ap.add_argument("--skip", choices=["generation", "mc"], action="append", default=[])
    args = ap.parse_args()
    args.tiny = args.tiny or args.quick
    if args.quick:  # a check that every step runs: small batches, few tokens and instances
        args.batch_sizes, args.new_tokens = "4,8", args.new_tokens or 8
        args.mc_instances, args.naive_mc_instances = args.mc_instances or 16, args.naive_mc_instances or 4
    import datasets
    import transformers

    datasets.disable_progress_bars()
    transformers.utils.logging.disable_progress_bar()
    tiny = args.tiny
    per_batch = args.prompts_per_batch or 1
    new_tokens = args.new_tokens or (16 if tiny else 256)
    n_mc = args.mc_instances or (64 if tiny else 2048)
    n_naive_mc = min(n_mc, args.naive_mc_instances or (16 if tiny else 32))
    batches = [int(b) for b in args.batch_sizes.split(",")]

    with tempfile.TemporaryDirectory() as tmp:
        dataset = args.dataset
        if dataset is None:
            dataset = str(Path(tmp) / "sample")
            build_dataset(SAMPLE_DIR, Path(dataset), progress=False)
        explain, matching = every_instance("explanation", dataset), every_instance("matching", dataset)
        corpus = [i.user for i in explain + matching]
        t0 = time.perf_counter()
        n_params = build_model(Path(tmp) / "model", corpus, TINY if tiny else LLAMA_1B, 1000 if tiny else 8000)
        built_s = time.perf_counter() - t0
        spec = f"hf:{Path(tmp) / 'model'}"
        task = get_task("explanation")
        figures: dict[str, Any] = {"model": "random Llama (tiny)" if tiny else "random Llama (Llama-3.2-1B shape)",
                                   "params_b": round(n_params / 1e9, 4), "new_tokens": new_tokens,
                                   "build_s": round(built_s, 1), **environment()}
        lines = Echo([f"model: {figures['model']}, {n_params / 1e9:.3f}B parameters, built and saved in "
                      f"{built_s:.0f} s"])

        if "mc" not in args.skip:
            mc = get_task("matching")
            instances = distinct(matching, n_mc)
            auto = make_system(spec, dataset)  # the default placement: eager decoder + head, batched by tokens
            fixed = copy.copy(auto)
            fixed.fixed_batch = fixed.batch_size = 8
            runner_fed(auto, mc, instances[:256])  # warm-up: the decoder + head check, allocator, kernels
            fixed.choose(mc, instances[:8])
            t_auto, ours = timed(runner_fed, auto, mc, instances)
            n_fixed = min(n_mc, 128)
            t_fixed, _ = timed(lambda: [o for s in range(0, n_fixed, 8) for o in fixed.choose(mc, instances[s:s + 8])])
            naive_choose(auto, instances[:2])
            t_naive, naive = timed(naive_choose, auto, instances[:n_naive_mc])
            agree = sum(o.letter == x for o, x in zip(ours, naive, strict=False))
            tokens = [len(auto.tokenizer(auto.choice_context(i), add_special_tokens=not auto.chat)["input_ids"])
                      for i in instances]
            flops = 2 * non_embedding_parameters(auto.model) * sum(tokens) / len(tokens)
            peak = matmul_tflops()
            bound = peak * 1e12 / flops if peak else None
            lines.append(f"multiple choice: ours ({'decoder + head' if auto._scorer else 'own forward'}, eager) "
                         f"{n_mc / t_auto:.1f} instances/s, ours at batch 8 {n_fixed / t_fixed:.1f}, one pass per "
                         f"choice {n_naive_mc / t_naive:.1f}; letters agree on {agree}/{n_naive_mc}")
            if bound:
                lines.append(f"  prompts {sum(tokens) / len(tokens):.0f} tokens on average, {flops / 1e9:.0f} GFLOP "
                             f"an instance; bf16 matmul {peak:.0f} TFLOP/s here: bound {bound:.0f} instances/s, "
                             f"ours at {n_mc / t_auto / bound:.0%} of it")
            figures.update(mc_prompt_tokens=round(sum(tokens) / len(tokens), 1), mc_gflop_per_instance=round(
                flops / 1e9, 1), matmul_tflops=round(peak, 1), mc_flop_bound_instances_per_s=round(bound, 1)
                if bound else None, mc_fraction_of_flop_bound=round(n_mc / t_auto / bound, 3) if bound else None,
                mc_instances_per_s=round(n_mc / t_auto, 1), mc_decoder_head=bool(auto._scorer),
                mc_batch8_instances_per_s=round(n_fixed / t_fixed, 1),
                mc_naive_instances_per_s=round(n_naive_mc / t_naive, 1), mc_letters_agree=agree,
                mc_compared=n_naive_mc)
            if args.mc_compile:
                compiled = make_system(spec, dataset, compile=True)
                runner_fed(compiled, mc, instances[:COMPILE_AFTER_ROWS + 256])  # eager rows, then the compilation
                t_compiled, _ = timed(runner_fed, compiled, mc, instances)
                lines.append(f"  compile=true: {n_mc / t_compiled:.1f} instances/s "
                             f"({'compiled' if compiled._compile_tried and compiled._scorer else 'not compiled'})")
                figures["mc_compiled_instances_per_s"] = round(n_mc / t_compiled, 1)
                del compiled
            del auto, fixed
            if torch.cuda.is_available():
                torch.cuda.empty_cache()

        if "generation" not in args.skip:
            system = make_system(spec, dataset, temperature=0.0, max_new_tokens=new_tokens)
            figures["placement"] = {k: system.describe()[k]
                                    for k in ("dtype", "device", "kv_cache", "compile", "batching")}
            lengths = [len(system.tokenizer(system.prompt(i), add_special_tokens=False)["input_ids"]) for i in explain]
            lines.append(f"generation: {len(explain)} distinct explanation prompts, {min(lengths)}-{max(lengths)} "
                         f"tokens; greedy, {new_tokens} new tokens; {system.describe()['dtype']} on "
                         f"{system.describe()['device']}; ours: static batches, kv cache "
                         f"{figures['placement']['kv_cache']}, compile {figures['placement']['compile']}")
            plain_tps: dict[int, float] = {}
            plain_generate(system, task, repeated(explain, 8), 8)  # warm-up: CUDA context, allocator, kernels
            for batch in batches:
                prompts = repeated(explain, per_batch * batch)
                seconds, tokens = timed(plain_generate, system, task, prompts, batch)
                plain_tps[batch] = tokens / seconds
                lines.append(f"  plain generate, batch {batch:>3} ({len(prompts)} prompts): "
                             f"{plain_tps[batch]:9.0f} tok/s ({seconds:.1f} s)")
            prompts = repeated(explain, per_batch * max(batches))
            ours_tps: dict[str, float] = {}
            variants: list[tuple[str, Any]] = [("auto", system)]
            best_plain_batch = max(plain_tps, key=plain_tps.__getitem__)
            ours_batch = best_plain_batch if args.ours_batch == "best" else int(args.ours_batch or 0)
            if ours_batch and not (args.ours_batch == "best" and ours_batch <= AUTO_MAX_BATCH):
                fixed_gen = copy.copy(system)  # the same model in memory, a fixed batch
                fixed_gen.fixed_batch = fixed_gen.batch_size = ours_batch
                variants.append((str(ours_batch), fixed_gen))
            if args.continuous and hasattr(system.model, "generate_batch"):
                cont = copy.copy(system)
                cont.continuous = True
                variants.append(("continuous", cont))
            for name, ours in variants:
                before = compilations()
                warm_s, _ = timed(our_generate, ours, task, prompts)  # same prompts: every shape compiled first
                seconds, tokens = timed(our_generate, ours, task, prompts)
                ours_tps[name] = tokens / seconds
                lines.append(f"  ours, batch {name} ({len(prompts)} prompts): {ours_tps[name]:9.0f} tok/s "
                             f"({seconds:.1f} s; untimed first run {warm_s:.1f} s, {compilations() - before} "
                             f"graphs compiled)")
            if args.profile:
                lines.append(profile(system, task, prompts[:args.profile]))
            best_plain = max(plain_tps.values())
            best_ours = max(ours_tps.values())
            bandwidth = hbm_bandwidth()
            weights = sum(p.numel() * p.element_size() for p in system.model.parameters())
            steps = bandwidth / weights  # decoding steps a second if each read every weight once, nothing else
            bound = {b: b * steps for b in (max(batches), AUTO_MAX_BATCH)} if bandwidth else {}
            lines.append(f"  ours at best x{best_ours / best_plain:.2f} plain at its best batch "
                         f"({best_plain_batch}: {best_plain:.0f} tok/s)")
            if bandwidth:
                lines.append(f"  weight-read bound ({weights / 2**30:.2f} GiB of weights, {bandwidth / 1e12:.2f} TB/s "
                             f"measured, {steps:.0f} decoding steps/s): "
                             f"{bound[AUTO_MAX_BATCH]:.0f} tok/s at {AUTO_MAX_BATCH} sequences a step; ours at "
                             f"{ours_tps['auto'] / bound[AUTO_MAX_BATCH]:.1%} of it")
            figures.update(
                generation_speedup=round(best_ours / best_plain, 2),
                plain_best_batch=best_plain_batch,
                tokens_per_s={k: round(v, 1) for k, v in ours_tps.items()},
                plain_tokens_per_s={str(k): round(v, 1) for k, v in plain_tps.items()},
                hbm_tb_per_s=round(bandwidth / 1e12, 2) if bandwidth else None,
                weight_bytes=weights,
                weight_read_bound_tokens_per_s={str(b): round(v) for b, v in bound.items()},
                fraction_of_weight_read_bound=round(ours_tps["auto"] / bound[AUTO_MAX_BATCH], 3) if bound else None)
            del system
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
