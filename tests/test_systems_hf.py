"""The Hugging Face systems (`hf:`, `vlm:`, `clip:`) end to end on the sample, with tiny random models built here.

Device-agnostic: on a CUDA machine the models load where the code places them (bf16 on the GPU) and the
comparisons of batched against one-pass results use tolerances that hold in bf16; on CPU (fp32) they are exact
or to 1e-4. The `gpu` mark: run these on a GPU machine too (`pytest -m gpu`).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from nycc_bench.errors import NyccBenchError

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

from nycc_bench.builders import build_dataset  # noqa: E402
from nycc_bench.kinds.instances import build_instances  # noqa: E402
from nycc_bench.paths import SAMPLE_DIR  # noqa: E402
from nycc_bench.predictions import UNPARSED  # noqa: E402
from nycc_bench.runner import run_task  # noqa: E402
from nycc_bench.systems import make_system  # noqa: E402
from nycc_bench.systems.hf import MAX_NEW_TOKENS, auto_batch_size, batch_option, max_new_tokens  # noqa: E402
from nycc_bench.systems.hf_causal import CausalLMSystem  # noqa: E402
from nycc_bench.tasks import get_task  # noqa: E402

pytestmark = pytest.mark.gpu
CUDA = torch.cuda.is_available()

SPECIAL = ["<pad>", "<s>", "<image>", "<|end|>"]
TEMPLATE = (
    "{{ bos_token }}{% for m in messages %}<|{{ m.role }}|>\n"
    "{% if m.content is string %}{{ m.content }}{% else %}{% for p in m.content %}"
    "{% if p.type == 'image' %}<image>\n{% else %}{{ p.text }}{% endif %}{% endfor %}{% endif %}<|end|>\n"
    "{% endfor %}{% if add_generation_prompt %}<|assistant|>\n{% endif %}"
)
CORPUS = [f"Answer: {x}" for x in "ABCDE"] * 4 + [
    "In this task, you will see a description of a New Yorker cartoon and five captions.",
    "Which caption truly corresponds to the described cartoon? Explain the joke to a friend.",
    "A doctor holding a clipboard is speaking to a patient in a hospital bed.",
]
NEW_TOKENS = 12  # generation length in the end-to-end runs (the defaults are checked separately)


def expected_placement() -> tuple[str, str]:
    """(dtype, device) the default placement gives here: bf16 (fp16 without bf16) on the first GPU, else fp32 CPU."""
    if not CUDA:
        return "float32", "cpu"
    return ("bfloat16" if torch.cuda.is_bf16_supported() else "float16"), "cuda:0"


def exact(model: Any) -> bool:
    """Whether the model computes in fp32, where batched and one-pass results agree to 1e-4 (bf16 does not)."""
    return model.dtype == torch.float32


def ll_tolerance(model: Any) -> float:
    """Absolute tolerance on a summed log-probability: 1e-4 in fp32; in 16-bit a few units of its rounding."""
    return 1e-4 if exact(model) else 0.1


def assert_greedy(model: Any, prompt: list[int], new: list[int], eos: int) -> None:
    """Each generated token is (up to numerical ties) the argmax of one unpadded pass over prompt + text so far."""
    new = new[:new.index(eos) + 1] if eos in new else new
    with torch.inference_mode():
        logits = model(torch.tensor([prompt + new], device=model.device)).logits[0].float()
    steps = logits[len(prompt) - 1:len(prompt) - 1 + len(new)]
    tol = 1e-4 if exact(model) else 0.05 * float(steps.abs().max())
    chosen = steps[torch.arange(len(new)), torch.tensor(new, device=steps.device)]
    assert bool((chosen >= steps.max(-1).values - tol).all()), (new, (steps.max(-1).values - chosen).tolist())


def captured_generate(system: CausalLMSystem) -> list[tuple[Any, Any]]:
    """Record (input_ids, output ids) of every `model.generate` call the system makes (an instance attribute)."""
    calls: list[tuple[Any, Any]] = []
    real = type(system.model).generate

    def generate(*args: Any, **kwargs: Any) -> Any:
        out = real(system.model, *args, **kwargs)
        calls.append((kwargs["input_ids"].cpu(), out.cpu()))
        return out

    system.model.generate = generate
    return calls


def _tokenizer(clip: bool = False) -> Any:
    """A byte-level BPE trained on a few sentences: " A".." E" are single tokens, " Q" and " Z" are two."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, processors, trainers

    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    tok.train_from_iterator(CORPUS, trainers.BpeTrainer(vocab_size=400, special_tokens=SPECIAL, show_progress=False,
                                                        initial_alphabet=pre_tokenizers.ByteLevel.alphabet()))
    ids = [("<s>", tok.token_to_id("<s>")), ("<|end|>", tok.token_to_id("<|end|>"))]
    # Llama-style BOS; CLIP's text tower pools at the EOS, so its tokenizer appends one
    tok.post_processor = processors.TemplateProcessing(single="<s> $A <|end|>" if clip else "<s> $A",
                                                       special_tokens=ids)
    return transformers.PreTrainedTokenizerFast(
        tokenizer_object=tok, bos_token="<s>", eos_token="<|end|>", pad_token="<pad>",
        chat_template=None if clip else TEMPLATE, model_max_length=77 if clip else 2048)


def _text_config(tok: Any) -> dict:
    return dict(vocab_size=len(tok), hidden_size=32, intermediate_size=64, num_hidden_layers=2, num_attention_heads=4,
                num_key_value_heads=2, bos_token_id=tok.bos_token_id, eos_token_id=tok.eos_token_id,
                pad_token_id=tok.pad_token_id)


TINY_VISION = dict(hidden_size=32, intermediate_size=64, num_hidden_layers=2, num_attention_heads=4, image_size=32,
                   patch_size=8)


def _image_processor() -> Any:
    return transformers.CLIPImageProcessor(size={"shortest_edge": 32}, crop_size={"height": 32, "width": 32})


@pytest.fixture(scope="module")
def dataset(tmp_path_factory: pytest.TempPathFactory) -> str:
    out = tmp_path_factory.mktemp("hf_sample")
    build_dataset(SAMPLE_DIR, out, progress=False)
    return str(out)


@pytest.fixture(scope="module")
def folders(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Tiny random Llama (with and without a chat template), Llava and CLIP, saved as local model folders."""
    root = tmp_path_factory.mktemp("hf_models")
    torch.manual_seed(0)
    tok = _tokenizer()
    llama = root / "llama"
    transformers.LlamaForCausalLM(transformers.LlamaConfig(**_text_config(tok))).save_pretrained(llama)
    tok.save_pretrained(llama)
    plain = root / "llama_plain"
    shutil.copytree(llama, plain)
    (plain / "chat_template.jinja").unlink()

    llava = root / "llava"
    config = transformers.LlavaConfig(vision_config=transformers.CLIPVisionConfig(**TINY_VISION),
                                      text_config=transformers.LlamaConfig(**_text_config(tok)),
                                      image_token_id=tok.convert_tokens_to_ids("<image>"), vision_feature_layer=-1)
    transformers.LlavaForConditionalGeneration(config).save_pretrained(llava)
    transformers.LlavaProcessor(image_processor=_image_processor(), tokenizer=tok, patch_size=8, image_token="<image>",
                                vision_feature_select_strategy="default", num_additional_image_tokens=1,
                                chat_template=TEMPLATE).save_pretrained(llava)

    clip_tok = _tokenizer(clip=True)
    clip = root / "clip"
    text = {k: v for k, v in _text_config(clip_tok).items() if k != "num_key_value_heads"}
    transformers.CLIPModel(transformers.CLIPConfig(text_config={**text, "max_position_embeddings": 77},
                                                   vision_config=TINY_VISION, projection_dim=16)).save_pretrained(clip)
    transformers.CLIPProcessor(image_processor=_image_processor(), tokenizer=clip_tok).save_pretrained(clip)
    return {"llama": llama, "llama_plain": plain, "llava": llava, "clip": clip}


@pytest.fixture(scope="module")
def hf(folders: dict[str, Path], dataset: str) -> CausalLMSystem:
    return make_system(f"hf:{folders['llama']}", dataset, max_new_tokens=NEW_TOKENS)


def _naive_loglikelihood(model: Any, tok: Any, context: str, continuation: str, add_special: bool) -> float:
    """One forward pass per choice, no padding: the reference the batched path must reproduce."""
    ctx = tok(context, add_special_tokens=add_special)["input_ids"]
    cont = tok(context + continuation, add_special_tokens=add_special)["input_ids"][len(ctx):]
    with torch.no_grad():
        logits = model(torch.tensor([ctx + cont], device=model.device)).logits[0].float()
    logprobs = logits[len(ctx) - 1:-1].log_softmax(-1)
    return float(logprobs[torch.arange(len(cont)), torch.tensor(cont, device=logprobs.device)].sum())


def _contexts(instances: list, chat_tok: Any = None) -> list[str]:
    """The scoring contexts, written out independently of the system: the chat (system, earlier turns, user) with
    the assistant turn opened + "Answer:", or the plain prompt's parts joined, ending in "Answer:"."""
    out = []
    for i in instances:
        messages = ([{"role": "system", "content": i.system}] if i.system else []) + list(i.turns) + [
            {"role": "user", "content": i.user}]
        if chat_tok is not None:
            out.append(chat_tok.apply_chat_template(messages, tokenize=False, add_generation_prompt=True) + "Answer:")
        else:
            text = "\n\n".join(m["content"] for m in messages if m["content"])
            out.append(text if text.endswith("Answer:") else f"{text}\nAnswer:")
    return out


@pytest.mark.parametrize("variant", ["llama", "llama_plain"])
def test_batched_loglikelihood_equals_one_pass_per_choice(variant: str, folders: dict, dataset: str) -> None:
    """Matching (5 single-token letters), ranking, and letters of one and two tokens mixed, to 1e-4 in fp32."""
    system = make_system(f"hf:{folders[variant]}", dataset, batch_size=8)
    tok, model = system.tokenizer, system.model
    assert system.chat == (variant == "llama")
    assert len(tok(" A", add_special_tokens=False)["input_ids"]) == 1
    assert len(tok(" Q", add_special_tokens=False)["input_ids"]) == 2
    matching = build_instances(get_task("matching"), dataset)
    ranking = build_instances(get_task("ranking"), dataset)
    multi = [replace(ranking[0], letters="QZ"), replace(ranking[1], letters="AQ"), replace(matching[0], letters="ZBQ")]
    system.choose(get_task("matching"), matching[:1])  # the first call checks decoder + head against the model
    assert system._scorer  # a Llama is scored through its decoder and head (no attention mask, right padding)
    shapes: list[tuple[int, ...]] = []
    hook = model.get_decoder().register_forward_hook(
        lambda _m, args, kwargs, _o: shapes.append(tuple(kwargs["input_ids"].shape)), with_kwargs=True)
    try:
        outputs = system.choose(get_task("matching"), matching)
    finally:
        hook.remove()
    assert len(shapes) == 1 and shapes[0][0] == len(matching)  # one row per prompt: letters share the context row
    for instances in (matching, ranking, multi):
        outputs = system.choose(get_task("matching"), instances)
        contexts = _contexts(instances, tok if system.chat else None)
        for inst, ctx, out in zip(instances, contexts, outputs, strict=True):
            naive = [_naive_loglikelihood(model, tok, ctx, f" {x}", not system.chat) for x in inst.letters]
            got = list(out.raw["loglikelihoods"].values())
            assert list(out.raw["loglikelihoods"]) == list(inst.letters)
            assert got == pytest.approx(naive, abs=ll_tolerance(model))
            assert out.letter == inst.letters[max(range(len(got)), key=got.__getitem__)]
            # the letter is the one-pass argmax (in 16-bit: up to a tie within the tolerance)
            assert naive[inst.letters.index(out.letter)] >= max(naive) - (0 if exact(model) else ll_tolerance(model))


def test_every_scoring_path_gives_the_same_scores(hf: CausalLMSystem) -> None:
    """Decoder + head (right-padded, no mask), the model's own forward left-padded with position ids, and right-padded
    for models whose forward takes no position ids: the same scores."""
    requests = [("Answer the question. Answer:", [" A", " Q", " caption truly"]), ("Hi. Answer:", [" B", " Z"])]
    fast = hf.loglikelihood(requests)
    assert hf._scorer
    saved = hf._scorer, hf._left, hf._keep
    try:
        hf._scorer = False
        left = hf.loglikelihood(requests)
        hf._left = hf._keep = False
        right = hf.loglikelihood(requests)
    finally:
        hf._scorer, hf._left, hf._keep = saved
    for a, b, c in zip(fast, left, right, strict=True):
        assert a == pytest.approx(b, abs=ll_tolerance(hf.model))
        assert b == pytest.approx(c, abs=ll_tolerance(hf.model))


@pytest.mark.skipif(not CUDA, reason="needs a CUDA GPU")
def test_scoring_compiles_the_decoder_after_enough_rows(folders: dict, dataset: str) -> None:
    """CUDA, `compile=true` given: rows are scored eagerly until COMPILE_AFTER_ROWS, then through the compiled decoder,
    which gives the eager scores."""
    from nycc_bench.systems.hf_causal import COMPILE_AFTER_ROWS

    assert not make_system(f"hf:{folders['llama']}", dataset).compile_scoring  # not by default
    system = make_system(f"hf:{folders['llama']}", dataset, compile=True)
    assert system.compile_scoring
    requests = [(f"Item {k}. Which caption? Answer:", [" A", " B"]) for k in range(COMPILE_AFTER_ROWS + 64)]
    eager = system.loglikelihood(requests)
    assert system._compile_tried and type(system._scorer[0]).__name__ == "OptimizedModule"
    compiled = system.loglikelihood(requests[:64])
    for a, b in zip(eager, compiled, strict=False):
        assert a == pytest.approx(b, abs=ll_tolerance(system.model))


def test_a_head_that_disagrees_with_the_model_is_scored_through_its_forward(folders: dict, dataset: str) -> None:
    """A model whose logits are not decoder + head (here a scale and a bias applied in its forward) is caught by the
    one-time check and scored through its own forward, to the naive scores."""
    system = make_system(f"hf:{folders['llama']}", dataset, batch_size=8)
    forward = system.model.forward

    def scaled(*args: Any, **kwargs: Any) -> Any:
        out = forward(*args, **kwargs)
        out.logits = out.logits * 0.5
        out.logits[..., ::2] += 4.0  # large enough to show in 16-bit too
        return out

    system.model.forward = scaled
    requests = [("Hi. Answer:", [" B", " Z"]), ("Answer the question. Answer:", [" A", " Q"])]
    got = system.loglikelihood(requests)
    assert system._scorer is False
    for (ctx, conts), lls in zip(requests, got, strict=True):
        ids = system.tokenizer(ctx, add_special_tokens=not system.chat)["input_ids"]
        for cont, ll in zip(conts, lls, strict=True):
            whole = system.tokenizer(ctx + cont, add_special_tokens=not system.chat)["input_ids"]
            with torch.inference_mode():
                logits = system.model(input_ids=torch.tensor([whole], device=system.model.device)).logits[0]
            logprobs = logits.float().log_softmax(-1)
            naive = sum(float(logprobs[p - 1, whole[p]]) for p in range(len(ids), len(whole)))
            assert ll == pytest.approx(naive, abs=ll_tolerance(system.model))


def test_batched_generation_equals_one_at_a_time(folders: dict, dataset: str) -> None:
    """Left padding, attention masks and decoding of the new tokens only: batch and singles agree (fp32: the same
    text; 16-bit: every batched token is a greedy choice of one unpadded pass, up to ties)."""
    system = make_system(f"hf:{folders['llama']}", dataset, max_new_tokens=NEW_TOKENS, temperature=0.0,
                         batching="static")
    task = get_task("explanation")
    instances = build_instances(task, dataset)[:3]
    calls = captured_generate(system)
    batched = [o.raw for o in system.generate(task, instances)]
    assert len(calls) == 1 and calls[0][0].shape[0] == 3  # one batch of three
    singles = [system.generate(task, [i])[0].raw for i in instances]
    if exact(system.model):
        assert batched == singles
    ids, out = calls[0]
    for row in range(3):
        prompt = [t for t, m in zip(ids[row].tolist(), (ids[row] != system.tokenizer.pad_token_id).tolist(),
                                    strict=True) if m]
        assert_greedy(system.model, prompt, out[row, ids.shape[1]:].tolist(), system.tokenizer.eos_token_id)
    assert all(isinstance(t, str) and "Cartoon description" not in t for t in batched)


def test_sorted_batches_return_the_unsorted_texts_in_the_given_order(folders: dict, dataset: str) -> None:
    """Prompts of different lengths, given longest-last and split into batches of 2 (sorted by length inside): the
    same texts, in the same order, as one plain `model.generate` over the unsorted, padded batch."""
    system = make_system(f"hf:{folders['llama']}", dataset, max_new_tokens=NEW_TOKENS, temperature=0.0,
                         batch_size=2, batching="static")
    task = get_task("explanation")
    mixed = build_instances(task, dataset)[:3] + build_instances(get_task("matching"), dataset)[:2]
    instances = sorted(mixed, key=lambda i: len(system.prompt(i)))
    assert len({len(system.prompt(i)) for i in instances}) > 1
    calls = captured_generate(system)
    ours = [o.raw for o in system.generate(task, instances)]
    assert [c[0].shape[0] for c in calls] == [2, 2, 1]
    widths = [c[0].shape[1] for c in calls]
    assert widths == sorted(widths, reverse=True)  # longest prompts first
    enc = system.tokenizer([system.prompt(i) for i in instances], padding=True, add_special_tokens=False,
                           return_tensors="pt").to(system.model.device)
    config = transformers.GenerationConfig(max_new_tokens=NEW_TOKENS, do_sample=False,
                                           eos_token_id=system.tokenizer.eos_token_id,
                                           pad_token_id=system.tokenizer.pad_token_id)
    with torch.inference_mode():
        plain = type(system.model).generate(system.model, **enc, generation_config=config)
    texts = system.tokenizer.batch_decode(plain[:, enc["input_ids"].shape[1]:], skip_special_tokens=True)
    if exact(system.model):
        assert ours == texts
    assert len(ours) == len(instances) and all(isinstance(t, str) for t in ours)
    eos = system.tokenizer.eos_token_id
    counted = [row[:row.index(eos) + 1] if eos in row else row
               for ids, out in calls for row in out[:, ids.shape[1]:].tolist()]
    assert system.generated_tokens == sum(map(len, counted)) > 0


@pytest.mark.slow
def test_continuous_batching_gives_the_static_batches_texts(folders: dict, dataset: str) -> None:
    """`batching=continuous` (transformers' `generate_batch`; static batches are the default): the same greedy
    texts, in the given order, and the same token count as static batches (fp32: identical)."""
    kwargs = {"max_new_tokens": NEW_TOKENS, "temperature": 0.0, "batch_size": 2}
    continuous = make_system(f"hf:{folders['llama']}", dataset, batching="continuous", **kwargs)
    static = make_system(f"hf:{folders['llama']}", dataset, batching="static", **kwargs)
    assert continuous.continuous and not static.continuous
    assert continuous.describe()["batching"].startswith("continuous")
    task = get_task("explanation")
    mixed = build_instances(task, dataset)[:3] + build_instances(get_task("matching"), dataset)[:2]
    calls = captured_generate(continuous)
    ours = [o.raw for o in continuous.generate(task, mixed)]
    assert not calls  # no static `generate` call
    theirs = [o.raw for o in static.generate(task, mixed)]
    if exact(continuous.model):
        assert ours == theirs
        assert continuous.generated_tokens == static.generated_tokens > 0
    assert len(ours) == len(mixed) and all(isinstance(t, str) for t in ours)
    # sampled decoding goes there too when asked for
    sampled = make_system(f"hf:{folders['llama']}", dataset, batching="continuous", max_new_tokens=NEW_TOKENS,
                          temperature=0.7, top_p=0.9)
    sampled_calls = captured_generate(sampled)
    texts = [o.raw for o in sampled.generate(task, mixed[:2])]
    assert not sampled_calls and len(texts) == 2 and all(isinstance(t, str) for t in texts)
    assert sampled.generated_tokens > 0 and sampled.describe()["batching"] == "continuous"
    # a request that comes back failed is never an empty answer: the call falls back to static batches, with a warning
    continuous.model.generate_batch = lambda inputs, **_: {f"req_{k}": None for k in range(len(inputs) - 1)}
    with pytest.warns(UserWarning, match="continuous batching failed.*no text for 1 of 5"):
        again = [o.raw for o in continuous.generate(task, mixed)]
    assert not continuous.continuous and len(calls) > 0
    if exact(continuous.model):
        assert again == theirs


def test_static_cache_generation_matches_the_dynamic_cache(folders: dict, dataset: str) -> None:
    """`compile=true`: the static KV cache (compiled by transformers on an accelerator, eager on CPU) and prompts
    padded to a multiple of 64 give the greedy text of the dynamic cache (fp32: identical)."""
    static = make_system(f"hf:{folders['llama']}", dataset, max_new_tokens=NEW_TOKENS, temperature=0.0,
                         compile=True, batch_size=4, batching="static")
    dynamic = make_system(f"hf:{folders['llama']}", dataset, max_new_tokens=NEW_TOKENS, temperature=0.0,
                          compile=False, batch_size=4, batching="static")
    assert static.compiled and not dynamic.compiled
    assert static.describe()["kv_cache"] == "static" and dynamic.describe()["kv_cache"] == "dynamic"
    task = get_task("explanation")
    instances = build_instances(task, dataset)[:4]
    calls = captured_generate(static)
    ours = [o.raw for o in static.generate(task, instances)]
    assert calls[0][0].shape[1] % 64 == 0
    if exact(static.model):
        assert ours == [o.raw for o in dynamic.generate(task, instances)]
    ids, out = calls[0]
    for row in range(ids.shape[0]):
        prompt = [t for t, m in zip(ids[row].tolist(), (ids[row] != static.tokenizer.pad_token_id).tolist(),
                                    strict=True) if m]
        assert_greedy(static.model, prompt, out[row, ids.shape[1]:].tolist(), static.tokenizer.eos_token_id)


def test_batch_size_options_and_the_memory_estimate(folders: dict, dataset: str) -> None:
    """auto: sized from free GPU memory on CUDA (bounded, a multiple of 8, shrinking with length), 8 on CPU."""
    assert batch_option(None, cuda=False) == 8 and batch_option("auto", cuda=False) == 8
    assert batch_option(None, cuda=True) is None and batch_option(3, cuda=True) == 3
    for bad in (0, -1, "eight", 2.5, True):
        with pytest.raises(ValueError, match="batch_size must be a whole number >= 1 or auto"):
            batch_option(bad, cuda=False)
    with pytest.raises(ValueError, match="batch_size must be"):
        make_system(f"hf:{folders['llama']}", dataset, batch_size="lots")
    with pytest.raises(ValueError, match="compile must be true or false"):
        make_system(f"hf:{folders['llama']}", dataset, compile="maybe")
    system = make_system(f"hf:{folders['llama']}", dataset, batch_size="auto")
    assert system.fixed_batch == (None if CUDA else 8)
    model = system.model
    gib = 1 << 30
    sizes = [auto_batch_size(model, n, free=gib) for n in (64, 512, 4096, 32768)]
    assert sizes == sorted(sizes, reverse=True) and sizes[0] == 256 and all(1 <= s <= 256 for s in sizes)
    assert all(s % 8 == 0 for s in sizes if s >= 8)
    assert auto_batch_size(model, 512, free=1) == 1
    assert auto_batch_size(model, 512, cache=False, free=64 << 20) >= auto_batch_size(model, 512, free=64 << 20)


def _records(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


@pytest.mark.parametrize(("kind", "model", "task"), [
    ("hf", "llama", "matching"), ("hf", "llama", "ranking"), ("hf", "llama", "explanation"),
    ("hf", "llama", "caption_generation"), ("hf", "llama", "humorbench"),
    ("vlm", "llava", "matching_from_pixels"), ("vlm", "llava", "explanation_from_pixels"),
    ("vlm", "llava", "explanation"),  # text only
    ("clip", "clip", "matching_from_pixels"), ("clip", "clip", "ranking_from_pixels"),
])
def test_every_task_end_to_end(kind: str, model: str, task: str, folders: dict, dataset: str, hf: CausalLMSystem,
                               tmp_path: Path) -> None:
    """Each system on each task it serves, through the runner: one record per instance, predictions well formed."""
    t = get_task(task)
    spec = f"{kind}:{folders[model]}"
    # choice tasks go through the spec alone, as `nycc-bench run` does; generation gets a short max_new_tokens
    system = None if t.kind == "choice" and kind != "vlm" else hf if kind == "hf" else make_system(
        spec, dataset, max_new_tokens=NEW_TOKENS)
    out = tmp_path / "preds.jsonl"
    summary = run_task(task, spec, out, dataset=dataset, system=system, progress=False)
    records = _records(out)
    options = json.loads(out.with_name(out.name + ".meta.json").read_text())["options"]  # the kind's (issue 22)
    assert summary.total == summary.answered == len(records) == len(build_instances(t, dataset, options=options))
    assert len({r["instance_id"] for r in records}) == len(records)
    predictions = [r["prediction"] for r in records]
    assert summary.unparsed == sum(r["status"] == "unparsed" for r in records)
    # an unreadable vision reply gets upstream's default letter (lite_llm_leaderboard), still counted as unparsed
    assert all(p is None or (r["status"] == "unparsed" and r["answer_source"] == "default")
               for p, r in zip(predictions, records, strict=True) if r["status"] == "unparsed")
    if t.kind == "choice":
        assert all(p is None or p in t.letters for p in predictions)
        if kind != "vlm":  # scored systems always choose a letter
            assert summary.unparsed == 0
            key = "loglikelihoods" if kind == "hf" else "similarities"
            assert all(len(r["raw"][key]) == len(t.letters) for r in records)
    elif task == "caption_generation":
        assert all(p is None or (isinstance(p, list) and all(isinstance(c, str) for c in p)) for p in predictions)
    else:
        assert all(p is None or isinstance(p, str) for p in predictions)
    meta = json.loads(out.with_name(out.name + ".meta.json").read_text())["system"]
    assert meta["revision"] == str(folders[model]) and meta["source"] == "local" and meta["fingerprint"]
    assert (meta["dtype"], meta["device"]) == expected_placement()


def test_caption_generation_runs_as_upstreams_hugging_face_script(folders: dict, dataset: str,
                                                                   tmp_path: Path) -> None:
    """Issue 22: an `hf:` model on caption_generation as finetuning/save_results.py ran one: the plain-text
    prompt of preprocess.py L18 (no chat template, BOS added as `tokenizer(texts)` does), 10 sampled generations
    per contest in one batch, T 0.7 / top-p 0.95 / repetition 1.15, seed 2024, the first line of each kept."""
    import nycc_bench.systems.hf_causal as hf_causal
    from nycc_bench.kinds.parsing import parse_samples

    system = make_system(f"hf:{folders['llama']}", dataset, max_new_tokens=NEW_TOKENS, batch_size=20)
    system.model.generation_config.top_k = 7  # a checkpoint default upstream's from_pretrained config keeps
    rows: list[list[int]] = []
    configs: list = []
    generate_batch = system._generate_batch
    system._generate_batch = lambda prompts, config: (rows.extend(prompts), configs.append(config),
                                                      generate_batch(prompts, config))[2]
    seeded: list[int] = []
    run_seed = hf_causal.seed_run
    hf_causal.seed_run = lambda seed: (seeded.append(seed), run_seed(seed))[1]  # seed_everything(2024), once
    out = tmp_path / "gen.jsonl"
    try:
        run_task("caption_generation", system.spec, out, dataset=dataset, system=system, progress=False)
    finally:
        hf_causal.seed_run = run_seed
    assert seeded == [2024] and len(configs) > 1  # one seed for the run, however many batches
    assert {(c.top_k, c.temperature, c.top_p, c.repetition_penalty, c.do_sample) for c in configs} == \
        {(7, 0.7, 0.95, 1.15, True)}
    meta = json.loads(out.with_name(out.name + ".meta.json").read_text())
    assert (meta["options"]["setting"], meta["options"]["prompt"], meta["options"]["description"]) == \
        ("per_system", "save_results", "gpt4o")
    assert meta["decoding"] == {"temperature": 0.7, "top_p": 0.95, "repetition_penalty": 1.15, "seed": 2024,
                                "max_new_tokens": NEW_TOKENS, "samples": 10}
    assert meta["effective"]["kind"] == "hf"
    assert {k: meta["effective"]["request"][k] for k in ("n", "seed", "temperature", "top_p", "seeding",
                                                          "generation_config")} == \
        {"n": 10, "seed": 2024, "temperature": 0.7, "top_p": 0.95, "seeding": "once per run",
         "generation_config": "checkpoint"}
    dtype = expected_placement()[0]  # upstream's float16: any other is a computed deviation
    assert meta["effective"]["dtype"] == dtype
    deviations = get_task("caption_generation").computed_deviations({"options": meta["options"],
                                                                     "system": meta["effective"]})
    assert (f"The model ran in {dtype}; upstream's Hugging Face runs loaded it in float16 "
            "(`--system-option dtype=float16`).") in deviations or dtype == "float16"
    assert not any(d.startswith(("Sampling seeded", "Generation config:")) for d in deviations)
    instances = build_instances(get_task("caption_generation"), dataset, options=meta["options"])
    assert all(not i.chat and i.system is None for i in instances)
    assert instances[0].user.startswith("[INST] <> I want you to act as a sophisticated reader of The New Yorker")
    assert instances[0].user.endswith(" <> \n funny caption: [\\INST]")  # as upstream's stored zs.csv prompts
    assert system.prompt(instances[0]) == instances[0].user  # the model has a chat template; it is not used
    expected = [system.tokenizer(i.user)["input_ids"] for i in instances]
    assert all(e[0] == system.tokenizer.bos_token_id for e in expected)
    assert sorted(map(tuple, rows)) == sorted(tuple(e) for e in expected for _ in range(10))
    records = _records(out)
    assert len(records) == len(instances)
    for record in records:
        assert isinstance(record["raw"], list) and len(record["raw"]) == 10
        assert record["prediction"] == (parse_samples(record["raw"]) or None)
    uniform = make_system(f"hf:{folders['llama']}", dataset, max_new_tokens=NEW_TOKENS)
    run_task("caption_generation", uniform.spec, tmp_path / "u.jsonl", dataset=dataset, system=uniform,
             progress=False, task_options={"setting": "uniform"})
    assert all(isinstance(r["raw"], str) for r in _records(tmp_path / "u.jsonl"))  # one generation, a list in it


def test_vlm_attaches_the_image_for_from_pixels_tasks_only(folders: dict, dataset: str) -> None:
    """The cartoon reaches the vision tower in the from-pixels settings; the from-description ones stay text-only."""
    system = make_system(f"vlm:{folders['llava']}", dataset, max_new_tokens=2)
    images: list[int] = []
    hook = system.model.model.vision_tower.register_forward_hook(lambda _m, args, _o: images.append(len(args[0])))
    try:
        for name in ("matching_from_pixels", "matching"):
            task = get_task(name)
            system.generate(task, build_instances(task, dataset)[:3])
    finally:
        hook.remove()
    assert images == [3]


def test_resume_answers_only_the_rest(hf: CausalLMSystem, dataset: str, tmp_path: Path) -> None:
    out = tmp_path / "matching.jsonl"
    first = run_task("matching", hf.spec, out, dataset=dataset, system=hf, limit=2, progress=False)
    assert (first.total, first.answered) == (2, 2)
    before = _records(out)
    rest = run_task("matching", hf.spec, out, dataset=dataset, system=hf, progress=False)
    assert (rest.answered, rest.resumed) == (rest.total - 2, 2)
    after = _records(out)
    assert after[:2] == before and len({r["instance_id"] for r in after}) == len(after) == rest.total


def test_generate_mode_for_choice_tasks(folders: dict, dataset: str, tmp_path: Path) -> None:
    system = make_system(f"hf:{folders['llama']}", dataset, mc_mode="generate", max_new_tokens=4, batch_size=3)
    summary = run_task("ranking", system.spec, tmp_path / "r.jsonl", dataset=dataset, system=system, progress=False)
    records = _records(tmp_path / "r.jsonl")
    assert all(isinstance(r["raw"], str) and r["prediction"] in (None, "A", "B") for r in records)
    assert summary.unparsed == sum(r["status"] == UNPARSED for r in records)
    assert system.describe()["mc_mode"] == "generate"


def test_defaults_and_description(folders: dict, dataset: str) -> None:
    assert max_new_tokens(get_task("caption_generation").decoding) == 512
    assert max_new_tokens(get_task("matching_from_pixels").decoding) == 256
    assert max_new_tokens(get_task("humorbench").decoding) == MAX_NEW_TOKENS  # the task leaves it to the provider
    system = make_system(f"hf:{folders['llama']}", dataset)
    assert make_system(f"hf:{folders['llama']}", dataset, max_new_tokens=20).decoding(
        get_task("caption_generation"))["max_new_tokens"] == 20
    described = system.describe()
    assert described["mc_mode"] == "loglikelihood" and described["spec"] == f"hf:{folders['llama']}"
    assert "' <letter>'" in described["choice_scoring"]
    assert (described["dtype"], described["device"]) == expected_placement()
    # CUDA: batches sized from free memory and a compiled static cache; CPU: batches of 8, the dynamic cache
    # the runner hands over eight batches at a time (sorted by length within them), at most 512
    assert described["batch_size"] == ("auto" if CUDA else 8) and system.batch_size == (512 if CUDA else 64)
    assert (described["kv_cache"], described["compile"]) == (("static", True) if CUDA else ("dynamic", False))


HUB_TOKEN = "hf_" + "SystemsTestToken" * 2


def commit_hub() -> Any:
    """The local Hub, also serving a repo's files at its latest commit id (as the Hub does; it keeps one state)."""
    from local_hub import TYPES, LocalHub

    class CommitHub(LocalHub):
        def repo(self, kind: str, repo_id: str, revision: str | None = "main") -> Any:
            found = self.repos.get((TYPES[kind], repo_id))
            latest = found is not None and revision == found.history[-1].oid
            return super().repo(kind, repo_id, "main" if latest else revision)

    return CommitHub(HUB_TOKEN)


def _hub_describe(hub_url: str, home: Path, spec: str, dataset: str) -> subprocess.CompletedProcess:
    """`make_system(spec).describe()` in a clean process whose Hub is the local one (so nothing is cached)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("HF_", "HUGGING"))}
    env.update(HF_HOME=str(home), HF_ENDPOINT=hub_url, HF_TOKEN=HUB_TOKEN, NO_PROXY="127.0.0.1,localhost",
               no_proxy="127.0.0.1,localhost", PYTHONPATH=str(Path(__file__).resolve().parents[1]))
    code = ("import json, sys; from nycc_bench.systems import make_system; "
            "print(json.dumps(make_system(sys.argv[1], sys.argv[2]).describe()))")
    return subprocess.run([sys.executable, "-c", code, spec, dataset], env=env, capture_output=True, text=True,
                          timeout=300)


def test_hub_revision_is_recorded_as_its_commit(folders: dict, dataset: str, tmp_path: Path) -> None:
    """A Hub model (a local Hub over HTTP) loads at the commit its revision resolves to, and records that commit;
    a revision the Hub does not have is named in the error; offline and uncached, the revision is kept, marked."""
    from local_hub import Repo

    from nycc_bench.systems.hf import parse_ref, resolve

    with commit_hub() as hub:  # the model put straight into the Hub's store (publishing is tested elsewhere)
        repo = hub.repos["model", "org/tiny"] = Repo("model", "org/tiny", private=False, sdk=None)
        commit = repo.commit("add the model", "", {p.name: p.read_bytes() for p in folders["llama"].iterdir()}).oid
        for spec in ("hf:org/tiny", "hf:org/tiny@main", f"hf:org/tiny@{commit}"):
            done = _hub_describe(hub.base_url, tmp_path / "home", spec, dataset)
            assert done.returncode == 0, done.stderr[-2000:]
            described = json.loads(done.stdout.strip().splitlines()[-1])
            assert (described["source"], described["model"], described["revision"]) == ("hub", "org/tiny", commit)
        missing = _hub_describe(hub.base_url, tmp_path / "home2", "hf:org/tiny@v9", dataset)
        assert missing.returncode != 0
        assert "NyccBenchError: system: 'hf:org/tiny@v9': model 'org/tiny' has no revision 'v9' on http" in \
            missing.stderr
    ref = parse_ref("hf", "org/model@v1.0")
    assert (ref.name, ref.revision, ref.local) == ("org/model", "v1.0", False)
    assert resolve(parse_ref("hf", "org/model@" + "b" * 40)) == ("b" * 40, "b" * 40)


def test_unresolvable_revision_is_marked(monkeypatch: pytest.MonkeyPatch) -> None:
    import huggingface_hub.constants

    from nycc_bench.systems.hf import parse_ref, resolve

    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_OFFLINE", True)
    assert resolve(parse_ref("hf", "nobody/no-such-model")) == (None, "main (unresolved)")
    assert resolve(parse_ref("hf", "nobody/no-such-model@v2")) == ("v2", "v2 (unresolved)")


def test_placement_defaults(monkeypatch: pytest.MonkeyPatch) -> None:
    """GPU: every device via accelerate in bf16 (fp16 without bf16 support); CPU: float32; options override."""
    from nycc_bench.systems.hf import placement

    assert placement(None, None) == ("cpu", torch.float32) or torch.cuda.is_available()
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "is_bf16_supported", lambda: True)
    assert placement(None, None) == ("auto", torch.bfloat16)
    assert placement("cuda:1", None) == ("cuda:1", torch.bfloat16)
    assert placement("cpu", None) == ("cpu", torch.float32)
    assert placement(None, "float32") == ("auto", torch.float32)
    assert placement(None, "auto") == ("auto", "auto")
    monkeypatch.setattr(torch.cuda, "is_bf16_supported", lambda: False)
    assert placement(None, None) == ("auto", torch.float16)


def test_bad_specs_and_options_give_clear_errors(folders: dict, dataset: str, tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    import huggingface_hub.constants

    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_OFFLINE", True)  # no retries against an unreachable Hub
    with pytest.raises(NyccBenchError, match=r"'hf:nobody/no-such-model@v2': model 'nobody/no-such-model' is not "
                                             r"in the local Hub cache and HF_HUB_OFFLINE is set"):
        make_system("hf:nobody/no-such-model@v2", dataset)
    with pytest.raises(NyccBenchError, match=r"'clip:nobody/no-such-model': .*HF_HUB_OFFLINE"):
        make_system("clip:nobody/no-such-model", dataset)
    missing = tmp_path / "no_such_model"
    with pytest.raises(ValueError, match=rf"hf:{missing}.*does not exist"):
        make_system(f"hf:{missing}", dataset)
    with pytest.raises(ValueError, match="local folder takes no @revision"):
        make_system(f"hf:{missing}@main", dataset)
    with pytest.raises(ValueError, match="is not a folder"):
        make_system(f"hf:{folders['llama'] / 'config.json'}", dataset)
    (tmp_path / "empty").mkdir()
    with pytest.raises(ValueError, match=r"cannot load the (tokenizer|model) of 'hf:.*empty'"):
        make_system(f"hf:{tmp_path / 'empty'}", dataset)
    with pytest.raises(ValueError, match="hf takes no option 'num_beams'; it takes: batch_size, device, dtype, "
                                         "mc_mode, compile, trust_remote_code, chat_template, batching, "
                                         "grouped_attention, temperature"):
        make_system(f"hf:{folders['llama']}", dataset, num_beams=4)
    with pytest.raises(ValueError, match="dtype must be one of"):
        make_system(f"hf:{folders['llama']}", dataset, dtype="fp8")
    with pytest.raises(ValueError, match="batching must be one of auto, continuous, static"):
        make_system(f"hf:{folders['llama']}", dataset, batching="paged")
    with pytest.raises(ValueError, match="mc_mode must be one of"):
        make_system(f"hf:{folders['llama']}", dataset, mc_mode="vibes")
    clip = make_system(f"clip:{folders['clip']}", dataset)
    with pytest.raises(ValueError, match="clip answers multiple-choice tasks"):
        run_task("explanation_from_pixels", clip.spec, tmp_path / "e.jsonl", dataset=dataset, system=clip,
                 progress=False)
    hf = make_system(f"hf:{folders['llama']}", dataset)
    with pytest.raises(ValueError, match="use vlm:<model>"):
        run_task("matching_from_pixels", hf.spec, tmp_path / "p.jsonl", dataset=dataset, system=hf, progress=False)
    with pytest.raises(ValueError, match="from-pixels tasks; matching is from description"):
        run_task("matching", clip.spec, tmp_path / "m.jsonl", dataset=dataset, system=clip, progress=False)


@pytest.mark.skipif(not CUDA, reason="needs a CUDA GPU")
def test_cuda_defaults_size_batches_from_free_memory_and_compile(folders: dict, dataset: str, tmp_path: Path) -> None:
    """On CUDA by default: bf16 on the GPU, batch sizes from the free memory measured now, the compiled static cache
    (static batches, not continuous batching); a generation task runs through the runner with them."""
    system = make_system(f"hf:{folders['llama']}", dataset, max_new_tokens=NEW_TOKENS)
    assert system.fixed_batch is None and system.compiled and system.model.device.type == "cuda"
    assert not system.continuous
    from nycc_bench.systems.hf import free_memory

    assert free_memory(system.model) > 0 and auto_batch_size(system.model, 1024) >= 8
    summary = run_task("explanation", system.spec, tmp_path / "e.jsonl", dataset=dataset, system=system,
                       progress=False)
    assert summary.answered == summary.total and system.generated_tokens > 0


def test_token_ids_are_the_tokenizers_own(monkeypatch: pytest.MonkeyPatch) -> None:
    """Scoring's batch encoder (`token_ids`, the Rust backend without Python-side conversion) gives the ids the
    tokenizer's own call gives, with and without special tokens, after a truncating call, and defers to a
    tokenizer class that adds a Python-side step."""
    from nycc_bench.systems.hf_causal import token_ids

    tok = _tokenizer()
    assert type(tok)._encode_plus.__qualname__ == "TokenizersBackend._encode_plus"  # the backend path is taken
    texts = [f"Item {k}. Which caption fits? Answer:" + " B" * k for k in range(12)]
    for add in (True, False):
        assert token_ids(tok, texts, add) == tok(texts, add_special_tokens=add)["input_ids"]
    tok(texts, truncation=True, max_length=3)  # leaves the backend truncating
    assert token_ids(tok, texts, True) == [tok(t)["input_ids"] for t in texts]
    assert max(map(len, token_ids(tok, texts, True))) > 3
    own = type(tok).__call__

    def shouting(self: Any, text: Any, **kwargs: Any) -> Any:  # a class whose call rewrites the text first
        return own(self, [t.upper() for t in text] if isinstance(text, list) else text.upper(), **kwargs)

    monkeypatch.setattr(type(tok), "__call__", shouting)
    assert token_ids(tok, texts, False) == tok(texts, add_special_tokens=False)["input_ids"]
    assert token_ids(tok, texts, False) != [e.ids for e in tok._tokenizer.encode_batch(texts, add_special_tokens=False)]


def test_pieces_tokenized_while_the_gpu_runs_give_the_one_piece_scores(hf: CausalLMSystem,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """Requests tokenized a piece at a time (each piece's batches queued before the next is tokenized) score as one
    piece does, each value back in its request's and continuation's place, with one read-back."""
    import nycc_bench.systems.hf_causal as hf_causal

    continuations = [" A", " Q", " caption truly"]
    requests = [(f"Item {k}. Answer the question." + " Answer:" * (k % 3 + 1), [*continuations[:k % 3 + 1], " B"])
                for k in range(11)]
    whole = hf.loglikelihood(requests)
    calls: list[int] = []
    hook = hf.model.get_decoder().register_forward_hook(lambda *_: calls.append(1))
    monkeypatch.setattr(hf_causal, "FIRST_PIECE", 2)
    monkeypatch.setattr(hf_causal, "PIECE_TOKENS", 40)
    try:
        pieces = hf.loglikelihood(requests)
    finally:
        hook.remove()
    assert len(calls) >= 4  # several pieces, each its own batches
    assert [len(p) for p in pieces] == [len(xs) for _, xs in requests]
    for got, expected in zip(pieces, whole, strict=True):
        assert got == pytest.approx(expected, abs=ll_tolerance(hf.model))
