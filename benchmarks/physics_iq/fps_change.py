"""Real testing videos at another frame rate, as upstream's fps_changer makes them (spec §4).

Upstream (`code/fps_changer.py:21-109` at e457754) turns each 30FPS testing video into one
at the generated videos' fps when `split-videos/testing/{int(fps)}FPS` does not exist:
- duration = CAP_PROP_FRAME_COUNT / CAP_PROP_FPS; sub = min(5, duration); it reads the
  first int(sub·fps_o) frames (fewer if the decoder stops), N of them;
- M = int(sub·fps_new) output frames; frame j blends frames idx and min(idx+1, N-1) with
  α = j·(N-1)/(M-1), idx = int(α), w = α - idx: (1-w)·a + w·b in float32 (the Python float
  weights meet float32 arrays, so NumPy computes in float32), then astype(uint8), which
  truncates (spec §11.9);
- writes them with cv2.VideoWriter, fourcc avc1, at fps_new, size (W, H) rounded down to
  even, under the name with `{int(fps_o)}FPS` replaced by `{int(fps_new)}FPS`.

Its errors are printed and swallowed (M = 1 divides by zero, N = 0 indexes nothing), and an
OpenCV without an H.264 encoder opens no writer and writes nothing. The locked
opencv-python 4.14.0.94 wheel is such a build (`VideoWriter(..., 'avc1', ...)` is not
opened: its only H.264 encoder is h264_v4l2m2m, which needs a V4L2 device), so upstream
with it makes an empty {F}FPS folder and stops at the next validate_video_files. Here the
resampling is a pure function and the writer raises instead of writing nothing; which
fourcc to write (avc1 as upstream, or what the build can encode) is the caller's choice.
"""

import os
import pathlib
from typing import Tuple

import cv2
import numpy as np

SECONDS = 5  # fps_changer.py: only the first 5 seconds
UPSTREAM_FOURCC = "avc1"


def frame_counts(frame_count: int, fps_original: float, fps_new: float) -> Tuple[int, int]:
    """(frames read, frames written): int(sub·fps_o) and int(sub·fps_new), sub = min(5, d)."""
    sub = min(SECONDS, frame_count / fps_original)
    return int(sub * fps_original), int(sub * fps_new)


def resample(frames: np.ndarray, count_new: int) -> np.ndarray:
    """`count_new` frames blended linearly from `frames` (N, H, W, C) uint8, as upstream.

    ValueError where upstream's loop fails and it writes no file: no input frame, or
    count_new == 1 (M - 1 = 0 in α's denominator). count_new == 0 gives no frames.
    """
    n = len(frames)
    if count_new == 0:
        return np.zeros((0,) + frames.shape[1:], np.uint8)
    if n == 0 or count_new == 1:
        raise ValueError(f"cannot resample {n} frames to {count_new}: upstream's "
                         "fps_changer fails here (prints the error, writes no file)")
    alpha = np.arange(count_new) * (n - 1) / (count_new - 1)  # float64, as Python's floats
    idx = alpha.astype(np.int64)  # int() of a non-negative float
    weight = alpha - idx
    first = frames[idx].astype(np.float32)
    second = frames[np.minimum(idx + 1, n - 1)].astype(np.float32)
    shape = (-1,) + (1,) * (frames.ndim - 1)
    keep = (1 - weight).astype(np.float32).reshape(shape)
    take = weight.astype(np.float32).reshape(shape)
    return (keep * first + take * second).astype(np.uint8)


def resampled_name(name: str, fps_original: float, fps_new: float) -> str:
    """The output name: every `{int(fps_o)}FPS` replaced by `{int(fps_new)}FPS`."""
    return name.replace(f"{int(fps_original)}FPS", f"{int(fps_new)}FPS")


def read_first(path, fps_new: float) -> Tuple[np.ndarray, float, int]:
    """(the frames upstream reads, fps_o, frames to write) of one video (BGR uint8)."""
    cap = cv2.VideoCapture(str(path))
    try:
        fps_original = cap.get(cv2.CAP_PROP_FPS)
        count = int(cap.get(cv2.CAP_PROP_FRAME_COUNT))
        if fps_original <= 0:
            raise ValueError(f"{path}: no frame rate (cv2 reports {fps_original})")
        wanted, count_new = frame_counts(count, fps_original, fps_new)
        frames = []
        for _ in range(wanted):
            ok, frame = cap.read()
            if not ok:
                break
            frames.append(frame)
    finally:
        cap.release()
    if not frames:
        return np.zeros((0, 0, 0, 3), np.uint8), fps_original, count_new
    return np.stack(frames), fps_original, count_new


def write_video(path, frames: np.ndarray, fps: float, fourcc: str = UPSTREAM_FOURCC) -> None:
    """Writes BGR frames cropped to even W and H (upstream's writer size); OSError when the
    writer does not open (upstream: silently no file)."""
    h, w = frames.shape[1] - frames.shape[1] % 2, frames.shape[2] - frames.shape[2] % 2
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*fourcc), fps, (w, h))
    if not writer.isOpened():
        raise OSError(f"{path}: cv2.VideoWriter could not open fourcc {fourcc!r} in this "
                      "OpenCV build")
    try:
        for frame in frames:
            writer.write(np.ascontiguousarray(frame[:h, :w]))
    finally:
        writer.release()


def change_fps(src, out_folder, fps_new: float,
               fourcc: str = UPSTREAM_FOURCC) -> pathlib.Path:
    """One video at fps_new in out_folder under upstream's name; returns its path."""
    frames, fps_original, count_new = read_first(src, fps_new)
    resampled = resample(frames, count_new)
    out = pathlib.Path(out_folder) / resampled_name(os.path.basename(src), fps_original,
                                                    fps_new)
    write_video(out, resampled, fps_new, fourcc)
    return out
