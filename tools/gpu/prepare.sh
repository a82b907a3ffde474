#!/bin/bash
# Prepares the GPU session on THIS (CPU) machine, before the device call (README.md):
#   bash tools/gpu/prepare.sh
# Builds with ./bazelw what the device machine cannot (the generated *_pb2.py; the
# runfiles of //tools/gpu:session_env, which also serve session.sh --dry_run), lists the
# session's third-party packages (bazel query), and fills .gpu_carry/ (git-ignored via
# .git/info/exclude) with those the device image lacks, the *_pb2.py and the vbench wheel
# (tools/gpu/carry.py), checking the 64 MiB that may travel. Prints the `run` arguments.
set -euo pipefail
cd "$(dirname "$0")/../.."
CARRY=.gpu_carry

./bazelw build //tools/gpu:session_env //proto:all  # //proto:all: every *_pb2.py
DIRECT=$(mktemp)
./bazelw query 'kind("py_library", deps(//tools/gpu:session_env)) intersect //third_party/py:*' \
  2>/dev/null >"$DIRECT"
EXTERNAL="$(readlink -f bazel-main)/../../external"
[ -d "$EXTERNAL" ] || EXTERNAL="$(./bazelw info output_base 2>/dev/null)/external"

mkdir -p .git/info
grep -qxF "/$CARRY/" .git/info/exclude 2>/dev/null || echo "/$CARRY/" >>.git/info/exclude
python3 tools/gpu/carry.py --direct="$DIRECT" --external="$EXTERNAL" \
  --bazel_bin="$(readlink -f bazel-bin)" --out="$CARRY" --root=.
rm -f "$DIRECT"

cat <<EOF

Prepared. The device call (one command; about 6 minutes of a 15-minute budget):
  run(command="OUT=\$OUT bash tools/gpu/session.sh", carry=["$CARRY"], timeout_s=480)
What comes back under files_at: session.log, timings.json, checks.xml, vbench.log,
physics_iq.log (tools/gpu/README.md says how to read them). A CPU rehearsal first:
  bash tools/gpu/dry_run.sh
EOF
