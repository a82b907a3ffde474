"""One VMBench video on the shared engine: its inputs, its context, its row.

`load` decodes the video once at native resolution (the official scripts read every
frame with OpenCV until it stops, unresized) and reads its fps; a video that cannot be
decoded, has a single frame (motion needs two), or decodes fewer frames than its
container declares (the decoder stopped at damage in the file: the shared decoder's
check, the one MemoBench's clips go through) is an error row naming the file and both
counts. More decodable frames than declared are all kept, as the official read keeps
them, with an input warning. `score` runs the
families and keeps the official results.json keys as the sample's metrics; any other
column a family fills goes to the diagnostics.
"""

import dataclasses
import pathlib
import time
from typing import Optional, Tuple

import cv2
import numpy as np

from benchmarks.common import sample_context
from benchmarks.common import sample_loop
from benchmarks.common.errors import InputError
from benchmarks.vmbench import metric_specs
from benchmarks.vmbench.prompt_suite import Prompt
from metrics.video import frames as frames_lib
from proto import scorecard_pb2

Item = Tuple[Prompt, pathlib.Path]


@dataclasses.dataclass(frozen=True, kw_only=True)
class VideoContext(sample_context.SampleContext):
    """What a VMBench family sees: the frames (BGR, native size), the prompt, the fps."""

    prompt: Prompt
    fps: float
    path: pathlib.Path


@dataclasses.dataclass(frozen=True)
class Loaded:
    frames: np.ndarray
    digest: str
    fps: float
    warnings: Tuple[str, ...] = ()


def ref(item: Item) -> sample_loop.SampleRef:
    return sample_loop.SampleRef(item[0].index)


def digest(item: Item) -> str:
    return frames_lib.source_digest(item[1])


def _fps(path: pathlib.Path) -> float:
    capture = cv2.VideoCapture(str(path))
    try:
        return float(capture.get(cv2.CAP_PROP_FPS))
    finally:
        capture.release()


def load(item: Item, max_side: Optional[int] = None) -> Loaded:
    """Decodes one video (each frame shrunk to `max_side` as it is decoded, if given: the
    --max_side deviation); FrameInputError / InputError (naming it) when unusable."""
    path = item[1]
    if path.is_file() and path.stat().st_size == 0:
        raise InputError(path, "an mp4 video", "an empty (zero-length) file")
    warnings = []
    frames, sha = frames_lib.load_frames_and_digest(path, max_side=max_side,
                                                    warnings=warnings, complete=True)
    if len(frames) < 2:
        raise InputError(path, "a video of at least 2 frames (motion needs two)",
                         f"{len(frames)} frame")
    return Loaded(frames, sha, _fps(path), tuple(warnings))


def score(item: Item, loaded: Loaded, families) -> scorecard_pb2.SampleScore:
    prompt, path = item
    start = time.perf_counter()
    sample = scorecard_pb2.SampleScore(sample_id=prompt.index, input_digest=loaded.digest)
    frames = loaded.frames
    sample.diagnostics.update({
        "num_frames": str(len(frames)), "height": str(frames.shape[1]),
        "width": str(frames.shape[2]), "fps": f"{loaded.fps:g}", "source": str(path),
        "subject_noun": prompt.subject_noun})
    for warning in loaded.warnings:
        sample_loop.add_warning(sample, warning)
    ctx = VideoContext(sample_id=prompt.index, frames=frames, prompt=prompt,
                       fps=loaded.fps, path=path)
    columns = sample_loop.run_families(ctx, families, sample)
    for column, value in columns.items():
        if column in metric_specs.PER_VIDEO_IDS:
            sample.metrics[column] = value
        else:
            sample.diagnostics[column] = repr(value)
    sample.seconds = round(time.perf_counter() - start, 4)
    return sample


def values_of(sample: scorecard_pb2.SampleScore, metric_ids) -> dict:
    """The sample's official keys for results.json (none for a failed sample)."""
    if sample.error:
        return {}
    return {m: sample.metrics[m] for m in metric_ids if m in sample.metrics}
