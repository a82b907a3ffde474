"""One MiraBench video on the shared engine: decoded once, scored by every family.

`load` decodes the row's video (OpenCV, BGR uint8, native size, every frame: the pixels
of the official ffmpeg -> PNG extraction, see decode_parity_test) or reads its frame
folder (frames_1.png ... frames_N.png by number, as calculate_score.py: layout.frame_files),
once, in memory. `score` runs the per-video families on that array and records
the official video_score.csv values under their code keys.
"""

import dataclasses
import pathlib
import time
from typing import Dict, Optional, Sequence

import numpy as np

from benchmarks.common import sample_context
from benchmarks.common import sample_loop
from benchmarks.common.errors import InputError
from benchmarks.mirabench import layout
from benchmarks.mirabench import metric_specs
from metrics.video import frames as frames_lib
from proto import scorecard_pb2

SPLIT = "generated"
# Which caption each alignment metric reads (spec §3.5); overall: dense, else short.
CAPTION_OF = {"camera_alignment": ("camera_caption",),
              "main_object_alignment": ("main_object_caption",),
              "background_alignment": ("background_caption",),
              "style_alignment": ("style_caption",),
              "overall_consistency": ("dense_caption", "short_caption")}


@dataclasses.dataclass(frozen=True, kw_only=True)
class VideoContext(sample_context.SampleContext):
    """What a MiraBench family sees: every frame (BGR, native size), the row."""

    row: layout.Row

    def rgb(self) -> np.ndarray:
        return np.ascontiguousarray(self.frames[..., ::-1])


@dataclasses.dataclass(frozen=True)
class Loaded:
    frames: np.ndarray
    digest: str
    warnings: tuple
    shared: dict = dataclasses.field(default_factory=dict)  # see SampleContext.shared


def ref(row: layout.Row, split: str = SPLIT) -> sample_loop.SampleRef:
    return sample_loop.SampleRef(row.video_idx, split)


def digest(row: layout.Row) -> str:
    if row.source is None:
        return "absent"
    _check_frame_folder(row.source)
    return frames_lib.source_digest(row.source)


def _check_frame_folder(source: pathlib.Path) -> None:
    """A frame folder must be laid out as calculate_score.py reads it (InputError naming
    the first frame it would miss); the shared reader then lists those same files, in
    the same numeric order."""
    if source.is_dir():
        layout.frame_files(source)


def load(row: layout.Row, max_side: Optional[int] = None) -> Loaded:
    """Decodes the row's frames once (each shrunk to `max_side` as it is decoded, if
    given: the --max_side deviation); InputError naming where they were looked for, or
    the meta CSV row whose video_idx is unusable."""
    if row.problem:
        raise InputError(*row.problem)
    if row.source is None:
        raise InputError(row.expected, f"the video of meta row video_idx={row.video_idx}",
                         "nothing there")
    _check_frame_folder(row.source)
    warnings = []
    frames, found = frames_lib.load_frames_and_digest(row.source, max_side=max_side,
                                                      warnings=warnings)
    if len(frames) == 0:
        raise InputError(row.source, "a video with at least one frame", "none decoded")
    return Loaded(frames, found, tuple(warnings))


def caption_problem(row: layout.Row, metric_id: str) -> Optional[str]:
    """Why an alignment metric has no caption on this row (None when it has one)."""
    columns = CAPTION_OF.get(metric_id)
    if not columns or any(row.captions.get(c) for c in columns):
        return None
    return "; ".join(row.caption_problems.get(c, f"{c} missing") for c in columns)


def score(row: layout.Row, loaded: Loaded, families: Sequence,
          metric_ids: Sequence[str]) -> scorecard_pb2.SampleScore:
    start = time.perf_counter()
    r = ref(row)
    sample = scorecard_pb2.SampleScore(sample_id=r.sample_id, split=r.split,
                                       input_digest=loaded.digest)
    sample.diagnostics.update({
        "source": str(row.source), "num_frames": str(len(loaded.frames)),
        "height": str(loaded.frames.shape[1]), "width": str(loaded.frames.shape[2])})
    for warning in loaded.warnings:
        sample_loop.add_warning(sample, warning)
    ctx = VideoContext(sample_id=r.sample_id, split=r.split, frames=loaded.frames, row=row,
                       shared=loaded.shared)
    columns = sample_loop.run_families(ctx, families, sample)
    for key, value in columns.items():
        sample.metrics[key] = float(value)
    for metric in metric_ids:
        why = caption_problem(row, metric)
        if why and metric not in sample.metrics:
            # The official code raises on a NaN caption and stores None: we say why.
            sample.unavailable[metric] = "as in the official code: " + why
    sample.seconds = round(time.perf_counter() - start, 4)
    return sample


def video_row(sample: scorecard_pb2.SampleScore, metric_ids: Sequence[str]
              ) -> Dict[str, Optional[float]]:
    """The sample's video_score.csv cells (None: empty), per-video metrics only."""
    return {m: (None if sample.error else sample.metrics.get(m))
            for m in metric_ids if m in metric_specs.PER_VIDEO_IDS}


def is_frame_folder(path: Optional[pathlib.Path]) -> bool:
    return path is not None and path.is_dir()
