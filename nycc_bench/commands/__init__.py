"""One module per `nycc-bench` command: each has `add_parser(sub)` (its options and help) and `run(args)` (what it
does, heavy libraries imported inside); `nycc_bench/cli.py` assembles them and handles errors. Options several
commands share live in `options.py`.

`COMMANDS` is the one list of commands, in the order `--help` lists them: each name with the function that adds its
parser (`"module:function"`, imported only when that command runs, or when the whole parser is asked for) and the
one line `--help` shows (read from here, so `nycc-bench --help` imports no command module). To add a command, add
its line here and its module; `tests/test_cli_lazy.py` checks that each line's help is its parser's."""

from __future__ import annotations

COMMANDS: dict[str, tuple[str, str]] = {
    "build": ("nycc_bench.commands.build:add_parser",
              "build the Hub dataset repo (parquet + card) from upstream raw files"),
    "sources": ("nycc_bench.commands.sources:add_parser",
                "list the pinned upstream sources and the files `--source upstream` fetches"),
    "tasks": ("nycc_bench.commands.tasks:add_parser",
              "list the tasks; `tasks show NAME [--json]` prints one task's definition"),
    "evaluate": ("nycc_bench.commands.evaluate:add_parser",
                 "run and score many tasks with one system into RUN_DIR/results.json"),
    "push": ("nycc_bench.commands.evaluate:add_parser",
             "push a run folder's record and predictions to a Hub dataset repo"),
    "submission": ("nycc_bench.commands.submission:add_parser",
                   "Hessel leaderboard submissions: `check FILE`, `from-responses FILE.jsonl`"),
    "run": ("nycc_bench.commands.run:add_parser", "run a system on one task; writes predictions JSONL (resumable)"),
    "score": ("nycc_bench.commands.score:add_parser", "score one task's predictions (JSON on the last line)"),
    "reliability": ("nycc_bench.commands.reliability:add_parser",
                    "Zhang's judge-reliability check (Table 2): top 10 vs #1000-1009"),
    "reward": ("nycc_bench.commands.reward:add_parser",
               "offline judges: train/evaluate the humor reward model, train the grader"),
    "leaderboard": ("nycc_bench.commands.leaderboard:add_parser", "serve the leaderboard (the Space's app) locally"),
    "cards": ("nycc_bench.commands.cards:add_parser",
              "model cards from results records (optionally evaluating the baselines)"),
    "seed": ("nycc_bench.commands.seed:add_parser",
             "regenerate the leaderboard's seed results (baselines on the sample)"),
    "novelty": ("nycc_bench.novelty.cli:add_novelty_parser",
                "check whether generated captions copy human captions (exact and near-duplicate)"),
    "lm-eval": ("nycc_bench.commands.lmeval:add_parser",
                "nycc-bench tasks for lm-evaluation-harness: `export DIR` or `path`"),
    "import": ("nycc_bench.commands.lmeval:add_parser",
               "read another harness's output or the papers' published outputs into results records: `import lm-eval "
               "RESULTS_DIR --out RUN_DIR`, `import published --source upstream --out FOLDER`"),
    "show": ("nycc_bench.show:add_show_parser", "one answered instance: prompt, reply, parsed answer and verdict"),
    "view": ("nycc_bench.viewer.cli:add_view_parser",
             "a local page over run folders: scores, every instance, filters, search, two runs side by side"),
    "arena": ("nycc_bench.commands.arena:add_parser", "the Caption Arena's votes: `export` them, compute `ratings`"),
    "judges": ("nycc_bench.commands.arena:add_parser",
               "judges measured against people: `agree` with the arena's votes"),
    "reproduce": ("nycc_bench.reproducing.command:add_reproduce_parser",
                  "recompute every published figure from public inputs and compare it at the printed digits"),
    "demo": ("nycc_bench.commands.demo:add_parser", "run the main job on the embedded sample"),
    "publish": ("nycc_bench.commands.publish:add_parser",
                "stage and push to the Hub (upload.py; `publish --help` for options)"),
    "hub": ("nycc_bench.publish.hub_cli:add_hub_parser",
            "a local stand-in for the Hugging Face Hub, to rehearse a push"),
    "cache": ("nycc_bench.cache_command:add_parser",
              "the LLM answer cache: `cache info` (what it holds, by model and endpoint), `cache clear` (empty it)"),
}
