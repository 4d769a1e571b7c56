"""Submission checks: model ids, Hub facts (size, license, remote code, commit), local folders, the submit flow."""

from __future__ import annotations

import json
import struct
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from nycc_bench.leaderboard.settings import Settings
from nycc_bench.leaderboard.store import LocalStore, Refused
from nycc_bench.leaderboard.submit import submit
from nycc_bench.leaderboard.validate import check_model_id, check_revision, local_facts, safetensors_params

COMMIT = "0123456789abcdef0123456789abcdef01234567"


@pytest.mark.parametrize("text", ["../../etc/passwd", "/etc/passwd", "https://evil.example/x", "http://x/y",
                                  "<script>alert(1)</script>/x", "org/../x", "~/model", "org/model/extra", "org",
                                  "org/model.git", "org /model", "org/mo del", "ör/model", "org\\model", "-org/x",
                                  "a" * 97 + "/x"])
def test_bad_model_ids_are_refused(text: str) -> None:
    with pytest.raises(Refused, match="model:"):
        check_model_id(text)


@pytest.mark.parametrize("text", ["org/model", "meta-llama/Llama-3.1-8B", "Org_1/model.v2-base", " org/m "])
def test_good_model_ids(text: str) -> None:
    assert check_model_id(text) == text.strip()


def test_revisions() -> None:
    assert check_revision("") is None and check_revision("main") == "main"
    assert check_revision(COMMIT) == COMMIT and check_revision("refs/pr") == "refs/pr"
    for bad in ("../x", "a b", "x;rm -rf /", "<b>"):
        with pytest.raises(Refused, match="revision"):
            check_revision(bad)


class FakeApi:
    """`HfApi.model_info` answers from a table; unknown ids raise as the Hub client does."""

    def __init__(self, **models: Any) -> None:
        self.models = models
        self.calls: list[tuple[str, str | None]] = []

    def model_info(self, model_id: str, revision: str | None = None) -> Any:
        self.calls.append((model_id, revision))
        if model_id not in self.models:
            raise FileNotFoundError(f"404 {model_id}")
        return self.models[model_id]

    def get_safetensors_metadata(self, model_id: str, revision: str | None = None) -> Any:
        """Per-dtype counts of every shard's header, as `HfApi.get_safetensors_metadata` sums them."""
        shards = self.models[model_id].shards
        if not shards:
            raise FileNotFoundError(f"{model_id} is not a safetensors repo")
        return SimpleNamespace(parameter_count={"BF16": sum(shards)})


def info(model_id: str, params: int | None = 7_000_000_000, license_: str | None = "apache-2.0",
         tags: tuple[str, ...] = (), config: dict | None = None, pipeline: str = "text-generation",
         gated: bool = False, files: tuple[str, ...] | None = None) -> Any:
    """A model whose `params` are split over two shards (as `HfApi.model_info` and the safetensors headers say)."""
    shards = [params // 2, params - params // 2] if params else []
    if files is None:
        files = ("config.json", "model.safetensors.index.json", "model-00001-of-00002.safetensors",
                 "model-00002-of-00002.safetensors") if params else ("config.json", "pytorch_model.bin")
    return SimpleNamespace(id=model_id, sha=COMMIT, private=False, gated=gated, tags=list(tags), config=config or {},
                           card_data={"license": license_} if license_ else None, pipeline_tag=pipeline,
                           siblings=[SimpleNamespace(rfilename=f) for f in files], shards=shards,
                           safetensors=SimpleNamespace(total=1))  # the Hub's own summary is not what counts


@pytest.fixture
def api() -> FakeApi:
    return FakeApi(**{
        "org/good": info("org/good"),
        "org/huge": info("org/huge", params=70_000_000_000),
        "org/nolicense": info("org/nolicense", license_=None),
        "org/tagged": info("org/tagged", license_=None, tags=("license:mit",)),
        "org/custom": info("org/custom", tags=("custom_code",)),
        "org/automap": info("org/automap", config={"auto_map": {"AutoModel": "x.Y"}}),
        "org/pickled": info("org/pickled", params=None),
        "org/decoy": info("org/decoy", params=1, files=("config.json", "model.safetensors", "pytorch_model.bin")),
        "org/keras": info("org/keras", files=("config.json", "model.safetensors", "tf_model.h5")),
        "org/bare": info("org/bare", params=None, files=("config.json", "README.md")),
        "org/gated": info("org/gated", gated=True),
        "org/vlm": info("org/vlm", pipeline="image-text-to-text"),
    })


def settings(tmp_path: Path, **kw: Any) -> Settings:
    return Settings(data_dir=tmp_path, dataset="unused", **kw)


def test_submit_resolves_the_revision_to_a_commit(tmp_path: Path, api: FakeApi) -> None:
    store = LocalStore(tmp_path)
    job = submit(store, settings(tmp_path), "org/good", "v1.0", ["ranking", "matching"], "alice", api=api)
    assert api.calls == [("org/good", "v1.0")]
    assert job.spec == f"hf:org/good@{COMMIT}" and job.commit == COMMIT and job.revision == "v1.0"
    assert job.tasks == ["matching", "ranking"] and job.user == "alice"
    assert job.params == 7_000_000_000  # both shards' headers, not the Hub's summary (1)
    assert job.license == "apache-2.0" and job.status == "PENDING"
    vlm = submit(store, settings(tmp_path), "org/vlm", "", ["matching_from_pixels"], "alice", api=api)
    assert vlm.spec.startswith("vlm:org/vlm@")
    tagged = submit(store, settings(tmp_path), "org/tagged", "", ["matching"], "alice", api=api)
    assert tagged.license == "mit"


@pytest.mark.parametrize(("model", "tasks", "message"), [
    ("org/huge", ["matching"], "70.0B parameters; this leaderboard runs models up to 15B"),
    ("org/nolicense", ["matching"], "no license"),
    ("org/custom", ["matching"], "trust_remote_code"),
    ("org/automap", ["matching"], "trust_remote_code"),
    ("org/pickled", ["matching"], r"not all safetensors \(pytorch_model.bin\)"),
    ("org/decoy", ["matching"], r"not all safetensors \(pytorch_model.bin\)"),
    ("org/keras", ["matching"], r"not all safetensors \(tf_model.h5\)"),
    ("org/bare", ["matching"], "cannot read the safetensors headers of org/bare"),
    ("org/gated", ["matching"], "private or gated"),
    ("org/missing", ["matching"], "cannot read org/missing on the Hub"),
    ("org/good", ["matching_from_pixels"], "need a vision-language model"),
    ("org/good", [], "choose at least one task"),
    ("org/good", ["matchin"], "unknown 'matchin'"),
    ("openai:gpt-4o", ["matching"], "API models are not enabled"),
])
def test_refusals(tmp_path: Path, api: FakeApi, model: str, tasks: list[str], message: str) -> None:
    with pytest.raises(Refused, match=message):
        submit(LocalStore(tmp_path), settings(tmp_path), model, "", tasks, "alice", api=api)


def test_operator_switches(tmp_path: Path, api: FakeApi) -> None:
    from nycc_bench.leaderboard.submit import concrete_dtype

    store = LocalStore(tmp_path)
    loose = settings(tmp_path, allow_remote_code=True, max_params_b=100, allow_api=True)
    job = submit(store, loose, "org/custom", "", ["matching"], "alice", api=api)
    assert job.options == {"dtype": concrete_dtype("default"), "trust_remote_code": True}
    submit(store, loose, "org/huge", "", ["matching"], "alice", api=api)
    api_job = submit(store, loose, "openai:gpt-4o-mini", "", ["humorbench"], "alice", api=api)
    assert (api_job.spec, api_job.source, api_job.params) == ("openai:gpt-4o-mini", "api", None)
    with pytest.raises(Refused, match="not an API model name"):
        submit(store, loose, "openai:../x", "", ["matching"], "alice", api=api)


def test_users_duplicates_and_rate_limit(tmp_path: Path, api: FakeApi) -> None:
    store = LocalStore(tmp_path)
    strict = settings(tmp_path, anonymous_user=None, rate_limit=2)
    with pytest.raises(Refused, match="sign in"):
        submit(store, strict, "org/good", "", ["matching"], None, api=api)
    submit(store, strict, "org/good", "", ["matching"], "alice", api=api)
    with pytest.raises(Refused, match=r"duplicate: org/good .* already has matching"):
        submit(store, strict, "org/good", "main", ["matching"], "bob", api=api)  # same commit, other user
    submit(store, strict, "org/good", "", ["matching"], "alice", dtype="bfloat16", api=api)  # other settings
    with pytest.raises(Refused, match="rate limit: alice"):
        submit(store, strict, "org/vlm", "", ["matching"], "alice", api=api)
    anonymous = settings(tmp_path, anonymous_user="anonymous", rate_limit=1)
    with pytest.raises(Refused, match="sign in"):  # no visitor address: no bucket at all, never a shared one
        submit(store, anonymous, "org/vlm", "", ["ranking"], None, api=api)
    first = submit(store, anonymous, "org/vlm", "", ["ranking"], None, api=api, visitor="10.0.0.1").user
    assert first.startswith("anonymous-") and "10.0.0.1" not in first
    with pytest.raises(Refused, match=f"rate limit: {first}"):
        submit(store, anonymous, "org/tagged", "", ["ranking"], None, api=api, visitor="10.0.0.1")
    second = submit(store, anonymous, "org/tagged", "", ["ranking"], None, api=api, visitor="10.0.0.2")
    assert second.user != first  # another signed-out visitor has a bucket of their own


def test_default_precision_is_the_concrete_dtype_for_duplicates(tmp_path: Path, api: FakeApi) -> None:
    from nycc_bench.leaderboard.submit import concrete_dtype

    store, loose = LocalStore(tmp_path), settings(tmp_path, rate_limit=100)
    concrete = concrete_dtype("default")
    assert concrete in ("float32", "bfloat16", "float16")
    job = submit(store, loose, "org/good", "", ["matching"], "alice", api=api)
    assert job.options == {"dtype": concrete}
    with pytest.raises(Refused, match="duplicate"):
        submit(store, loose, "org/good", "", ["matching"], "bob", dtype=concrete, api=api)


def _safetensors(path: Path, shapes: dict[str, list[int]]) -> None:
    header = json.dumps({"__metadata__": {"format": "pt"},
                         **{k: {"dtype": "F32", "shape": s, "data_offsets": [0, 0]} for k, s in shapes.items()}})
    path.write_bytes(struct.pack("<Q", len(header)) + header.encode())


def test_local_folders(tmp_path: Path) -> None:
    folder = tmp_path / "model"
    folder.mkdir()
    (folder / "config.json").write_text(json.dumps({"architectures": ["LlamaForCausalLM"]}))
    with pytest.raises(Refused, match=r"no \.safetensors weights"):
        local_facts(str(folder))
    _safetensors(folder / "model-00001.safetensors", {"a": [10, 20], "b": [5]})
    _safetensors(folder / "model-00002.safetensors", {"c": [3, 3, 3]})
    assert safetensors_params(folder / "model-00002.safetensors") == 27
    with pytest.raises(Refused, match=r"no \.safetensors weights \(model.safetensors or its index\)"):
        local_facts(str(folder))  # shards nobody indexes are not what transformers loads
    index = {"weight_map": {"a": "model-00001.safetensors", "b": "model-00001.safetensors",
                            "c": "model-00003.safetensors"}}
    (folder / "model.safetensors.index.json").write_text(json.dumps(index))
    with pytest.raises(Refused, match="names shards that are not in the folder"):
        local_facts(str(folder))
    index["weight_map"]["c"] = "model-00002.safetensors"
    (folder / "model.safetensors.index.json").write_text(json.dumps(index))
    (folder / "README.md").write_text("---\nlicense: apache-2.0\n---\n# m\n")
    facts = local_facts(str(folder))
    assert (facts.params, facts.license, facts.kind, facts.source) == (232, "apache-2.0", "hf", "local")
    assert facts.spec == f"hf:{folder}" and facts.commit
    with pytest.raises(Refused, match="not a model folder"):
        local_facts(str(tmp_path))
    store = LocalStore(tmp_path / "store")
    with pytest.raises(Refused, match="is a path"):  # local folders need the operator's switch
        submit(store, settings(tmp_path), str(folder), "", ["matching"], "alice")
    job = submit(store, settings(tmp_path, allow_local=True), str(folder), "", ["matching"], "alice")
    assert job.model == "model" and job.source == "local"
    with pytest.raises(Refused, match="is a path"):
        submit(store, settings(tmp_path, allow_local=True), "../../etc/passwd", "", ["matching"], "alice")


def test_signed_in_user_is_the_rate_limit_bucket(tmp_path: Path, api: FakeApi) -> None:
    import gradio as gr

    from nycc_bench.leaderboard.ui import App

    store = LocalStore(tmp_path)
    app = App(settings(tmp_path, anonymous_user=None), store, hub_api=api)
    refused, _ = app.submit("org/good", "", ["matching"], "default", None)
    assert "sign in with Hugging Face" in refused
    profile = gr.OAuthProfile({"preferred_username": "alice", "name": "Alice", "profile": "", "picture": ""})
    queued, queue = app.submit("org/good", "", ["matching"], "default", profile)
    assert "Queued" in queued and list(queue["User"]) == ["alice"] and list(queue["Status"]) == ["PENDING"]


def test_an_overlong_revision_is_named_as_the_revision(tmp_path: Path, api: FakeApi) -> None:
    with pytest.raises(Refused, match=r"^revision: 201 characters; a branch, tag or commit has at most 200"):
        submit(LocalStore(tmp_path), settings(tmp_path), "org/good", "r" * 201, ["matching"], "alice", api=api)
    with pytest.raises(Refused, match=r"^model: 301 characters"):
        submit(LocalStore(tmp_path), settings(tmp_path), "o/" + "m" * 299, "", ["matching"], "alice", api=api)
