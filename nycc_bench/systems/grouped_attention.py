"""Decoding attention for grouped-query models that reads the KV cache as stored, also inside a compiled step.

transformers' `sdpa` attention copies every KV head once per query head it serves (`repeat_kv`) whenever it runs
under `torch.compile` with a mask, which is every decoding step of a compiled static-cache `generate` over a padded
batch: for Qwen2.5-7B (28 query heads on 4 KV heads) that copies the whole static cache seven times a step. On an
H200 (`benchmarks/results/*-h200-2026-11-27.*`) a 7B decoding step at batch 256 took up to 119 ms (compilation
included) against about 10 ms to read the weights and the cache once. Here a single query token's heads are laid
out as the query positions of their KV head (transformers' `pack_gqa`, which it applies only outside compilation), so
`scaled_dot_product_attention` reads each KV head once; the attention is the same, per head. Every other call
(prefill, scoring, models without grouped heads) is transformers' own `sdpa_attention_forward`, unchanged.
"""

from __future__ import annotations

from typing import Any

NAME = "nycc_grouped_sdpa"


def grouped_decode_sdpa(module: Any, query: Any, key: Any, value: Any, attention_mask: Any, dropout: float = 0.0,
                        scaling: float | None = None, is_causal: bool | None = None, **kwargs: Any
                        ) -> tuple[Any, None]:
    """transformers' attention-function signature: one query token of a grouped-query model attends per KV head
    group (no copy of the cache); anything else goes to transformers' `sdpa_attention_forward`."""
    import torch
    from transformers.integrations.sdpa_attention import sdpa_attention_forward

    groups = getattr(module, "num_key_value_groups", 1)
    shared_mask = attention_mask is None or (attention_mask.dim() == 4 and attention_mask.shape[1] == 1
                                             and attention_mask.shape[2] == 1)
    if (groups > 1 and query.shape[2] == 1 and shared_mask and not dropout and kwargs.get("position_bias") is None
            and kwargs.get("softcap") is None and key.shape[1] * groups == query.shape[1]):
        batch, heads, _, dim = query.shape
        out = torch.nn.functional.scaled_dot_product_attention(
            query.reshape(batch, heads // groups, groups, dim), key, value, attn_mask=attention_mask, scale=scaling)
        return out.reshape(out.shape[0], heads, 1, value.shape[-1]).transpose(1, 2).contiguous(), None
    return sdpa_attention_forward(module, query, key, value, attention_mask, dropout=dropout, scaling=scaling,
                                  is_causal=is_causal, **kwargs)


def use_grouped_decoding(model: Any) -> bool:
    """Switch a grouped-query model that attends with `sdpa` to `grouped_decode_sdpa` (with sdpa's masks); whether it
    was switched (a model that cannot take a registered attention function keeps its own)."""
    from transformers import AttentionInterface
    from transformers.masking_utils import AttentionMaskInterface, sdpa_mask

    config = model.config.get_text_config() if hasattr(model.config, "get_text_config") else model.config
    heads = getattr(config, "num_attention_heads", None)
    kv_heads = getattr(config, "num_key_value_heads", None) or heads
    if getattr(config, "_attn_implementation", None) != "sdpa" or not heads or kv_heads >= heads:
        return False
    AttentionInterface.register(NAME, grouped_decode_sdpa)
    AttentionMaskInterface.register(NAME, sdpa_mask)
    try:
        model.set_attn_implementation(NAME)
    except (ValueError, TypeError, NotImplementedError):
        return False
    return getattr(config, "_attn_implementation", None) == NAME
