"""Builds every `torch_cuda_extension` of the tree without Bazel, as tools/cuda/defs.bzl does.

    python3 -m tools.gpu.build_ext [--root=.] [--jobs=8]

For the GPU session (tools/gpu/session.sh), where there is no Bazel: each
`torch_cuda_extension(...)` call in a BUILD.bazel under metrics/ is read from the file
(Starlark is Python syntax; its arguments are literals), and its module is built in
place, `<package>/<module_name>.so`, where the Python wrapper imports it (e.g.
metrics/slam/cuda/backend.py imports metrics.slam.cuda._slam_cuda). The commands are
defs.bzl's: nvcc per `.cu` (no torch headers; the `_GENCODE` list read from defs.bzl),
g++ per `.cc` against the RUNNING torch's headers, one g++ link against its libraries and
the toolkit's libcudart. nvcc comes from $WORLDEVAL_NVCC, else PATH (as @local_cuda).
Differences from the Bazel build: torch is whatever `python3` imports (on the device
machine its own, not the locked wheel), and the C++ ABI flag is that torch's
(`torch._C._GLIBCXX_USE_CXX11_ABI`) rather than defs.bzl's fixed 1.
Prints one line per extension; exits 1 if any failed.
"""

import argparse
import ast
import concurrent.futures
import os
import pathlib
import shutil
import subprocess
import sys
import sysconfig
import time
from typing import Dict, List

RULE = "torch_cuda_extension"
DEFS = pathlib.Path("tools/cuda/defs.bzl")
_TORCH_LIBS = ("c10", "torch", "torch_cpu", "torch_python", "c10_cuda", "torch_cuda")


def gencode(root: pathlib.Path) -> List[str]:
    """defs.bzl's `_GENCODE` list (the nvcc architecture flags)."""
    for node in ast.parse((root / DEFS).read_text()).body:
        if isinstance(node, ast.Assign) and any(
                isinstance(t, ast.Name) and t.id == "_GENCODE" for t in node.targets):
            return list(ast.literal_eval(node.value))
    raise ValueError(f"no _GENCODE list in {root / DEFS}")


def extensions(root: pathlib.Path, under: str = "metrics") -> List[Dict]:
    """Every torch_cuda_extension call under `root/under`: its keyword arguments plus
    `package` (the BUILD file's folder, relative to root)."""
    found = []
    for build in sorted((root / under).rglob("BUILD.bazel")):
        text = build.read_text()
        if RULE not in text:
            continue
        for node in ast.walk(ast.parse(text, str(build))):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == RULE:
                args = {k.arg: ast.literal_eval(k.value) for k in node.keywords}
                args["package"] = str(build.parent.relative_to(root))
                found.append(args)
    return found


def _nvcc() -> str:
    nvcc = os.environ.get("WORLDEVAL_NVCC") or shutil.which("nvcc")
    if not nvcc:
        raise FileNotFoundError("nvcc not found on PATH (set WORLDEVAL_NVCC)")
    return nvcc


def _cuda_home(nvcc: str) -> str:
    """The toolkit root nvcc reports (`#$ TOP=`), as tools/cuda/repositories.bzl reads it."""
    res = subprocess.run([nvcc, "--dryrun", "-x", "cu", "-c", "/dev/null", "-o", "/dev/null"],
                         capture_output=True, text=True, check=False)
    for line in (res.stdout + res.stderr).splitlines():
        if line.startswith("#$ TOP="):
            return os.path.realpath(line[len("#$ TOP="):].strip())
    return str(pathlib.Path(os.path.realpath(nvcc)).parents[1])


def commands(ext: Dict, root: pathlib.Path, objdir: pathlib.Path, nvcc: str,
             cuda_home: str, flags: List[str]) -> Dict[str, List]:
    """{"compile": [argv per source], "link": argv} for one extension (defs.bzl's)."""
    import torch  # pylint: disable=import-outside-toplevel
    from torch.utils import cpp_extension  # pylint: disable=import-outside-toplevel
    pkg = root / ext["package"]
    own = sorted({str((pkg / h).parent) for h in ext.get("hdrs", [])})
    includes = [f"-I{root}"] + [f"-I{d}" for d in own]
    abi = int(getattr(torch._C, "_GLIBCXX_USE_CXX11_ABI", 1))  # pylint: disable=protected-access
    torch_inc = cpp_extension.include_paths()
    compile_argv, objs = [], []
    for src in ext.get("cu_srcs", []):
        obj = objdir / f"{src}.o"
        compile_argv.append([nvcc, "-c", str(pkg / src), "-o", str(obj), "-O3", "-std=c++17",
                             "-Xcompiler", "-fPIC", "--extended-lambda"] + flags + includes)
        objs.append(obj)
    for src in ext.get("cc_srcs", []):
        obj = objdir / f"{src}.o"
        compile_argv.append(
            ["g++", "-c", str(pkg / src), "-o", str(obj), "-O2", "-std=c++20", "-fPIC",
             f"-D_GLIBCXX_USE_CXX11_ABI={abi}", f"-DTORCH_EXTENSION_NAME={ext['module_name']}",
             "-DTORCH_API_INCLUDE_EXTENSION_H"]
            + [a for d in torch_inc for a in ("-isystem", d)]
            + ["-isystem", sysconfig.get_paths()["include"], "-isystem", f"{cuda_home}/include"]
            + includes)
        objs.append(obj)
    libdir = str(pathlib.Path(torch.__file__).parent / "lib")
    link = (["g++", "-shared", "-o", str(pkg / f"{ext['module_name']}.so")] + [str(o) for o in objs]
            + [f"-L{libdir}"] + [f"-l{lib}" for lib in _TORCH_LIBS]
            + [f"-L{cuda_home}/lib64", "-lcudart"])
    return {"compile": compile_argv, "link": link}


def _run(argv: List[str]) -> str:
    res = subprocess.run(argv, capture_output=True, text=True, check=False)
    if res.returncode:
        raise RuntimeError(f"{' '.join(argv[:3])} ... exit {res.returncode}:\n"
                           f"{(res.stdout + res.stderr)[-4000:]}")
    return argv[2]


def build(ext: Dict, root: pathlib.Path, jobs: int) -> float:
    """Builds one extension in place; returns the seconds it took."""
    start = time.perf_counter()
    nvcc = _nvcc()
    objdir = root / ext["package"] / "_gpu_objs" / ext["module_name"]
    objdir.mkdir(parents=True, exist_ok=True)
    argv = commands(ext, root, objdir, nvcc, _cuda_home(nvcc), gencode(root))
    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
        list(pool.map(_run, argv["compile"]))
    _run(argv["link"])
    shutil.rmtree(objdir.parent)
    return time.perf_counter() - start


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", maxsplit=1)[0])
    parser.add_argument("--root", default=".", help="The repository root.")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    args = parser.parse_args()
    root = pathlib.Path(args.root).resolve()
    found = extensions(root)
    if not found:
        print(f"no {RULE} under {root}/metrics")
        return 1
    failed = 0
    for ext in found:
        name = f"//{ext['package']}:{ext['name']}"
        try:
            seconds = build(ext, root, args.jobs)
            print(f"built {name} -> {ext['package']}/{ext['module_name']}.so in {seconds:.1f} s",
                  flush=True)
        except (OSError, RuntimeError, ValueError) as e:
            failed += 1
            print(f"FAILED {name}: {e}", flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
