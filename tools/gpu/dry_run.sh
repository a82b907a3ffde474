#!/bin/bash
# A CPU rehearsal of the GPU session (README.md), here, after tools/gpu/prepare.sh:
#   bash tools/gpu/dry_run.sh [STEPS]      # default: every step
# Copies what the device call would send (tracked and untracked-not-ignored files, plus
# .gpu_carry) into a scratch tree, then runs `session.sh --dry_run` there with
# PY=bazel-bin/tools/gpu/session_env (this machine's locked packages; nvcc where present),
# so that the shared working tree is left alone. Proves imports, paths and the writing of
# the log and the JSON; nothing runs on a GPU. Output: $DRY_DIR/out (default
# /tmp/worldeval_gpu_dry/out).
set -euo pipefail
cd "$(dirname "$0")/../.."
DRY_DIR=${DRY_DIR:-/tmp/worldeval_gpu_dry}
PY_BIN="$(readlink -f bazel-bin)/tools/gpu/session_env"
[ -x "$PY_BIN" ] || { echo "no $PY_BIN: run tools/gpu/prepare.sh first"; exit 1; }
[ -f .gpu_carry/MANIFEST.json ] || { echo "no .gpu_carry: run tools/gpu/prepare.sh first"; exit 1; }
rm -rf "$DRY_DIR"
mkdir -p "$DRY_DIR/tree" "$DRY_DIR/out"
{ git ls-files -z --cached --others --exclude-standard; find .gpu_carry -type f -print0; } |
  while IFS= read -r -d '' f; do [ -f "$f" ] && printf '%s\0' "$f"; done |
  tar --null -T - -cf - | tar -xf - -C "$DRY_DIR/tree"
echo "scratch tree: $DRY_DIR/tree ($(du -sh "$DRY_DIR/tree" | cut -f1))"
cd "$DRY_DIR/tree"
OUT="$DRY_DIR/out" WORK="$DRY_DIR/work" PY="$PY_BIN" WORLDEVAL_TREE="$PWD" \
  GPU_SESSION_STEPS="${1:-env ext checks vbench physics_iq}" \
  bash tools/gpu/session.sh --dry_run
