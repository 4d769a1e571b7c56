"""Issue 35 item 4: `--system-option chat_template=auto|none|NAME` for `hf:` (lm-evaluation-harness's
`--apply_chat_template`), on a tiny Llama built here whose tokenizer has two named templates; the choice reaches the
prompts the model is given and is recorded in the run's `effective`."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

sys.path.insert(0, str(Path(__file__).parent))
from test_systems_hf import _text_config, _tokenizer  # noqa: E402

from nycc_bench import evaluate  # noqa: E402
from nycc_bench.kinds.instances import build_instances  # noqa: E402
from nycc_bench.systems import make_system  # noqa: E402
from nycc_bench.tasks import get_task  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
DEFAULT = ("{% for m in messages %}<|{{ m['role'] }}|>{{ m['content'] }}<|end|>{% endfor %}"
           "{% if add_generation_prompt %}<|assistant|>{% endif %}")
TERSE = ("{% for m in messages %}[{{ m['role'] }}] {{ m['content'] }}\n{% endfor %}"
         "{% if add_generation_prompt %}[bot]{% endif %}")


@pytest.fixture(scope="module")
def model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A random 2-layer Llama whose tokenizer has a `default` and a `terse` chat template."""
    folder = tmp_path_factory.mktemp("chat_template") / "tiny"
    torch.manual_seed(0)
    tok = _tokenizer()
    tok.chat_template = {"default": DEFAULT, "terse": TERSE}
    transformers.LlamaForCausalLM(transformers.LlamaConfig(**_text_config(tok))).save_pretrained(folder)
    tok.save_pretrained(folder)
    return folder


def _instance(dataset: str):
    return build_instances(get_task("matching"), dataset)[0]


def test_each_choice_reaches_the_prompt_and_the_record(model: Path, sample_dataset: str) -> None:
    inst = _instance(sample_dataset)
    auto = make_system(f"hf:{model}", sample_dataset)
    terse = make_system(f"hf:{model}", sample_dataset, chat_template="terse")
    plain = make_system(f"hf:{model}", sample_dataset, chat_template="none")
    assert auto.prompt(inst).startswith("<|system|>") and auto.prompt(inst).endswith("<|assistant|>")
    assert terse.prompt(inst).startswith("[system] ") and terse.prompt(inst).endswith("[bot]")
    assert plain.prompt(inst) == inst.text()
    # the letters are scored after the template's assistant turn, or after the plain prompt's "Answer:"
    assert terse.choice_context(inst).endswith("[bot]Answer:") and plain.choice_context(inst).endswith("Answer:")
    task = get_task("matching")
    assert [s.effective(task)["chat_template"] for s in (auto, terse, plain)] == ["default", "terse", "none"]
    assert [s.describe()["chat_template"] for s in (auto, terse, plain)] == ["default", "terse", None]
    # the same model answers differently when it is prompted differently
    scored = [s.choose(task, [inst])[0].raw["loglikelihoods"] for s in (auto, terse, plain)]
    assert scored[0] != scored[1] != scored[2]


def test_bad_names_are_one_line_naming_the_templates(model: Path, sample_dataset: str, tmp_path: Path) -> None:
    with pytest.raises(ValueError, match=r"chat_template='chatml' is not a template of this model; use auto, none "
                                         r"or one of its templates: default, terse"):
        make_system(f"hf:{model}", sample_dataset, chat_template="chatml")
    env = {**os.environ, "PYTHONPATH": str(ROOT), "HF_HUB_OFFLINE": "1"}
    done = subprocess.run([sys.executable, "-m", "nycc_bench.cli", "evaluate", "--system", f"hf:{model}", "--tasks",
                           "matching", "--dataset", sample_dataset, "--limit", "2", "--out", str(tmp_path / "bad"),
                           "--system-option", "chat_template=chatml"], capture_output=True, text=True, env=env,
                          timeout=600)
    assert done.returncode != 0 and "Traceback" not in done.stderr
    assert "chat_template='chatml' is not a template of this model" in done.stderr


def test_the_choice_is_recorded_in_effective(model: Path, sample_dataset: str, tmp_path: Path) -> None:
    run = evaluate(system=f"hf:{model}", tasks="matching", dataset=sample_dataset, out=tmp_path / "run", limit=2,
                   folds=[0], progress=False, chat_template="terse")
    effective = run.record["tasks"]["matching"]["config"]["effective"]["system"]
    assert effective["chat_template"] == "terse"
    assert "--system-option chat_template=terse" in run.record["commands"][0]
    meta = json.loads((tmp_path / "run" / "predictions" / "matching.jsonl.meta.json").read_text())
    assert meta["effective"]["chat_template"] == "terse"
