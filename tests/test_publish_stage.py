"""upload.py staging, offline: what is staged loads (datasets, evaluate), every card parses and carries the metadata
the Hub needs, a dry run is byte-deterministic, junk and secrets never get in, and bad cards are refused."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import datasets
import evaluate
import pytest
from huggingface_hub import DatasetCard, ModelCard, RepoCard, SpaceCard

from nycc_bench.builders import build_dataset
from nycc_bench.paths import SAMPLE_DIR, SEED_DIR
from nycc_bench.publish import DATASET_NAME, DEFAULT_PACKAGE_SPEC, ROOT, PublishError
from nycc_bench.publish.cli import main as upload_main
from nycc_bench.publish.files import DENY, scan_secrets, walk
from nycc_bench.publish.stage import Options, Sources, check_package_spec, stage
from nycc_bench.publish.validate import CardError, validate_dataset_card, validate_model_card, validate_space_card
from nycc_bench.results import read_results, write_results

FAKE_TOKEN = "hf_" + "AbCdEfGhIj" * 3 + "Zz9"
METRICS = sorted(p.name for p in (ROOT / "metrics").iterdir() if p.is_dir() and not p.name.startswith((".", "_")))
SPACE_CARD = """---
title: NYCC leaderboard
emoji: 🏆
colorFrom: blue
colorTo: indigo
sdk: gradio
sdk_version: 6.31.0
app_file: app.py
pinned: false
---

# Leaderboard
"""
# A Space folder as a developer leaves it: the allow-list keeps the first four, the deny-list drops the rest.
SPACE_FILES = {
    "README.md": SPACE_CARD, "app.py": "import gradio as gr\n", "requirements.txt": "nycc-bench[space]>=0.1.0\n",
    "seed/results/seed-random.json": "{}\n",
    "__pycache__/app.cpython-311.pyc": "\0", ".env": f"HF_TOKEN={FAKE_TOKEN}\n", "keys/service.key": "secret\n",
    ".venv/lib/site.py": "x = 1\n", "requests.sqlite": "\0", "seed/.cache/blob": "x", "notes.docx": "x",
}
TINY = {  # one tiny computation per metric module
    "nycc_accuracy": ({"predictions": ["A", "B"], "references": ["A", "C"]}, "accuracy", 0.5),
    "crowd_ny_accuracy": ({"predictions": ["A", "B"], "references": ["A", "A"],
                           "winner_sources": ["crowd_winner", "official_winner"]}, "accuracy", 0.5),
    "explanation_overlap": ({"predictions": ["the cat is the joke"], "references": ["the cat is the joke"]},
                            "rouge_l", 1.0),
    "ead_diversity": ({"predictions": [["a b c", "d e f"]]}, "n_groups", 1),
    "group_win_rate": ({"judgments": [{"contest_number": 1, "model_position": "A", "verdict": "A"},
                                      {"contest_number": 1, "model_position": "B", "verdict": "A"}]}, "win_rate", 0.5),
    "element_autograder": ({"predictions": ["e"], "references": ["x"], "judgments": ["PASS"]}, "element_accuracy", 1.0),
}


def make_space(root: Path) -> Path:
    for rel, text in SPACE_FILES.items():
        (root / "leaderboard" / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / "leaderboard" / rel).write_text(text, encoding="utf-8")
    return root


def third_party_results(folder: Path) -> Path:
    """A results record of a model nycc-bench does not own, with figures reported elsewhere (`extra.source`)."""
    data = read_results(SEED_DIR / "results" / "seed-random.json")
    data["model"] = {"spec": "openai:gpt-4o", "name": "gpt-4o", "source": "api", "revision": None,
                     "fingerprint": None}
    data["dataset"] = {"name": "nycc-bench/newyorker-caption-contest", "revision": None, "fingerprint": None,
                       "sample": False}
    entry = data["tasks"]["matching"]
    entry["scores"] = {"accuracy": {"value": 0.75, "ci_low": None, "ci_high": None, "n": 4}}
    entry["details"] = {"accuracy": 0.75, "n": 4}  # the reported figure is all the metric output there is
    entry["n"], entry["n_unparsed"] = 4, 0
    data["tasks"] = {"matching": entry}
    data["extra"] = {"source": {"name": "a paper", "url": "https://example.org/paper"}}
    return write_results(folder / "gpt-4o.json", data)


@pytest.fixture(scope="module")
def sources(tmp_path_factory: pytest.TempPathFactory) -> Sources:
    """The sample dataset built once, the real metrics, a fake leaderboard Space, the committed results plus one."""
    tmp = tmp_path_factory.mktemp("sources")
    build_dataset(SAMPLE_DIR, tmp / "dataset", progress=False)
    results = tmp / "results"
    shutil.copytree(SEED_DIR / "results", results)
    third_party_results(results)
    return Sources(dataset_dir=tmp / "dataset", spaces_dir=make_space(tmp / "spaces"), results_dir=results)


OPTS = Options(allow_sample=True, push_third_party=True)


@pytest.fixture(scope="module")
def staged(sources: Sources, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    out = tmp_path_factory.mktemp("staged")
    repos, skipped = stage(out, sources, OPTS)
    assert not skipped
    return {s.repo_id: s.folder for s in repos}


def tree_bytes(root: Path) -> dict[str, bytes]:
    return {rel: (root / rel).read_bytes() for rel in walk(root)[0]}


def test_layout_is_one_folder_per_repo(staged: dict[str, Path]) -> None:
    names = {repo_id: folder.relative_to(folder.parents[1]).as_posix() for repo_id, folder in staged.items()}
    assert names[f"nycc-bench/{DATASET_NAME}"] == f"datasets/{DATASET_NAME}"
    assert {names[f"nycc-bench/{m}"] for m in METRICS} == {f"spaces/{m}" for m in METRICS}
    assert names["nycc-bench/leaderboard"] == "spaces/leaderboard"
    assert names["nycc-bench/baseline-random"] == "models/baseline-random"
    assert names["nycc-bench/eval-openai-gpt-4o"] == "models/eval-openai-gpt-4o"
    assert all(sorted(walk(f)[0]) == ["README.md"] for r, f in staged.items() if "/baseline-" in r or "/eval-" in r)


def test_dry_run_twice_gives_identical_bytes(sources: Sources, staged: dict[str, Path], tmp_path: Path) -> None:
    first = staged[f"nycc-bench/{DATASET_NAME}"].parents[1]
    stage(tmp_path / "again", sources, OPTS)
    assert tree_bytes(tmp_path / "again") == tree_bytes(first)
    stage(tmp_path / "again", sources, OPTS)  # restaging the same folder replaces it with the same bytes
    assert tree_bytes(tmp_path / "again") == tree_bytes(first)


def test_staged_dataset_loads_every_config(staged: dict[str, Path], tmp_path: Path) -> None:
    folder = staged[f"nycc-bench/{DATASET_NAME}"]
    card = DatasetCard.load(folder / "README.md").data.to_dict()
    infos = {i["config_name"]: i for i in card["dataset_info"]}
    assert len(card["configs"]) == 19  # with Hessel's two hidden-label leaderboard sets
    for config in card["configs"]:
        name = config["config_name"]
        loaded = datasets.load_dataset(str(folder), name, cache_dir=str(tmp_path / "cache"))
        assert {s: loaded[s].num_rows for s in loaded} == {s["name"]: s["num_examples"] for s in infos[name]["splits"]}


@pytest.mark.parametrize("metric", METRICS)
def test_staged_metric_loads_and_computes(staged: dict[str, Path], metric: str) -> None:
    module = evaluate.load(str(staged[f"nycc-bench/{metric}"]))
    kwargs, key, expected = TINY[metric]
    assert module.compute(**kwargs)[key] == pytest.approx(expected)


def test_every_card_parses_with_the_expected_metadata(staged: dict[str, Path]) -> None:
    dataset_card = DatasetCard.load(staged[f"nycc-bench/{DATASET_NAME}"] / "README.md")
    configs = {c["config_name"] for c in dataset_card.data.configs}
    assert {"cc-by-4.0", "mit"} <= set(dataset_card.data.license)
    for metric in METRICS:
        data = SpaceCard.load(staged[f"nycc-bench/{metric}"] / "README.md").data
        assert (data.sdk, data.app_file, data.python_version) == ("gradio", "app.py", "3.11")
        assert {"evaluate", "metric"} <= set(data.tags)
        assert DEFAULT_PACKAGE_SPEC in (staged[f"nycc-bench/{metric}"] / "requirements.txt").read_text().splitlines()
    assert RepoCard.load(staged["nycc-bench/leaderboard"] / "README.md").data.sdk == "gradio"
    for repo_id in [r for r in staged if "/baseline-" in r or "/eval-" in r]:
        data = ModelCard.load(staged[repo_id] / "README.md").data
        assert data.eval_results and data.model_name
        for r in data.eval_results:
            assert r.dataset_type == f"nycc-bench/{DATASET_NAME}" and r.dataset_config in configs
            # every task's paper split: test, and Zhang's pooled held-out contests for caption generation
            assert r.dataset_split in ("test", "test+validation") and r.metric_type in [*METRICS]
        assert (data.license == "apache-2.0") == ("/baseline-" in repo_id)


def test_a_third_party_card_keeps_its_source_and_claims_no_license(staged: dict[str, Path]) -> None:
    card = ModelCard.load(staged["nycc-bench/eval-openai-gpt-4o"] / "README.md")
    (result,) = card.data.eval_results
    assert (result.dataset_config, result.metric_type, result.metric_value) == ("matching", "nycc_accuracy", 0.75)
    assert result.source_url == "https://example.org/paper" and card.data.license is None
    assert "evaluation card" in card.text and "holds no weights" in card.text


def test_staged_folders_hold_no_junk_and_no_secret(staged: dict[str, Path]) -> None:
    for folder in staged.values():
        for rel in walk(folder)[0]:
            parts = rel.split("/")
            assert not any(p in (".venv", "__pycache__", ".cache", ".env") or p.endswith((".pyc", ".key", ".sqlite"))
                           for p in parts), rel
        assert scan_secrets(folder, [FAKE_TOKEN]) == []
    assert sorted(walk(staged["nycc-bench/leaderboard"])[0]) == ["README.md", "app.py", "requirements.txt",
                                                                 "seed/results/seed-random.json"]
    assert (staged["nycc-bench/leaderboard"] / "requirements.txt").read_text() == \
        DEFAULT_PACKAGE_SPEC.replace("nycc-bench", "nycc-bench[space]") + "\n"
    assert {".venv", "__pycache__", ".cache", ".env", "*.pyc", "*.key", "*.sqlite"} <= set(DENY)


def _copy_metric(tmp_path: Path, name: str = "nycc_accuracy") -> Path:
    shutil.copytree(ROOT / "metrics" / name, tmp_path / "metrics" / name)
    return tmp_path / "metrics" / name


def test_a_token_in_a_staged_file_refuses_and_is_not_printed(tmp_path: Path, capsys) -> None:
    folder = _copy_metric(tmp_path)
    with open(folder / "app.py", "a") as f:
        f.write(f'\nTOKEN = "{FAKE_TOKEN}"\n')
    opts = Options(kinds=["metrics"])
    with pytest.raises(PublishError, match=r"app\.py:\d+: looks like a Hugging Face token") as err:
        stage(tmp_path / "out", Sources(metrics_dir=tmp_path / "metrics"), opts)
    assert FAKE_TOKEN not in str(err.value)
    original = (ROOT / "metrics" / "nycc_accuracy" / "app.py").read_text()
    (folder / "app.py").write_text(original + "\nKEY = 'sk-" + "x" * 30 + "'\n")
    assert upload_main(["--dry-run", "--out", str(tmp_path / "out2"), "--only", "metrics"]) == 0  # the real ones
    with pytest.raises(PublishError, match=r"looks like an API key \(sk-\.\.\.\)"):
        stage(tmp_path / "out", Sources(metrics_dir=tmp_path / "metrics"), opts)
    assert "sk-xxxx" not in capsys.readouterr().out


def test_a_secret_from_the_environment_refuses_even_without_a_token_shape(tmp_path: Path, monkeypatch) -> None:
    secret = "plain-looking-value-1234"
    monkeypatch.setenv("MY_SERVICE_API_KEY", secret)
    folder = _copy_metric(tmp_path)
    with open(folder / "README.md", "a") as f:
        f.write(f"\nendpoint key {secret}\n")
    out = tmp_path / "out"
    code = upload_main(["--dry-run", "--out", str(out), "--only", "metrics", "--results", str(tmp_path)])
    assert code == 0  # the real metrics folder is clean
    from nycc_bench.publish.files import secrets_from_env

    with pytest.raises(PublishError, match="holds a secret from this environment"):
        stage(out, Sources(metrics_dir=tmp_path / "metrics"), Options(kinds=["metrics"]), secrets_from_env())


def test_space_cards_that_do_not_validate_are_refused(tmp_path: Path) -> None:
    folder = _copy_metric(tmp_path)
    readme = (folder / "README.md").read_text()
    (folder / "README.md").write_text(readme.replace("sdk: gradio", "sdk: flask"))
    with pytest.raises(CardError, match="sdk 'flask'"):
        stage(tmp_path / "out", Sources(metrics_dir=tmp_path / "metrics"), Options(kinds=["metrics"]))
    (folder / "README.md").write_text(readme.replace("- evaluate\n", ""))
    with pytest.raises(CardError, match="tagged evaluate, metric"):
        stage(tmp_path / "out", Sources(metrics_dir=tmp_path / "metrics"), Options(kinds=["metrics"]))
    (folder / "README.md").write_text(readme + "\n")
    (folder / "requirements.txt").write_text("-e ../..\n")
    with pytest.raises(CardError, match="not a requirement pip can install"):
        validate_space_card(folder, metric="nycc_accuracy")
    (folder / "README.md").write_text("# no front matter\n")
    with pytest.raises(CardError, match="no YAML front matter"):
        validate_space_card(folder)


def test_dataset_and_model_cards_that_do_not_validate_are_refused(staged: dict[str, Path], tmp_path: Path) -> None:
    dataset = tmp_path / "dataset"
    shutil.copytree(staged[f"nycc-bench/{DATASET_NAME}"], dataset)
    shutil.rmtree(dataset / "data" / "humorbench")
    with pytest.raises(CardError, match=r"config humorbench split test: data/humorbench/test-\* matches no staged"):
        validate_dataset_card(dataset)
    model = tmp_path / "model"
    shutil.copytree(staged["nycc-bench/baseline-random"], model)
    text = (model / "README.md").read_text()
    (model / "README.md").write_text(text.replace("config: matching\n", "config: matchin\n", 1))
    with pytest.raises(CardError, match="'matchin' is not a config"):
        validate_model_card(model, f"nycc-bench/{DATASET_NAME}")
    (model / "README.md").write_text(text.replace("type: nycc_accuracy", "type: accuracy", 1))
    with pytest.raises(CardError, match="metric 'accuracy' is not one of"):
        validate_model_card(model, f"nycc-bench/{DATASET_NAME}")
    with pytest.raises(CardError, match="does not list the dataset other/newyorker-caption-contest"):
        validate_model_card(staged["nycc-bench/baseline-random"], "other/newyorker-caption-contest")
    # Zhang's pooled held-out split is written as `datasets` reads it; a part that is no split is refused
    assert "split: test+validation" in text
    (model / "README.md").write_text(text.replace("split: test+validation", "split: test+holdout", 1))
    with pytest.raises(CardError, match=r"split 'test\+holdout' is not one of"):
        validate_model_card(model, f"nycc-bench/{DATASET_NAME}")


def test_sample_and_third_party_repos_are_skipped_unless_asked(sources: Sources, tmp_path: Path) -> None:
    plain = Sources(source="sample", results_dir=sources.results_dir, spaces_dir=sources.spaces_dir)
    repos, skipped = stage(tmp_path / "out", plain, Options(kinds=["dataset", "models"]))
    assert repos == []
    reasons = {s.repo_id: s.reason for s in skipped}
    assert "--allow-sample" in reasons[f"nycc-bench/{DATASET_NAME}"]
    assert "--push-third-party" in reasons["nycc-bench/eval-openai-gpt-4o"]
    assert "sample-data" in reasons["nycc-bench/baseline-random"]
    assert not (tmp_path / "out" / "datasets").exists() and not (tmp_path / "out" / "models").exists()


def test_namespace_changes_every_repo_id_and_the_cards_dataset(sources: Sources, tmp_path: Path) -> None:
    repos, _ = stage(tmp_path / "out", sources, Options(namespace="someone", kinds=["models"], allow_sample=True))
    assert {r.repo_id.split("/")[0] for r in repos} == {"someone"}
    card = ModelCard.load(repos[0].folder / "README.md")
    assert {r.dataset_type for r in card.data.eval_results} == {f"someone/{DATASET_NAME}"}


def test_bad_options_are_refused_before_staging(tmp_path: Path, capsys) -> None:
    for spec, message in [("nycc-bench @ git+https://github.com/nycc-bench/nycc-bench", "not pinned"),
                          ("other-package==1.0", "does not install nycc-bench"), ("nycc bench", "not a requirement")]:
        with pytest.raises(PublishError, match=message):
            check_package_spec(spec)
    for spec in ("nycc-bench", "nycc-bench>=0.1"):
        with pytest.raises(PublishError, match="does not pin one version"):
            check_package_spec(spec)
    check_package_spec("nycc-bench==0.1.0")
    check_package_spec("nycc-bench[judge] @ git+https://github.com/nycc-bench/nycc-bench@v0.2.0")
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "thesis.tex").write_text("precious")
    assert upload_main(["--dry-run", "--out", str(tmp_path / "mine"), "--only", "metrics"]) == 2
    assert "was not made by upload.py" in capsys.readouterr().err
    assert (tmp_path / "mine" / "thesis.tex").read_text() == "precious"
    assert upload_main(["--dry-run", "--only", "metrics"]) == 2
    assert upload_main(["--dry-run", "--out", str(tmp_path / "o"), "--only", "dataset"]) == 2
    assert "--dataset-dir" in capsys.readouterr().err


@pytest.mark.skipif(not (ROOT / "spaces" / "leaderboard" / "README.md").is_file(),
                    reason="spaces/leaderboard/ has no card yet (being written)")
def test_the_real_spaces_folder_stages(tmp_path: Path) -> None:
    repos, _ = stage(tmp_path / "out", Sources(), Options(kinds=["spaces"]))
    assert "nycc-bench/leaderboard" in {r.repo_id for r in repos}
    assert json.dumps([str(p) for r in repos for p in walk(r.folder)[0]]).count(".sqlite") == 0


def test_sample_build_is_refused_without_allow_sample(tmp_path: Path) -> None:
    """A `--dataset-dir` built from the embedded sample carries the sample-data tag and is not staged by default."""
    from nycc_bench.builders import build_dataset
    from nycc_bench.paths import SAMPLE_DIR
    from nycc_bench.publish.cli import main as upload

    build_dataset(SAMPLE_DIR, tmp_path / "ds", ["humorbench"], progress=False)
    assert upload(["--dry-run", "--out", str(tmp_path / "a"), "--dataset-dir", str(tmp_path / "ds"),
                   "--only", "dataset"]) == 0
    assert not (tmp_path / "a" / "datasets").exists() or not any((tmp_path / "a" / "datasets").iterdir())
    assert upload(["--dry-run", "--out", str(tmp_path / "b"), "--dataset-dir", str(tmp_path / "ds"),
                   "--only", "dataset", "--allow-sample"]) == 0
    assert any((tmp_path / "b" / "datasets").iterdir())
