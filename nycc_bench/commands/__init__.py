"""One module per `nycc-bench` command: each has `add_parser(sub)` (its options and help) and `run(args)` (what it
does, heavy libraries imported inside); `nycc_bench/cli.py` assembles them in order and handles errors. Options
several commands share live in `options.py`."""
