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
# <name>.zip). The zip comes from the py_binary's python_zip_file output group rather
# than from --build_python_zip, which would also zip every Python tool the build runs
# (the bundled-sample packers, 100 MB of wheels each) and run those tools from zips.
SHEBANG='#!/usr/bin/env python3'

zip_of() {
  local pkg=${1#//}; pkg=${pkg%%:*}
  echo "bazel-bin/$pkg/${1##*:}.zip"
}

release_name() {
  local pkg=${1#//}; pkg=${pkg%%:*}
  echo "$(basename "$pkg")-${1##*:}"
}

# Builds the runners' zips and writes "sha256  name" lines (of the release files) to $1.
# Each zip is GBs (torch): the release file is hashed as a stream, never written twice.
# The zip actions run unsandboxed (PythonZipper=local): a sandbox would first lay out, then
# delete, a symlink for each of the ~60k files the zipper reads from its explicit list.
build() {
  local started=$SECONDS
  ./bazelw build --output_groups=python_zip_file --strategy=PythonZipper=local \
    --define=worldeval_runfiles=per_file \
    "${RUNNERS[@]}" >&2
  : > "$1"
  for target in "${RUNNERS[@]}"; do
    sum=$({ echo "$SHEBANG"; cat "$(zip_of "$target")"; } | sha256sum | cut -d' ' -f1)
    echo "$sum  $(release_name "$target")" >> "$1"
  done
  echo "release: built and hashed ${#RUNNERS[@]} runners in $(( SECONDS - started )) s" >&2
}

# Writes dist/<benchmark>-run from each zip, then deletes the zip.
publish() {
  mkdir -p dist
  for target in "${RUNNERS[@]}"; do
    out="dist/$(release_name "$target")"
    rm -f "$out"
    { echo "$SHEBANG"; cat "$(zip_of "$target")"; } > "$out"
    rm -f "$(zip_of "$target")"
    chmod 755 "$out"
  done
  mv -f "$1" dist/SHA256SUMS
}

sums=$(mktemp)
build "$sums"
cat "$sums"
if [[ "${1:-}" == "--check" ]]; then
  first=$(mktemp)
  cp "$sums" "$first"
  ./bazelw clean >&2
  build "$sums"
  if ! diff -u "$first" "$sums"; then
    echo "release: NOT reproducible: the second build differs (see above)" >&2
    exit 1
  fi
  rm -f "$first"
  echo "release: reproducible: two builds of this commit are byte-identical"
fi
publish "$sums"
