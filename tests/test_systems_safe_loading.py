"""Submitted and local models load from safetensors only, and run repo code only when the operator allows it."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch
import transformers
from tiny_models import save_tiny_llama

from nycc_bench.systems import make_system


def test_a_model_with_only_pickled_weights_is_not_loaded(tmp_path: Path, sample_dataset: str) -> None:
    folder = save_tiny_llama(tmp_path / "tiny")
    model = transformers.AutoModelForCausalLM.from_pretrained(folder)
    (folder / "model.safetensors").unlink()
    torch.save(model.state_dict(), folder / "pytorch_model.bin")  # what transformers would otherwise load
    with pytest.raises(ValueError, match=r"cannot load the model of 'hf:.*tiny'.*safetensors"):
        make_system(f"hf:{folder}", sample_dataset)


def test_remote_code_needs_the_operators_switch(tmp_path: Path, sample_dataset: str,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    folder = save_tiny_llama(tmp_path / "tiny")
    monkeypatch.delenv("NYCC_LB_ALLOW_REMOTE_CODE", raising=False)
    with pytest.raises(ValueError, match="trust_remote_code runs the model repo's own Python code; set "
                                         "NYCC_LB_ALLOW_REMOTE_CODE=1"):
        make_system(f"hf:{folder}", sample_dataset, trust_remote_code=True)
    monkeypatch.setenv("NYCC_LB_ALLOW_REMOTE_CODE", "1")
    system = make_system(f"hf:{folder}", sample_dataset, trust_remote_code=True)
    assert system.describe()["parameters"] == sum(p.numel() for p in system.model.parameters())
