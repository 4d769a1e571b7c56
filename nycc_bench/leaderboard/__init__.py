"""The public leaderboard: a Gradio app over a store of requests and results, with a worker that evaluates
submissions. `serve()` runs it locally (`nycc-bench leaderboard`); `spaces/leaderboard/app.py` on a Space."""

from __future__ import annotations

import logging
from dataclasses import replace
from pathlib import Path
from typing import Any

from ..paths import SEED_DIR
from .settings import Settings
from .store import LocalStore, Store, StoreUnavailable

log = logging.getLogger("nycc_bench.leaderboard")


def open_store(settings: Settings, hub_api: Any = None) -> Store:
    """The Hub store when both repos are configured, else the local one; `StoreUnavailable` when unreachable."""
    if settings.hub:
        if not (settings.requests_repo and settings.results_repo):
            raise StoreUnavailable("set both NYCC_LB_REQUESTS_REPO and NYCC_LB_RESULTS_REPO (or neither)")
        from .hub_store import HubStore

        return HubStore(settings.data_dir / "hub", settings.requests_repo, settings.results_repo, api=hub_api)
    return LocalStore(settings.data_dir)


def create_app(settings: Settings, seed_dir: Path | None = SEED_DIR, start_worker: bool | None = None,
               hub_api: Any = None, model_api: Any = None, published: str | None = None,
               sbert: bool = True) -> tuple[Any, Any]:
    """(gradio Blocks, App): open the store, take back jobs of dead workers, seed an empty store, build the UI,
    then start the worker. A store that cannot be opened gives an app that shows the error and nothing else.
    `published` (`upstream` or a folder of the pinned files; default `settings.published`, NYCC_LB_SOURCE): seed
    with the papers' published runs instead of the sample's baselines (the offline demo's seed), and judge with the
    default offline judges (`offline_judges.default_judges`) unless NYCC_LB_JUDGES names others."""
    from ..secrets import scrub_logs
    from .ui import App, build
    from .worker import Worker

    scrub_logs()  # a key a server echoes never reaches the Space's logs
    if published is not None and published != settings.published:
        settings = replace(settings, published=published)  # the Arena tab reads it too (no simulated sample votes)
    published = settings.published
    settings = with_default_judges(settings)

    store: Store | None
    try:
        store = open_store(settings, hub_api)
        if settings.adopt_results and (adopted := store.adopt()):
            log.warning("adopted %d results published without a digest: %s", len(adopted), ", ".join(adopted))
        for job in store.recover(settings.heartbeat_timeout_s, settings.max_attempts):
            log.warning("job %s of %s: %s", job.id, job.model, job.reason)
        if published is not None:
            from .seed import seed_published

            if n := seed_published(store, published, settings.data_dir / "published", sbert=sbert):
                log.info("seeded %d published runs from %s", n, published)
        elif seed_dir is not None and (n := store.seed(seed_dir)):
            log.info("seeded %d baseline results from %s (sample data, the offline demo)", n, seed_dir)
        error = None
    except StoreUnavailable as err:
        store, error = None, str(err)
        log.error("results store unavailable: %s", err)
    app = App(settings, store, error, hub_api=model_api)
    demo = build(app)  # reads the Browse index in this thread, before any worker runs
    if store is not None and (settings.worker if start_worker is None else start_worker):
        import_model_libraries()
        Worker(store, settings).start()
    if store is not None and settings.judges_reports == "start":  # the About tab's judges reports, made now
        import_model_libraries()
        app.start_judge_reports()
    return demo, app


def with_default_judges(settings: Settings) -> Settings:
    """A board on the real data (`published` set) with no NYCC_LB_JUDGES judges with the default offline judges
    (`offline_judges.default_judges`: the ones trained on the public data where they are here, else the sample's,
    each record saying what it was trained on); any other board is as configured."""
    if settings.published is None or settings.judges:
        return settings
    from ..offline_judges import default_judges

    judges, why = default_judges()
    log.info("judges: %s (%s)", ", ".join(sorted({j.name for j in judges.values()})), why)
    return replace(settings, judges={task: judge.name for task, judge in judges.items()})


def import_model_libraries() -> None:
    """Import torch and transformers whole in this thread, before the worker thread may import them.

    `datasets` checks `"transformers" in sys.modules` while hashing a loader's config and then reads
    `transformers.PreTrainedTokenizerBase`; while the worker thread is half-way through importing transformers,
    that attribute does not exist yet and reading the dataset fails with an AttributeError. Imported here first,
    both threads only ever see finished modules.
    """
    import importlib

    for name, attribute in (("torch", "Tensor"), ("transformers", "PreTrainedTokenizerBase")):
        try:
            module = importlib.import_module(name)
        except ImportError:  # a leaderboard without the model extras: its worker only runs API systems
            continue
        getattr(module, attribute)


def serve(data_dir: str | Path, port: int, dataset: str | None = None, host: str = "127.0.0.1",
          published: str | None = None, sbert: bool = True) -> None:
    """Run the leaderboard on `host:port` with a local store in `data_dir` (blocks until interrupted); seeded
    with the published runs of `published` (`upstream` or a folder) when given, else the sample's."""
    from ..progress import working

    with working("leaderboard: building the app (the store, its runs and tables)"):
        from .ui import launch_options

        settings = Settings.from_env(data_dir=data_dir, dataset=dataset)
        demo, _ = create_app(settings, published=published, sbert=sbert)
    demo.queue(default_concurrency_limit=8).launch(server_name=host, server_port=port, **launch_options(settings))


__all__ = ["SEED_DIR", "Settings", "create_app", "open_store", "serve", "with_default_judges"]
