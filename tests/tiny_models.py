"""Tiny random models saved as local folders, for tests that need a real `hf:` model offline.

The tokenizer and config builders are the ones `test_systems_hf.py` uses; this adds a saved folder with a
model card (license), as a submitted model would have.
"""

from __future__ import annotations

from pathlib import Path

import torch
import transformers
from test_systems_hf import _text_config, _tokenizer

CARD = "---\nlicense: mit\nlibrary_name: transformers\n---\n\n# tiny-llama\n\nA random 2-layer Llama for tests.\n"


def save_tiny_llama(folder: Path, seed: int = 0, head_dim: int | None = None) -> Path:
    """A random 2-layer Llama with a chat template and a licensed model card, in safetensors, at `folder`;
    `head_dim` widens its attention heads (vLLM's CPU attention takes 32 and up, not the default 8)."""
    torch.manual_seed(seed)
    tok = _tokenizer()
    config = {**_text_config(tok), **({"head_dim": head_dim} if head_dim else {})}
    transformers.LlamaForCausalLM(transformers.LlamaConfig(**config)).save_pretrained(folder)
    tok.save_pretrained(folder)
    (folder / "README.md").write_text(CARD)
    return folder
