"""`python3 -m MODULE ARGS` with this target's third-party packages, for the CPU dry run.

    bazel-bin/tools/gpu/session_env -m pytest -q metrics/slam/cuda/cuda_test.py

tools/gpu/session.sh runs every step as `$PY -m <module> ...`. On the device machine $PY
is the image's `python3` (its own torch and friends, the carried packages on PYTHONPATH);
here, in `session.sh --dry_run`, it is this launcher: the locked packages and the
generated `*_pb2.py` come from the runfiles of //tools/gpu:session_env, while our own
code is the tree's (the current directory, or $WORLDEVAL_TREE): it is put first on
sys.path and on PYTHONPATH, so that the children the steps start (`$PY -m ...` again,
or sys.executable with the inherited PYTHONPATH) import the same files.
"""

import os
import runpy
import sys


def main() -> None:
    if len(sys.argv) < 3 or sys.argv[1] != "-m":
        sys.exit(f"usage: {sys.argv[0]} -m MODULE [ARGS...]")
    tree = os.path.abspath(os.environ.get("WORLDEVAL_TREE") or os.getcwd())
    sys.path.insert(0, tree)
    os.environ["PYTHONPATH"] = os.pathsep.join(
        [tree] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p])
    module = sys.argv[2]
    sys.argv = [module] + sys.argv[3:]
    runpy.run_module(module, run_name="__main__", alter_sys=True)


if __name__ == "__main__":
    main()
