"""Test helper: run a metric binary from the test's runfiles, cut off from every cache.

HOME, HF_HOME, TORCH_HOME and XDG_CACHE_HOME point inside the test's tmp folder and
HF_HUB_OFFLINE=1, so a binary under test can neither download nor find a real
checkpoint: it sees only what the test put in its --checkpoint_dir.

A binary is started as a subprocess (`run_subprocess`: its own interpreter, flag
parsing, required flags and exit code exactly as a user gets them) or, when the test
names its module, called in-process (`run`: the same flag parser and main, without
paying for a new interpreter and a torch import per call). Keep at least one
subprocess run per binary.
"""

import contextlib
import importlib
import io
import json
import os
import pathlib
import subprocess
import sys

import cv2
import numpy as np
import pytest

TIMEOUT_S = 300


def binary(package: str, name: str) -> pathlib.Path:
    """The py_binary //<package>:<name>, which the test lists in `data`."""
    srcdir = os.environ.get("TEST_SRCDIR")
    if not srcdir:
        raise RuntimeError("run with bazel test: the binary comes from the runfiles")
    path = pathlib.Path(srcdir) / "worldeval" / package / name
    if not path.is_file():
        raise FileNotFoundError(f"missing binary {path}: add //{package}:{name} to data")
    return path


def _isolated_env(tmp_path: pathlib.Path) -> dict:
    env = {"HF_HUB_OFFLINE": "1"}
    for name in ("HOME", "TORCH_HOME", "XDG_CACHE_HOME", "HF_HOME"):
        env[name] = str(tmp_path / "env" / name)
    return env


def run(path: pathlib.Path, tmp_path: pathlib.Path, *args) -> subprocess.CompletedProcess:
    # The binary's launcher sets its own PYTHONPATH and appends an inherited one (the
    # test's): together they can pass the kernel's 128 KiB limit on one variable.
    env = dict({k: v for k, v in os.environ.items() if k != "PYTHONPATH"},
               **_isolated_env(tmp_path))
    return subprocess.run([str(path), *args], capture_output=True, text=True, check=False,
                          timeout=TIMEOUT_S, env=env)


@contextlib.contextmanager
def _isolated(tmp_path: pathlib.Path):
    """The subprocess's environment, in this process: the variables, and the hub's
    constants (read once, when huggingface_hub was imported) where it is loaded."""
    env = _isolated_env(tmp_path)
    hub = sys.modules.get("huggingface_hub.constants")
    hub_values = {"HF_HUB_OFFLINE": True, "HF_HOME": env["HF_HOME"],
                  "HF_HUB_CACHE": os.path.join(env["HF_HOME"], "hub"),
                  "HUGGINGFACE_HUB_CACHE": os.path.join(env["HF_HOME"], "hub")}
    with pytest.MonkeyPatch.context() as mp:
        for name, value in env.items():
            mp.setenv(name, value)
        for name, value in hub_values.items():
            if hub is not None and hasattr(hub, name):
                mp.setattr(hub, name, value)
        yield


def run_in_process(module: str, tmp_path: pathlib.Path, *args, wrap=None, cwd=None,
                   env=None) -> subprocess.CompletedProcess:
    """Parses `args` with the binary's own flag parser and calls its main, as
    `app.run(main, flags_parser=cli_support.parse_flags)` does, capturing what it prints
    and turning a SystemExit (a bad flag's exit 2 included) into the return code.

    `wrap(main)` is what the binary's `__main__` puts around main (an error-to-exit-code
    guard); `cwd` the folder it runs in; `env` variables to set (None: unset) on top of
    the isolated ones. Flags the binary marks required under `__main__` are not required
    here, and an `app.UsageError` propagates: test those with `run_subprocess`.
    """
    from absl import flags  # pylint: disable=import-outside-toplevel
    from metrics import cli_support  # pylint: disable=import-outside-toplevel
    binary_module = importlib.import_module(module)
    main = wrap(binary_module.main) if wrap else binary_module.main
    flags.FLAGS.unparse_flags()
    out, err = io.StringIO(), io.StringIO()
    with _isolated(tmp_path), pytest.MonkeyPatch.context() as mp, \
            contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        for name, value in (env or {}).items():
            if value is None:
                mp.delenv(name, raising=False)
            else:
                mp.setenv(name, value)
        if cwd is not None:
            mp.chdir(cwd)
        try:
            code = main(cli_support.parse_flags([module, *args]))
        except SystemExit as e:
            code = e.code
        finally:
            flags.FLAGS.unparse_flags()
    return subprocess.CompletedProcess([module, *args], code or 0, out.getvalue(),
                                       err.getvalue())


def _parsed_json(done: subprocess.CompletedProcess) -> dict:
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert len(lines) == 1, done.stdout
    return json.loads(lines[0])


def run_json(path: pathlib.Path, tmp_path: pathlib.Path, *args) -> dict:
    """Runs with --json --device=cpu; the one line printed, parsed (asserts success)."""
    return _parsed_json(run(path, tmp_path, "--json", "--device=cpu", *args))


class Binary:
    """One metric binary of the test's runfiles, run cut off from every cache.

    With `module` (the binary's main module, which the test also lists in `deps`),
    `run` and `run_json` call it in-process; `run_subprocess` always starts it.
    """

    def __init__(self, package: str, name: str, module: str = ""):
        self.package, self.name, self.module = package, name, module

    @property
    def path(self) -> pathlib.Path:
        return binary(self.package, self.name)

    def run_subprocess(self, tmp_path: pathlib.Path, *args) -> subprocess.CompletedProcess:
        return run(self.path, tmp_path, *args)

    def run(self, tmp_path: pathlib.Path, *args) -> subprocess.CompletedProcess:
        if self.module:
            return run_in_process(self.module, tmp_path, *args)
        return run(self.path, tmp_path, *args)

    def run_json(self, tmp_path: pathlib.Path, *args) -> dict:
        return _parsed_json(self.run(tmp_path, "--json", "--device=cpu", *args))


def random_walk_clip(folder: pathlib.Path, num_frames: int, height: int, width: int,
                     sigma: float, seed: int = 0):
    """Writes a clip whose frames drift by Gaussian steps, as frame_NNNN.png; returns
    (folder, frames)."""
    rng = np.random.default_rng(seed)
    base = rng.integers(0, 256, (height, width, 3)).astype(np.float64)
    steps = rng.normal(0, sigma, (num_frames, height, width, 3)).cumsum(axis=0)
    frames = np.clip(base[None] + steps, 0, 255).astype(np.uint8)
    for i, frame in enumerate(frames):
        if not cv2.imwrite(str(folder / f"frame_{i:04d}.png"), frame):
            raise OSError(f"could not write {folder}")
    return folder, frames
