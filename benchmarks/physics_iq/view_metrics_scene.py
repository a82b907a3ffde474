"""A tiny deterministic Physics-IQ scene for the view-metrics tests and their calibration.

`write_scene(folder)` writes, for the three views of one scenario, the real
take-1 and take-2 testing videos and a generated video, under official names
(spec §1, §3 step 5), as seeded numpy frames encoded with cv2 'mp4v' at 8 fps.
The same function produced the inputs of testdata/view_metrics_official.json
(a scratch run of the upstream code, see that file), and the test checks the
decoded inputs against the digests recorded there before comparing numbers.
"""

import hashlib
import os

import cv2
import numpy as np

FPS = 8
FRAMES = 42  # > 5 s * 8 fps: the window [0, 40) cuts the last two
REAL_SIZE = (128, 96)  # (W, H); working size (32, 24)
GENERATED_SIZE = (100, 76)  # another size and aspect, as models produce
SCENARIO = "trimmed-synthetic-roll.mp4"
VIEWS = ("perspective-left", "perspective-center", "perspective-right")
TAKE1_IDS = ("0001", "0002", "0003")
TAKE2_IDS = ("0199", "0200", "0201")


def _frames(seed, size, speed, start, radius, noise):
    """A textured background and a bright disc moving along a slanted line."""
    rng = np.random.default_rng(seed)
    width, height = size
    texture = rng.integers(30, 180, (height // 8 + 1, width // 8 + 1, 3)).astype(np.uint8)
    base = cv2.resize(texture, (width, height), interpolation=cv2.INTER_LINEAR).astype(np.int64)
    ys, xs = np.mgrid[0:height, 0:width]
    frames = []
    for t in range(FRAMES):
        cx = start[0] + speed[0] * t
        cy = start[1] + speed[1] * t
        disc = (xs - cx) ** 2 + (ys - cy) ** 2 <= radius ** 2
        frame = base + rng.integers(-noise, noise + 1, base.shape)
        frame[disc] = (235, 225, 215)
        frames.append(np.clip(frame, 0, 255).astype(np.uint8))
    return frames


def _write(path, frames):
    height, width = frames[0].shape[:2]
    writer = cv2.VideoWriter(os.fspath(path), cv2.VideoWriter_fourcc(*"mp4v"), FPS, (width, height))
    for frame in frames:
        writer.write(frame)
    writer.release()


def real_name(video_id, view, take):
    return f"{video_id}_testing-videos_{FPS}FPS_{view}_{take}_{SCENARIO}"


def generated_name(video_id, view):
    return f"{video_id}_{view}_{SCENARIO}"


def write_scene(folder):
    """Writes real/ and generated/ under `folder`; returns {view: {role: path}}."""
    real_dir = os.path.join(folder, "real")
    generated_dir = os.path.join(folder, "generated")
    os.makedirs(real_dir, exist_ok=True)
    os.makedirs(generated_dir, exist_ok=True)
    paths = {}
    for index, (view, id1, id2) in enumerate(zip(VIEWS, TAKE1_IDS, TAKE2_IDS)):
        seed = 10 * index
        take1 = _frames(seed, REAL_SIZE, (2.5, 0.6), (10, 30), 9 + index, 5)
        take2 = _frames(seed + 1, REAL_SIZE, (2.3, 0.9), (12, 28), 9 + index, 5)
        gen = _frames(seed + 2, GENERATED_SIZE, (1.5 + index, 0.2), (8, 20), 6, 4 + 3 * index)
        paths[view] = {
            "real_take1": os.path.join(real_dir, real_name(id1, view, "take-1")),
            "real_take2": os.path.join(real_dir, real_name(id2, view, "take-2")),
            "generated": os.path.join(generated_dir, generated_name(id1, view)),
        }
        for role, frames in (("real_take1", take1), ("real_take2", take2), ("generated", gen)):
            _write(paths[view][role], frames)
    return paths


def frames_digest(frames):
    """sha256 of the decoded frames' shapes and bytes, in order."""
    digest = hashlib.sha256()
    for frame in frames:
        digest.update(repr(frame.shape).encode())
        digest.update(np.ascontiguousarray(frame).tobytes())
    return digest.hexdigest()
