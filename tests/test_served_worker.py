"""The leaderboard worker sends an `hf:` job to the operator's OpenAI-compatible deployment (NYCC_LB_SERVED_BASE_URL)
when it serves the job's model, with the same job process, limits, records and publishing rule; a model it does not
serve is loaded by the worker as before."""

from __future__ import annotations

from pathlib import Path

import pytest
from served_helpers import scoring_server

from nycc_bench.leaderboard.settings import Settings
from nycc_bench.leaderboard.store import FINISHED, Job, LocalStore
from nycc_bench.leaderboard.worker import SERVED_ENV, run_worker_once
from nycc_bench.systems import make_system

pytest.importorskip("torch")


@pytest.fixture(scope="module")
def llama(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from tiny_models import save_tiny_llama

    return save_tiny_llama(tmp_path_factory.mktemp("served_worker") / "tiny-llama")


def job_for(llama: Path) -> Job:
    from nycc_bench.leaderboard.validate import local_facts

    facts = local_facts(str(llama))
    return Job(id="job-1", model="tiny-llama", spec=facts.spec, source="local", tasks=["matching"], user="alice",
               run_key="k1", params=facts.params, options={"dtype": "float32"})


@pytest.mark.parametrize("serves", [True, False])
def test_a_job_runs_on_the_served_deployment_when_it_serves_the_model(serves: bool, llama: Path, sample_dataset: str,
                                                                      tmp_path: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    hf = make_system(f"hf:{llama}", sample_dataset)
    listed = [{"id": str(llama) if serves else "another-model", "object": "model"}]
    with scoring_server(hf, models=listed) as server:
        monkeypatch.setenv(SERVED_ENV, server.base_url)
        store, settings = LocalStore(tmp_path / "store"), Settings(data_dir=tmp_path / "store", dataset=sample_dataset)
        store.add_job(job_for(llama), 10, 1e9)
        done = run_worker_once(store, settings)
        calls, base_url = server.count(), server.base_url
    assert done is not None and done.status == FINISHED, done and done.reason
    (result,) = store.results()
    system = result["model"]
    assert result["model"]["name"] == "tiny-llama" and result["model"]["parameters"] == job_for(llama).params
    if serves:
        assert system["spec"] == f"vllm-server:{llama}" and system["endpoint"] == base_url
        assert calls == result["tasks"]["matching"]["scores"]["accuracy"]["n"]  # one request per instance
        assert result["commands"][0].startswith(f"nycc-bench evaluate --system vllm-server:{llama}")
    else:
        assert system["spec"] == f"hf:{llama}" and calls == 0  # loaded by the worker, nothing sent
