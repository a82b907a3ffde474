#!/bin/bash
# The GPU session's one script (tools/gpu/README.md). On the lent device machine, from the
# repository root, after tools/gpu/prepare.sh filled .gpu_carry/ here:
#   bash tools/gpu/session.sh            # writes session.log and timings.json to $OUT
# Steps (each one's failure is reported and the next runs; exit 1 at the end if any failed):
#   env     nvidia-smi, python, torch and CUDA versions
#   ext     every torch_cuda_extension under metrics/ built in place with nvcc + g++
#           (tools/gpu/build_ext.py: tools/cuda/defs.bzl's commands, the device's torch)
#   checks  pytest on the GPU checks; fails where a CUDA case was skipped (tools/gpu/checks.py)
#   vbench  VBench's ten dimensions on --device=cuda, full-size seeded random weights
#           (tools/bench/vbench_weights.py), VBench-shaped videos (tools/gpu/bench.py)
#   physics_iq  Physics-IQ (weight-free, CPU) on its synthetic tree, for a 16-core CPU figure
# --dry_run (tools/gpu/dry_run.sh, on a CPU machine): the same entry points on tiny inputs
# with --device=cpu, CUDA skips allowed, $PY = //tools/gpu:session_env; proves imports,
# paths and the log/JSON writing, nothing about a GPU.
# Env: OUT (required), PY (default python3), WORK (default /tmp/worldeval_gpu),
# GPU_SESSION_STEPS (default "env ext checks vbench physics_iq").
set -uo pipefail
cd "$(dirname "$0")/../.."
DRY=0
[ "${1:-}" = "--dry_run" ] && DRY=1
: "${OUT:?OUT must name the folder whose files come back}"
PY=${PY:-python3}
WORK=${WORK:-/tmp/worldeval_gpu}
STEPS=${GPU_SESSION_STEPS:-env ext checks vbench physics_iq}
CARRY=.gpu_carry
LOG=$OUT/session.log
TIMINGS=$OUT/timings.json
mkdir -p "$OUT" "$WORK"
export PYTHONUNBUFFERED=1 PYTHONDONTWRITEBYTECODE=1

SCALE=1
[ "$DRY" -eq 1 ] && SCALE=4  # two shared cores here, sixteen there
lim() {  # lim SECONDS COMMAND...: a hung step must not use up the device call.
  local seconds=$(( $1 * SCALE ))
  shift
  timeout --kill-after=10 "$seconds" "$@"
  local rc=$?
  [ "$rc" -eq 124 ] && echo "FAIL: timed out after $seconds s: $*"
  return $rc
}

FAILED=()
step() {  # step NAME COMMAND...: runs one step, timed; records a failure and goes on.
  local name=$1 start rc
  shift
  echo "=== step $name: $(date -u +%H:%M:%S)"
  start=$(date +%s)
  "$@"
  rc=$?
  echo "=== step $name: exit $rc after $(( $(date +%s) - start )) s"
  [ "$rc" -eq 0 ] || FAILED+=("$name")
}

env_info() {
  nvidia-smi || echo "(no nvidia-smi)"
  nvcc --version | tail -2 || echo "(no nvcc)"
  echo "nproc $(nproc); $(uptime)"
  local device=cuda
  [ "$DRY" -eq 1 ] && device=cpu
  lim 60 "$PY" -m tools.gpu.bench env --device=$device --work_dir="$WORK" --output_json="$TIMINGS"
}

ext() {
  lim 300 "$PY" -m tools.gpu.build_ext --root=.
}

checks() {
  local allow=()
  [ "$DRY" -eq 1 ] && allow=(--allow_cuda_skips)
  lim 240 "$PY" -m pytest -rs -p no:cacheprovider --import-mode=importlib \
    --basetemp="$WORK/pytest" --junitxml="$OUT/checks.xml" \
    metrics/slam/cuda/cuda_test.py \
    metrics/slam/droid_autocast_test.py \
    metrics/flow/sea_raft/autocast_test.py \
    metrics/segmentation/sam2_autocast_test.py
  local rc=$?
  "$PY" -m tools.gpu.checks --junit="$OUT/checks.xml" "${allow[@]}" || rc=1
  return $rc
}

vbench() {
  if [ "$DRY" -eq 1 ]; then  # weight-free and small-model dimensions, few small videos
    lim 300 "$PY" -m tools.gpu.bench vbench --python="$PY" --device=cpu --work_dir="$WORK/vbench" \
      --output_json="$TIMINGS" --log="$OUT/vbench.log" \
      --dimensions=temporal_flickering,dynamic_degree --videos_per_prompt=1 --frames=8 \
      --height=128 --width=192  # RAFT needs a short side of 128
  else
    lim 300 "$PY" -m tools.gpu.bench vbench --python="$PY" --device=cuda --work_dir="$WORK/vbench" \
      --output_json="$TIMINGS" --log="$OUT/vbench.log"
  fi
}

physics_iq() {
  lim 150 "$PY" -m tools.gpu.bench physics_iq --python="$PY" --work_dir="$WORK/physics_iq" \
    --output_json="$TIMINGS" --log="$OUT/physics_iq.log"
}

main() {
  echo "GPU session $(date -u +%FT%TZ), dry_run=$DRY, steps: $STEPS, PY=$PY"
  if [ ! -f "$CARRY/MANIFEST.json" ]; then
    echo "FAIL: no $CARRY/MANIFEST.json: run tools/gpu/prepare.sh first and name $CARRY in carry"
    return 1
  fi
  # The generated protobuf modules go where `from proto import scorecard_pb2` finds them
  # (git-ignored there: /proto/*_pb2.py); the carried packages come after the tree on the
  # path, and prompt_suite finds the vbench wheel under RUNFILES_DIR.
  cp "$CARRY"/proto/*_pb2.py proto/
  export PYTHONPATH="$PWD:$PWD/$CARRY/site${PYTHONPATH:+:$PYTHONPATH}"
  export RUNFILES_DIR="$PWD/$CARRY/runfiles"
  for s in $STEPS; do
    case $s in
      env) step env env_info ;;
      ext) step ext ext ;;
      checks) step checks checks ;;
      vbench) step vbench vbench ;;
      physics_iq) step physics_iq physics_iq ;;
      *) echo "unknown step $s"; FAILED+=("$s") ;;
    esac
  done
  if [ ${#FAILED[@]} -gt 0 ]; then
    echo "SESSION FAILED: ${FAILED[*]} (files in \$OUT: $(ls "$OUT" | tr '\n' ' '))"
    return 1
  fi
  echo "SESSION OK (files in \$OUT: $(ls "$OUT" | tr '\n' ' '))"
}

main 2>&1 | tee -a "$LOG"
exit "${PIPESTATUS[0]}"
