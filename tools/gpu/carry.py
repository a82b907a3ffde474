"""Fills the folder the GPU session carries (`carry`) with what the device machine lacks.

    python3 tools/gpu/carry.py --direct=deps.txt --external=<output_base>/external \
        --bazel_bin=bazel-bin --out=.gpu_carry

Run by tools/gpu/prepare.sh on the CPU machine (stdlib only). The device machine has no
Bazel and no network; its `python3` (3.12) holds DEVICE_PACKAGES. Into --out:
  site/      the installed files of every locked distribution the session's code needs
             that the device image lacks (or, FORCED, holds in an unusable version),
             copied from Bazel's hash-locked installs (external/pypi__<name>/site; no
             __pycache__, no bin/). Needed: the //third_party/py deps of
             //tools/gpu:session_env listed in --direct (bazel query), minus NOT_CARRIED,
             and, for each carried one, the @pypi__ deps its BUILD.bazel names. Only
             pure-Python or abi3 files can travel this way: a cp311-only extension module
             is refused (the device's python is 3.12); STRIPPED files are left out.
  proto/     the generated *_pb2.py (bazel-bin/proto), which session.sh copies into proto/.
  runfiles/  vbench_wheel/file/<wheel>: the pinned vbench wheel prompt_suite reads the
             official suite from (session.sh sets RUNFILES_DIR here).
  MANIFEST.json  what was carried and why, and the sizes.
Prints the sizes and exits 1 when the tree that travels plus --out exceed LIMIT_BYTES.
"""

import argparse
import json
import pathlib
import re
import shutil
import subprocess
import sys
from typing import Dict, List, Set

LIMIT_BYTES = 64 * 2**20  # /work/.library/device/README.md: tree + carried paths
# The device image's packages, as KINDS.md ("Python packages already there", read on
# 2026-11-17) lists them; normalised names.
DEVICE_PACKAGES = frozenset("""
absl-py accelerate aiofiles aiohappyeyeballs aiohttp aiosignal annotated-doc anyio attrs
botorch build certifi charset-normalizer chex click cloudpickle cmake colorama contourpy
coverage cuda-bindings cuda-core cuda-pathfinder cuda-toolkit cupy-cuda13x cycler cython
diffrax e3nn einops equinox etils execnet filelock flatbuffers flax fonttools formulaic
frozenlist fsspec gpytorch grpcio h11 h5py hf-xet httpcore httpx huggingface-hub humanize
hypothesis idna imageio iniconfig interface-meta jax jax-cuda13-pjrt jax-cuda13-plugin
jaxlib jaxtyping jinja2 joblib kiwisolver lazy-loader lightning lightning-utilities
linear-operator lineax llvmlite lxml markdown markdown-it-py markupsafe matplotlib mdurl
meson ml-dtypes mpi4py mpmath msgpack multidict multipledispatch mypy-extensions nanobind
narwhals networkx ninja numba numba-cuda numpy numpyro nvidia-cublas nvidia-cuda-cupti
nvidia-cuda-nvrtc nvidia-cuda-runtime nvidia-cudnn-cu13 nvidia-cufft nvidia-cufile
nvidia-curand nvidia-cusolver nvidia-cusparse nvidia-cusparselt-cu13 nvidia-ml-py
nvidia-nccl-cu13 nvidia-nvjitlink nvidia-nvshmem-cu13 nvidia-nvtx onnx onnx-ir onnxruntime
onnxscript opencv-python-headless optax opt-einsum opt-einsum-fx optimistix
orbax-checkpoint packaging pandas pathspec patsy peft pillow pip pluggy portalocker
prometheus-client propcache protobuf psutil pyarrow pybind11 py-cpuinfo pygments pyparsing
pyproject-hooks pyre-extensions pytest pytest-benchmark pytest-cov pytest-mock
pytest-timeout pytest-xdist python-dateutil pytorch-lightning pyyaml regex requests rich
sacrebleu safetensors scikit-build-core scikit-image scikit-learn scipy seaborn
sentencepiece sentence-transformers setuptools shellingham simplejson six sortedcontainers
statsmodels sympy tabulate tensorboard tensorboard-data-server tensorstore threadpoolctl
tifffile tiktoken timm tokenizers toolz torch torchaudio torchdiffeq torch-geometric
torchmetrics torchvision tqdm transformers treescope triton typer typing-extensions
typing-inspect urllib3 uvloop wadler-lindig werkzeug wheel wrapt xarray xxhash yarl zipp
""".replace("-", "_").split())
# The device's cv2 is opencv-python-headless's: the same module as our opencv-python.
SAME_MODULE = {"opencv_python": "opencv_python_headless"}
NOT_CARRIED = {
    "ray": "imported only for --executor=ray (benchmarks/common/ray_executor.py); the "
           "session runs the local executor",
    "grpcio_tools": "build-time only (//tools/protoc generates the *_pb2.py here)",
}
FORCED = {
    "protobuf": "the generated *_pb2.py check the runtime (ValidateProtobufRuntimeVersion: "
                "major 7, at least the protoc's minor); the image's version is not listed",
}
# Files left out of a carried install, and what that changes there.
STRIPPED = {
    "imageio_ffmpeg": ("imageio_ffmpeg/binaries/ffmpeg-*",
                       "its bundled ffmpeg (165 MiB) exceeds the limit: get_ffmpeg_exe() falls "
                       "back to an ffmpeg on PATH; without one the stream check of "
                       "metrics/video/stream_check.py says it could not run (a warning), "
                       "and its decode's CPU time is missing from the timings"),
}
_DEP = re.compile(r"@pypi__(\w+)//:pkg")
_CP311 = re.compile(r"\.cpython-3\d+-")


def normalise(name: str) -> str:
    return re.sub(r"[-_.]+", "_", name).lower()


def plan(direct: List[str], external: pathlib.Path) -> Dict[str, str]:
    """{distribution: why it is carried} (module docstring)."""
    todo = [normalise(d) for d in direct if normalise(d) not in NOT_CARRIED]
    carried: Dict[str, str] = {}
    seen: Set[str] = set()
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        on_device = SAME_MODULE.get(name, name) in DEVICE_PACKAGES
        if on_device and name not in FORCED:
            continue
        carried[name] = FORCED.get(name, "not in the device image")
        build = external / f"pypi__{name}" / "BUILD.bazel"
        todo += [d for d in _DEP.findall(build.read_text()) if d not in NOT_CARRIED]
    return carried


def copy_site(name: str, external: pathlib.Path, site: pathlib.Path) -> List[str]:
    """Copies one install into `site`; returns the version-specific binaries it refused."""
    source = external / f"pypi__{name}" / "site"
    refused = [str(p.relative_to(source)) for p in source.rglob("*.so") if _CP311.search(p.name)]
    if refused:
        return refused
    strip = STRIPPED.get(name, ("", ""))[0]
    for item in source.iterdir():
        if item.name in ("bin", "__pycache__"):
            continue
        target = site / item.name
        if item.is_dir():
            shutil.copytree(item, target, dirs_exist_ok=True, symlinks=False,
                            ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        else:
            shutil.copy2(item, target)
    if strip:
        for p in site.glob(strip):
            p.unlink()
    return []


def size(path: pathlib.Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def tree_bytes(root: pathlib.Path) -> int:
    """The bytes of what travels without `carry`: tracked and untracked-not-ignored files."""
    names = subprocess.run(["git", "ls-files", "-z", "--cached", "--others",
                            "--exclude-standard"], cwd=root, capture_output=True,
                           check=True).stdout.split(b"\0")
    return sum((root / n.decode()).stat().st_size for n in names
               if n and (root / n.decode()).is_file())


def version(external: pathlib.Path, name: str) -> str:
    req = external / f"pypi__{name}" / "requirement.txt"
    return req.read_text().split()[0] if req.is_file() else "?"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", maxsplit=1)[0])
    parser.add_argument("--direct", required=True, help="bazel query's //third_party/py labels")
    parser.add_argument("--external", required=True, type=pathlib.Path)
    parser.add_argument("--bazel_bin", required=True, type=pathlib.Path)
    parser.add_argument("--out", required=True, type=pathlib.Path)
    parser.add_argument("--root", default=".", type=pathlib.Path)
    args = parser.parse_args()
    direct = [line.rsplit(":", 1)[-1] for line in
              pathlib.Path(args.direct).read_text().split() if "//third_party/py:" in line]
    shutil.rmtree(args.out, ignore_errors=True)
    site, pb2 = args.out / "site", args.out / "proto"
    wheel_dir = args.out / "runfiles" / "vbench_wheel" / "file"
    for d in (site, pb2, wheel_dir):
        d.mkdir(parents=True)
    carried, refused = plan(direct, args.external), {}
    for name in sorted(carried):
        bad = copy_site(name, args.external, site)
        if bad:
            refused[name] = bad
    for f in sorted((args.bazel_bin / "proto").glob("*_pb2.py")):
        shutil.copy2(f, pb2 / f.name)
    for f in (args.external / "vbench_wheel" / "file").glob("*.whl"):
        shutil.copy2(f, wheel_dir / f.name)
    sizes = {"tree": tree_bytes(args.root.resolve()), "carry": size(args.out)}
    manifest = {"carried": {n: {"requirement": version(args.external, n), "why": w}
                            for n, w in sorted(carried.items()) if n not in refused},
                "not_carried": NOT_CARRIED, "refused_binaries": refused,
                "stripped": {n: STRIPPED[n] for n in carried if n in STRIPPED},
                "pb2": sorted(p.name for p in pb2.iterdir()),
                "runfiles": sorted(str(p.relative_to(args.out)) for p in wheel_dir.iterdir()),
                "bytes": sizes}
    (args.out / "MANIFEST.json").write_text(json.dumps(manifest, indent=1) + "\n")
    for n, info in manifest["carried"].items():
        print(f"carry {info['requirement']:<28} ({info['why']})")
    for n, (pattern, why) in manifest["stripped"].items():
        print(f"  without {pattern}: {why}")
    total = sizes["tree"] + sizes["carry"]
    print(f"pb2: {', '.join(manifest['pb2'])}; vbench wheel: {manifest['runfiles']}")
    print(f"sizes: tree {sizes['tree'] / 2**20:.1f} MiB + {args.out} "
          f"{sizes['carry'] / 2**20:.1f} MiB = {total / 2**20:.1f} MiB "
          f"(limit {LIMIT_BYTES / 2**20:.0f} MiB)")
    problems = [f"{n}: version-specific binaries {b[:3]} (carry a cp312 wheel instead)"
                for n, b in refused.items()]
    if not manifest["pb2"]:
        problems.append(f"no *_pb2.py in {args.bazel_bin / 'proto'}")
    if not manifest["runfiles"]:
        problems.append("no vbench wheel in external/vbench_wheel/file")
    if total > LIMIT_BYTES:
        problems.append("over the device tool's 64 MiB limit")
    for p in problems:
        print(f"FAIL: {p}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
