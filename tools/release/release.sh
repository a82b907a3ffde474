#!/usr/bin/env bash
# Builds every benchmark runner as a self-contained executable zip in dist/:
#
#   tools/release/release.sh           # build dist/<benchmark>-run and dist/SHA256SUMS
#   tools/release/release.sh --check   # also prove two builds of this commit are byte-identical
#
# A release zip carries its Python dependencies (the locked wheels) and needs only
# CPython 3.11 on the target machine. --check rebuilds from a clean output tree (the
# installed wheels are kept) and compares the bytes.
set -euo pipefail
cd "$(dirname "$0")/../.."

# Every runner the catalog lists (an entry's `targets: "//benchmarks/<id>:run"`): a new
# benchmark's runner is released without an edit here.
mapfile -t RUNNERS < <(grep -oE '^[[:space:]]*targets:[[:space:]]*"//benchmarks/[A-Za-z0-9_]+:run"' \
  tools/catalog/catalog.textproto | grep -oE '//[^"]+' | sort -u)
if [[ ${#RUNNERS[@]} -eq 0 ]]; then
  echo "release: tools/catalog/catalog.textproto lists no //benchmarks/<id>:run target" >&2
  exit 2
fi

# A runner's release file is its Python zip behind one shebang line, byte for byte what
# `--build_python_zip` makes bazel-bin/<pkg>/<name> (echo '#!/usr/bin/env python3' | cat -
# <name>.zip). //tools/release:pack writes it from the zipper's own plan (aquery of the
# runners' PythonZipper actions) instead of running those actions: the runners share
# ~6.6 GB of wheels, which the zipper would compress once per runner (5 x ~2 min, twice
# under --check); pack compresses each file once, on every core, and copies it into the
# other zips (tools/release/pack_test.py pins its bytes to the zipper's).
PER_FILE=--define=worldeval_runfiles=per_file

release_name() {  # //benchmarks/vbench:run -> vbench-run (pack.release_name)
  local pkg=${1#//}; pkg=${pkg%%:*}
  echo "$(basename "$pkg")-${1##*:}"
}

# Builds the release files into $2 and writes "sha256  name" lines to $1.
build() {
  local started=$SECONDS actions
  actions=$(mktemp)
  # The runners' runfiles file by file (their trees are not laid out: pack reads the
  # files where Bazel keeps them), then pack itself (a normal binary, runfiles and all).
  ./bazelw build $PER_FILE --nobuild_runfile_links "${RUNNERS[@]}" >&2
  ./bazelw build $PER_FILE //tools/release:pack >&2
  ./bazelw aquery $PER_FILE --output=jsonproto \
    "mnemonic(\"PythonZipper\", set(${RUNNERS[*]}))" > "$actions"
  bazel-bin/tools/release/pack --actions="$actions" \
    --execroot="$(./bazelw info $PER_FILE execution_root 2>/dev/null)" \
    --output_base="$(./bazelw info $PER_FILE output_base 2>/dev/null)" \
    --out_dir="$2" --sums="$1" "${RUNNERS[@]}"
  rm -f "$actions"
  echo "release: built and hashed ${#RUNNERS[@]} runners in $(( SECONDS - started )) s" >&2
}

sums=$(mktemp)
mkdir -p dist
build "$sums" dist
cat "$sums"
if [[ "${1:-}" == "--check" ]]; then
  first=$(mktemp)
  cp "$sums" "$first"
  for target in "${RUNNERS[@]}"; do rm -f "dist/$(release_name "$target")"; done
  ./bazelw clean >&2
  build "$sums" dist
  if ! diff -u "$first" "$sums"; then
    echo "release: NOT reproducible: the second build differs (see above)" >&2
    exit 1
  fi
  rm -f "$first"
  echo "release: reproducible: two builds of this commit are byte-identical"
fi
mv -f "$sums" dist/SHA256SUMS
