"""Test helper: run a metric binary from the test's runfiles, cut off from every cache.

HOME, HF_HOME, TORCH_HOME and XDG_CACHE_HOME point inside the test's tmp folder and
HF_HUB_OFFLINE=1, so a binary under test can neither download nor find a real
checkpoint: it sees only what the test put in its --checkpoint_dir.
"""

import json
import os
import pathlib
import subprocess

import cv2
import numpy as np

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


def run(path: pathlib.Path, tmp_path: pathlib.Path, *args) -> subprocess.CompletedProcess:
    env = dict(os.environ, HF_HUB_OFFLINE="1")
    for name in ("HOME", "TORCH_HOME", "XDG_CACHE_HOME", "HF_HOME"):
        env[name] = str(tmp_path / "env" / name)
    return subprocess.run([str(path), *args], capture_output=True, text=True, check=False,
                          timeout=TIMEOUT_S, env=env)


def run_json(path: pathlib.Path, tmp_path: pathlib.Path, *args) -> dict:
    """Runs with --json --device=cpu; the one line printed, parsed (asserts success)."""
    done = run(path, tmp_path, "--json", "--device=cpu", *args)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert len(lines) == 1, done.stdout
    return json.loads(lines[0])


class Binary:
    """One metric binary of the test's runfiles, run cut off from every cache."""

    def __init__(self, package: str, name: str):
        self.package, self.name = package, name

    @property
    def path(self) -> pathlib.Path:
        return binary(self.package, self.name)

    def run(self, tmp_path: pathlib.Path, *args) -> subprocess.CompletedProcess:
        return run(self.path, tmp_path, *args)

    def run_json(self, tmp_path: pathlib.Path, *args) -> dict:
        return run_json(self.path, tmp_path, *args)


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
