"""The grouped-query decoding attention (`nycc_bench.systems.grouped_attention`): the same text as transformers' own
`sdpa` (dynamic cache, static cache, and the decoding step traced by torch.compile, where transformers copies the
KV cache per query head), with each KV head read once; models without grouped heads keep `sdpa`."""

from __future__ import annotations

import contextlib
import copy
from collections.abc import Iterator
from typing import Any

import pytest

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

from nycc_bench.systems.grouped_attention import NAME, use_grouped_decoding  # noqa: E402

pytestmark = pytest.mark.gpu


def tiny_llama(kv_heads: int) -> Any:
    """A random 2-layer Llama, 8 query heads on `kv_heads` KV heads, attending with `sdpa`."""
    torch.manual_seed(0)
    config = transformers.LlamaConfig(vocab_size=300, hidden_size=64, intermediate_size=128, num_hidden_layers=2,
                                      num_attention_heads=8, num_key_value_heads=kv_heads, head_dim=8,
                                      max_position_embeddings=512, attn_implementation="sdpa")
    model = transformers.LlamaForCausalLM(config).eval()
    return model.cuda() if torch.cuda.is_available() else model


def batch(model: Any) -> tuple[Any, Any]:
    """Three left-padded prompts (padding makes every decoding step carry a mask)."""
    generator = torch.Generator().manual_seed(1)
    ids = torch.randint(3, 300, (3, 20), generator=generator)
    mask = torch.ones_like(ids)
    mask[0, :5] = 0
    mask[1, :2] = 0
    return ids.to(model.device), mask.to(model.device)


@contextlib.contextmanager
def sdpa_calls() -> Iterator[list[tuple[int, ...]]]:
    """The query shapes `scaled_dot_product_attention` is called with, eagerly, while the block runs."""
    calls: list[tuple[int, ...]] = []
    own = torch.nn.functional.scaled_dot_product_attention

    def recording(query: Any, *args: Any, **kwargs: Any) -> Any:
        calls.append(tuple(query.shape))
        return own(query, *args, **kwargs)

    torch.nn.functional.scaled_dot_product_attention = recording
    try:
        yield calls
    finally:
        torch.nn.functional.scaled_dot_product_attention = own


def traced_sdpa_queries(graphs: list[Any]) -> set[tuple[int, ...]]:
    """The query shapes of the `scaled_dot_product_attention` calls in the graphs torch.compile traced."""
    return {tuple(node.args[0].meta["example_value"].shape) for gm in graphs for node in gm.graph.nodes
            if node.op == "call_function" and "scaled_dot_product_attention" in str(node.target)}


def test_grouped_decoding_gives_sdpas_text_and_reads_each_kv_head_once() -> None:
    model = tiny_llama(kv_heads=2)
    grouped = copy.deepcopy(model)
    assert use_grouped_decoding(grouped) and grouped.config._attn_implementation == NAME
    ids, mask = batch(model)
    settings = {"max_new_tokens": 12, "do_sample": False, "pad_token_id": 0, "eos_token_id": None}
    dynamic = model.generate(input_ids=ids, attention_mask=mask, **settings)
    static = model.generate(input_ids=ids, attention_mask=mask, cache_implementation="static", disable_compile=True,
                            **settings)
    assert torch.equal(dynamic, static)
    with sdpa_calls() as calls:
        assert torch.equal(grouped.generate(input_ids=ids, attention_mask=mask, **settings), dynamic)
        assert torch.equal(grouped.generate(input_ids=ids, attention_mask=mask, cache_implementation="static",
                                            disable_compile=True, **settings), static)
    assert (3, 2, 4, 8) in calls  # a decoding step: 2 KV heads, their 4 query heads each as query rows

    def capture(graphs: list[Any]) -> Any:
        def backend(gm: Any, example_inputs: Any, **options: Any) -> Any:  # options: the compile mode
            graphs.append(gm)
            return gm.forward
        return backend

    for candidate, expected in ((model, {(3, 8, 1, 8)}), (grouped, {(3, 2, 4, 8)})):
        graphs: list[Any] = []
        compile_config = transformers.CompileConfig(backend=capture(graphs), fullgraph=True)
        compile_config._compile_all_devices = True  # trace the decoding step on CPU too
        compiled = candidate.generate(input_ids=ids, attention_mask=mask, cache_implementation="static",
                                      compile_config=compile_config, **settings)
        assert torch.equal(compiled, static)
        # traced: transformers' sdpa sends all 8 query heads against a copied cache, ours the 2 groups of 4
        assert traced_sdpa_queries(graphs) == expected, traced_sdpa_queries(graphs)


def test_models_without_grouped_heads_keep_sdpa() -> None:
    model = tiny_llama(kv_heads=8)
    assert not use_grouped_decoding(model) and model.config._attn_implementation == "sdpa"


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU (inductor and CUDA graphs)")
def test_the_compiled_decoding_step_on_a_gpu_gives_sdpas_text() -> None:
    """On a GPU, `generate` compiles the static-cache decoding step with inductor and CUDA graphs (its default): the
    grouped attention gives transformers' `sdpa` text there too (fp32, so the two kernels agree on every argmax)."""
    model = tiny_llama(kv_heads=2)
    grouped = copy.deepcopy(model)
    assert use_grouped_decoding(grouped)
    ids, mask = batch(model)
    settings = {"max_new_tokens": 12, "do_sample": False, "pad_token_id": 0, "eos_token_id": None,
                "cache_implementation": "static"}
    assert torch.equal(grouped.generate(input_ids=ids, attention_mask=mask, **settings),
                       model.generate(input_ids=ids, attention_mask=mask, **settings))
