"""The local transformers backend end to end, with a tiny randomly initialised Llama built in the test."""

from __future__ import annotations

from pathlib import Path

import pytest

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

from judge_helpers import group_inputs, shots_pool  # noqa: E402

from nycc_bench.judge import generate_chats, grade_elements, judge_groups  # noqa: E402
from nycc_bench.judge.protocols import overall  # noqa: E402
from nycc_bench.llm import LLMConfig, LLMEngine  # noqa: E402

CHAT_TEMPLATE = (
    "{% for m in messages %}<|{{ m['role'] }}|> {{ m['content'] }} <|end|> {% endfor %}"
    "{% if add_generation_prompt %}<|assistant|>{% endif %}"
)
WORDS = ["A", "B", "the", "a", "cartoon", "caption", "captions", "group", "groups", "funnier", "is", "are", "of"]


@pytest.fixture(scope="module")
def tiny_model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from tokenizers import Tokenizer, models, pre_tokenizers
    from transformers import LlamaConfig, LlamaForCausalLM, PreTrainedTokenizerFast

    specials = ["<unk>", "<s>", "</s>", "<|system|>", "<|user|>", "<|assistant|>", "<|end|>"]
    vocab = {token: i for i, token in enumerate(specials + WORDS + [str(d) for d in range(10)] + list(".,:?!'"))}
    backend = Tokenizer(models.WordLevel(vocab=vocab, unk_token="<unk>"))
    backend.pre_tokenizer = pre_tokenizers.Whitespace()
    tokenizer = PreTrainedTokenizerFast(
        tokenizer_object=backend, unk_token="<unk>", bos_token="<s>", eos_token="</s>", pad_token="</s>"
    )
    tokenizer.add_special_tokens({"additional_special_tokens": specials[3:]})
    tokenizer.chat_template = CHAT_TEMPLATE
    torch.manual_seed(0)
    config = LlamaConfig(
        vocab_size=len(vocab),
        hidden_size=32,
        intermediate_size=64,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        max_position_embeddings=4096,
        bos_token_id=vocab["<s>"],
        eos_token_id=vocab["</s>"],
        pad_token_id=vocab["</s>"],
    )
    model = LlamaForCausalLM(config)
    path = tmp_path_factory.mktemp("tiny-llama")
    model.save_pretrained(path)
    tokenizer.save_pretrained(path)
    return path


def local_config(model: Path, cache: Path, **changes: object) -> LLMConfig:
    return LLMConfig(backend="transformers", model=str(model), cache_dir=str(cache), device="cpu", progress=False,
                       **changes)


def reference_logprobs(model_dir: Path, messages: list[dict]) -> torch.Tensor:
    """log-softmax of the next-token logits after the chat prompt, computed directly."""
    from transformers import AutoModelForCausalLM, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(model_dir)
    model = AutoModelForCausalLM.from_pretrained(model_dir).eval()
    ids = tokenizer.apply_chat_template(messages, add_generation_prompt=True, return_tensors="pt", return_dict=True)
    with torch.no_grad():
        logits = model(**ids).logits[0, -1]
    return torch.log_softmax(logits.float(), dim=-1), tokenizer, model, ids


def test_overall_reads_a_and_b_logprobs_from_the_logits(tiny_model: Path, tmp_path: Path) -> None:
    model_groups, human, descriptions = group_inputs([5])
    engine = LLMEngine(local_config(tiny_model, tmp_path / "cache"))
    records = judge_groups(model_groups, human, [5], descriptions, "overall", engine, shots_pool(),
                           rule="letters_topk")  # exact A and B log-probs read from the logits
    assert [r["model_position"] for r in records] == ["A", "B"]
    shots = [s for s in shots_pool() if s.contest_number != 5]
    import random

    drawn = random.Random("0:5").sample(shots, 5)
    for record, (group_a, group_b) in zip(
        records, [(model_groups[0], human["top10"][0]), (human["top10"][0], model_groups[0])], strict=True
    ):
        messages = list(overall.build_messages(descriptions[0], group_a, group_b, drawn))
        logprobs, tokenizer, _, _ = reference_logprobs(tiny_model, messages)
        a_id, b_id = tokenizer.convert_tokens_to_ids(["A", "B"])
        assert record["delta_logprob"] == pytest.approx(float(logprobs[a_id] - logprobs[b_id]), abs=1e-4)
        assert record["logprob_missing"] == [] and record["error"] is None
        assert len(record["top_logprobs"]) == 20
    assert engine.last_stats.n_calls == 2
    again = judge_groups(model_groups, human, [5], descriptions, "overall", engine, shots_pool(), rule="letters_topk")
    assert again == records and engine.last_stats.n_calls == 0 and engine.last_stats.n_cached == 2


def test_generation_is_greedy_and_exact_and_grading_never_crashes(tiny_model: Path, tmp_path: Path) -> None:
    messages = [{"role": "user", "content": "the cartoon caption is funnier ?"}]
    cfg = local_config(tiny_model, tmp_path / "cache", temperature=0.0, max_tokens=6)
    [record] = generate_chats([messages], cfg)
    _, tokenizer, model, ids = reference_logprobs(tiny_model, messages)
    with torch.no_grad():
        out = model.generate(**ids, max_new_tokens=6, do_sample=False, pad_token_id=tokenizer.pad_token_id)
    expected = tokenizer.decode(out[0, ids["input_ids"].shape[1] :], skip_special_tokens=True)
    assert record["text"] == expected and record["error"] is None
    graded = grade_elements(["a cartoon"], ["a caption"], ["a pun"], ["the answer"], cfg.replace(parse_retries=0))
    assert graded[0]["verdict"] == "ERROR" and "unparseable" in graded[0]["error"]
    assert isinstance(graded[0]["raw"], str)
