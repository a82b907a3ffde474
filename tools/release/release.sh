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

build() {
  ./bazelw build --build_python_zip "${RUNNERS[@]}" >&2
  mkdir -p dist
  : > dist/SHA256SUMS
  for target in "${RUNNERS[@]}"; do
    pkg=${target#//}; pkg=${pkg%%:*}; name=${target##*:}
    out="dist/$(basename "$pkg")-$name"
    cp -f "bazel-bin/$pkg/$name" "$out"
    chmod 755 "$out"
    (cd dist && sha256sum "$(basename "$out")") >> dist/SHA256SUMS
  done
}

build
cat dist/SHA256SUMS
if [[ "${1:-}" == "--check" ]]; then
  cp dist/SHA256SUMS dist/SHA256SUMS.first
  ./bazelw clean >&2
  build
  if ! diff -u dist/SHA256SUMS.first dist/SHA256SUMS; then
    echo "release: NOT reproducible: the second build differs (see above)" >&2
    exit 1
  fi
  rm dist/SHA256SUMS.first
  echo "release: reproducible: two builds of this commit are byte-identical"
fi
