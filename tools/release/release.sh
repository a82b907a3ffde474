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

RUNNERS=(//benchmarks/memobench:run //benchmarks/vmbench:run)

# Builds the runners and writes "sha256  name" lines to $1. The intermediate <name>.zip
# (the same bytes without the shebang) is deleted at once: each runner zip is GBs (torch),
# and the disk must hold only one copy of each.
build() {
  ./bazelw build --build_python_zip "${RUNNERS[@]}" >&2
  : > "$1"
  for target in "${RUNNERS[@]}"; do
    pkg=${target#//}; pkg=${pkg%%:*}; name=${target##*:}
    rm -f "bazel-bin/$pkg/$name.zip"
    echo "$(sha256sum < "bazel-bin/$pkg/$name" | cut -d' ' -f1)  $(basename "$pkg")-$name" >> "$1"
  done
}

# Moves the built runners into dist/ (moved, not copied: one copy on disk).
publish() {
  mkdir -p dist
  for target in "${RUNNERS[@]}"; do
    pkg=${target#//}; pkg=${pkg%%:*}; name=${target##*:}
    out="dist/$(basename "$pkg")-$name"
    rm -f "$out"
    mv -f "bazel-bin/$pkg/$name" "$out"
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
