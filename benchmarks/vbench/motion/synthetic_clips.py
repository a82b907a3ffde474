"""Seeded small clips for this package's tests and for the scratch runs of the official code.

`frames(spec)` draws a clip from its parameters alone (numpy's default_rng(seed) and
cv2.resize, deterministic for one numpy and OpenCV version): a smooth random background,
a bright square moving `speed` pixels per frame to the right, and per-frame Gaussian
noise of standard deviation `noise` (the flicker). `write_mp4` encodes it with
cv2.VideoWriter's mp4v (OpenCV's bundled FFmpeg MPEG-4 Part 2 encoder), the files the
official code and ours then both decode. The scratch runs that produced this package's
testdata imported this module unchanged (see each testdata file's "how").
"""

import dataclasses
import pathlib

import cv2
import numpy as np


@dataclasses.dataclass(frozen=True)
class ClipSpec:
    """The parameters of one clip (all that testdata records of its input)."""

    name: str
    seed: int
    count: int
    height: int
    width: int
    fps: float = 8.0
    speed: int = 0
    noise: float = 2.0

    def as_dict(self) -> dict:
        return dataclasses.asdict(self)


def frames(spec: ClipSpec) -> np.ndarray:
    """uint8 (count, height, width, 3) BGR frames of `spec` (see module docstring)."""
    rng = np.random.default_rng(spec.seed)
    coarse = rng.uniform(40, 200, (4, 4, 3)).astype(np.float32)
    background = cv2.resize(coarse, (spec.width, spec.height), interpolation=cv2.INTER_LINEAR)
    side = max(2, min(spec.height, spec.width) // 4)
    top = spec.height // 3
    out = np.empty((spec.count, spec.height, spec.width, 3), np.uint8)
    for t in range(spec.count):
        image = background.copy()
        left = (spec.width // 5 + spec.speed * t) % max(1, spec.width - side)
        image[top:top + side, left:left + side] = (235.0, 220.0, 30.0)
        image += rng.normal(0.0, spec.noise, image.shape).astype(np.float32)
        out[t] = np.clip(np.rint(image), 0, 255).astype(np.uint8)
    return out


def write_mp4(path, spec: ClipSpec) -> pathlib.Path:
    """Encodes frames(spec) to `path` with cv2.VideoWriter (mp4v) at spec.fps."""
    path = pathlib.Path(path)
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"mp4v"), spec.fps,
                             (spec.width, spec.height))
    if not writer.isOpened():
        raise OSError(f"cv2.VideoWriter cannot open {path}")
    for frame in frames(spec):
        writer.write(frame)
    writer.release()
    return path


def read_bgr(path) -> np.ndarray:
    """Every frame cv2.VideoCapture decodes, BGR uint8 (count, H, W, 3)."""
    capture = cv2.VideoCapture(str(path))
    decoded = []
    while True:
        ok, frame = capture.read()
        if not ok:
            break
        decoded.append(frame)
    capture.release()
    return np.stack(decoded) if decoded else np.zeros((0, 0, 0, 3), np.uint8)
