"""One VBench video on the shared engine: decoded once, scored by every dimension its
prompt entries call for.

Upstream decodes a video once per dimension (decord for most, cv2 for
temporal_flickering, motion_smoothness and dynamic_degree; spec §5.1); here `load`
decodes it once (OpenCV, every frame at native size: the pixels decord gives for these
codecs, //tools/calibration:decode_parity_test) and reads the container's frame rate
(cv2.CAP_PROP_FPS, what dynamic_degree's resampling reads); each dimension takes its own
frames from that array (benchmarks/vbench/dimension.Video).
"""

import dataclasses
import functools
import pathlib
import time
from typing import Dict, Mapping, Optional, Sequence, Tuple

import cv2
import numpy as np

from benchmarks.common import sample_context
from benchmarks.common import sample_loop
from benchmarks.common.errors import InputError
from benchmarks.vbench import dimension
from metrics.video import frames as frames_lib
from proto import scorecard_pb2

SPLIT = "generated"
# Upstream's VBench-Long track is for videos of 5 s or more (spec §8; issue #122).
LONG_VIDEO_SECONDS = 5.0


@dataclasses.dataclass(frozen=True)
class Item:
    """One video file the layout calls for.

    Attributes:
      name: its file name (the sample id; the official video_list holds
        os.path.join(videos_path, name)).
      path: the file (None: missing, named in coverage, never scored).
      dimensions: the requested dimensions its entries list, in table order.
      prompt: the entries' prompt_en.
      auxiliary: per dimension, the auxiliary_info load_dimension_info hands on.
    """

    name: str
    path: Optional[pathlib.Path]
    dimensions: Tuple[str, ...]
    prompt: str
    auxiliary: Mapping[str, Optional[Mapping[str, object]]] = dataclasses.field(
        default_factory=dict)


@dataclasses.dataclass(frozen=True, kw_only=True)
class VideoContext(sample_context.SampleContext):
    """What a VBench family sees: every frame (BGR, native size), the frame rate, the item."""

    item: Item
    fps: float

    @functools.cached_property
    def rgb(self) -> np.ndarray:
        """The frames as RGB, flipped once for all of the video's dimensions (read-only:
        they share it)."""
        rgb = np.ascontiguousarray(self.frames[..., ::-1])
        rgb.flags.writeable = False
        return rgb

    def video(self, dim: str) -> dimension.Video:
        return dimension.Video(rgb=self.rgb, fps=self.fps, path=self.item.path,
                               prompt=self.item.prompt, auxiliary=self.item.auxiliary.get(dim))


@dataclasses.dataclass(frozen=True)
class Loaded:
    frames: np.ndarray
    fps: float
    digest: str
    warnings: tuple
    shared: dict = dataclasses.field(default_factory=dict)


def ref(item: Item) -> sample_loop.SampleRef:
    return sample_loop.SampleRef(item.name, SPLIT)


def digest(item: Item) -> str:
    return frames_lib.source_digest(item.path)


def frame_rate(path: pathlib.Path) -> float:
    """cv2.CAP_PROP_FPS of the video (0.0 where the container gives none)."""
    capture = cv2.VideoCapture(str(path))
    try:
        return float(capture.get(cv2.CAP_PROP_FPS) or 0.0)
    finally:
        capture.release()


def load(item: Item, max_side: Optional[int] = None) -> Loaded:
    """Decodes the video once; InputError naming the file when it has no frame."""
    warnings = []
    frames, found = frames_lib.load_frames_and_digest(item.path, max_side=max_side,
                                                      warnings=warnings)
    if len(frames) == 0:
        raise InputError(item.path, "a video with at least one frame", "none decoded")
    return Loaded(frames, frame_rate(item.path), found, tuple(warnings))


def score(item: Item, loaded: Loaded, families: Sequence) -> scorecard_pb2.SampleScore:
    start = time.perf_counter()
    r = ref(item)
    sample = scorecard_pb2.SampleScore(sample_id=r.sample_id, split=r.split,
                                       input_digest=loaded.digest)
    count = len(loaded.frames)
    sample.diagnostics.update({
        "source": str(item.path), "num_frames": str(count), "fps": repr(loaded.fps),
        "height": str(loaded.frames.shape[1]), "width": str(loaded.frames.shape[2]),
        "dimensions": ",".join(item.dimensions)})
    if loaded.fps > 0:
        sample.diagnostics["seconds_of_video"] = f"{count / loaded.fps:.3f}"
    for warning in loaded.warnings:
        sample_loop.add_warning(sample, warning)
    ctx = VideoContext(sample_id=r.sample_id, split=r.split, frames=loaded.frames,
                       item=item, fps=loaded.fps, shared=loaded.shared)
    wanted = [f for f in families if set(f.metric_ids) & set(item.dimensions)]
    columns = sample_loop.run_families(ctx, wanted, sample)
    for key, value in columns.items():
        sample.metrics[key] = float(value)
    sample.seconds = round(time.perf_counter() - start, 4)
    return sample


def video_seconds(sample: scorecard_pb2.SampleScore) -> Optional[float]:
    """The video's duration (frames / fps) as its row recorded it, or None."""
    text = sample.diagnostics.get("seconds_of_video")
    return float(text) if text else None


def long_videos(samples: Sequence[scorecard_pb2.SampleScore]) -> Dict[str, float]:
    """The videos of LONG_VIDEO_SECONDS or more, with their durations."""
    out = {}
    for s in samples:
        seconds = video_seconds(s)
        if seconds is not None and seconds >= LONG_VIDEO_SECONDS:
            out[s.sample_id] = seconds
    return out
