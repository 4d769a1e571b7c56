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


def save_tiny_llama(folder: Path, seed: int = 0) -> Path:
    """A random 2-layer Llama with a chat template and a licensed model card, in safetensors, at `folder`."""
    torch.manual_seed(seed)
    tok = _tokenizer()
    transformers.LlamaForCausalLM(transformers.LlamaConfig(**_text_config(tok))).save_pretrained(folder)
    tok.save_pretrained(folder)
    (folder / "README.md").write_text(CARD)
    return folder
