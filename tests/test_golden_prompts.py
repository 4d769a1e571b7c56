"""Golden rendered prompts: the full messages of each task's first sample instance (fold 0, default options),
stored under tests/golden/prompts/ and compared byte for byte, so a change to a prompt file, a builder or the
shots' draw shows up as a diff. `NYCC_UPDATE_GOLDEN=1 pytest tests/test_golden_prompts.py` rewrites them."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from nycc_bench.kinds.instances import build_instances
from nycc_bench.tasks import all_tasks, get_task

GOLDEN = Path(__file__).resolve().parent / "golden" / "prompts"


def rendered(name: str, dataset: str) -> dict:
    """The first instance of a task on the sample, as plain data."""
    inst = build_instances(get_task(name), dataset)[0]
    return {"task": name, "instance_id": inst.instance_id, "messages": inst.messages(),
            "image": inst.image is not None, "choices": inst.choices, "letters": inst.letters}


@pytest.mark.parametrize("name", list(all_tasks()))
def test_first_instance_prompt_is_unchanged(name: str, sample_dataset: str) -> None:
    path = GOLDEN / f"{name}.json"
    now = json.dumps(rendered(name, sample_dataset), indent=2, ensure_ascii=False) + "\n"
    if os.environ.get("NYCC_UPDATE_GOLDEN") == "1":
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(now, encoding="utf-8")
    assert path.is_file(), f"no golden prompt for {name}; run with NYCC_UPDATE_GOLDEN=1 once and review the file"
    assert now == path.read_text(encoding="utf-8"), f"{name}: the rendered prompt changed (see {path})"
