"""`vllm:` (vLLM's `LLM` in this process) scoring tasks by log-likelihood, run by vLLM's own interpreter: started by
`vllm_server.in_process` (for `tests/test_served_real.py` and `benchmarks/runner.py --served`), never imported.

The one argument is a JSON object: `site` (the project's site-packages, put after vLLM's own so vLLM keeps its
transformers and torch), `model`, `dataset`, `tasks`, `splits` (null: each task's default split), `limit` (null:
every instance) and `warmup` (that many instances scored once first, untimed). The project is on PYTHONPATH. The
last line printed is `RESULT ` and a JSON object: the engine's load time, vLLM's version, and per task the letters,
each letter's log-likelihood, and the wall and CPU seconds (this process and any children it started) of one
`choose` over the instances of folds 0 and 1 (the first `limit`)."""

from __future__ import annotations

import json
import os
import sys
import time

ARGS = json.loads(sys.argv[1])
sys.path.append(ARGS["site"])

from vllm_server import tree_cpu_s  # noqa: E402  (this folder: the script's own)

from nycc_bench.kinds.instances import build_instances  # noqa: E402
from nycc_bench.systems import make_system  # noqa: E402
from nycc_bench.tasks import get_task  # noqa: E402

start = time.perf_counter()
system = make_system("vllm:" + ARGS["model"], ARGS["dataset"], dtype="float32", enforce_eager=True,
                     max_model_len=2048)
result: dict = {"load_wall_s": round(time.perf_counter() - start, 3), "vllm": system.describe()["vllm"], "tasks": {}}
for name in ARGS["tasks"]:
    task = get_task(name)
    instances = [i for fold in (0, 1) for split in ARGS["splits"] or [None]
                 for i in build_instances(task, ARGS["dataset"], split, fold)][:ARGS["limit"]]
    if ARGS["warmup"]:
        system.choose(task, instances[:ARGS["warmup"]])
    cpu0, wall0 = tree_cpu_s(os.getpid()), time.perf_counter()
    outputs = system.choose(task, instances)
    wall, cpu = time.perf_counter() - wall0, tree_cpu_s(os.getpid()) - cpu0
    result["tasks"][name] = {"wall_s": round(wall, 3), "cpu_s": round(cpu, 3), "letters": [o.letter for o in outputs],
                             "loglikelihoods": [o.raw["loglikelihoods"] for o in outputs]}
print("RESULT " + json.dumps(result), flush=True)
