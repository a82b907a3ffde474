"""One MemoBench Step 1 clip on the shared engine: its inputs, its context, its row.

`load` locates the clip's ground truth (phase-sheet row, GT frames or video) and decodes
the generated clip once (max side, INTER_AREA); the engine runs it one clip ahead. The
resume key is the generated files' content digest and the ground truth's
(`input_digests`: GT files by stat, the phase-sheet row); inputs read only in part
(a truncated JPEG, generated or GT) and phase-sheet rows used as upstream clamps them
are recorded in the sample's diagnostics ("input_warnings").
`evaluate` maps the phases, builds the ClipContext every family reads (reference frames
shared and read lazily) and stores values twice in the SampleScore: under
"raw:<column>" as run_eval.py's eval-CSV row holds them, and under the scorecard's metric
ids (the 0-100 composites exactly as the CSV row computes them).
"""

import dataclasses
import pathlib
import time
from typing import Dict, Tuple

import numpy as np

from benchmarks.common import sample_context
from benchmarks.common import sample_loop
from benchmarks.common.errors import InputError
from benchmarks.common.family import Prepared
from benchmarks.memobench import dataset
from benchmarks.memobench import eval_csv
from benchmarks.memobench import frame_order
from benchmarks.memobench import keyframes
from benchmarks.memobench.dataset import GroundTruth
from benchmarks.memobench.generated import GeneratedClip
from benchmarks.memobench.step1 import family as family_lib
from metrics.video import frames as frames_lib
from proto import scorecard_pb2

RAW = eval_csv.RAW_KEY_PREFIX
SECONDS = sample_loop.SECONDS


GENERATED, REFERENCE = sample_loop.GENERATED, "reference"


def input_digest(source: pathlib.Path) -> str:
    """sha256 over the clip's generated files, in frame order (or the video's bytes)."""
    return frames_lib.source_digest(source)


def input_digests(clip: GeneratedClip, rows, data_root: pathlib.Path) -> Dict[str, str]:
    """The clip's resume key: its generated inputs' digest and its ground truth's."""
    return {GENERATED: input_digest(clip.source),
            REFERENCE: dataset.reference_digest(ground_truth(clip, rows, data_root))}


@dataclasses.dataclass(frozen=True)
class Loaded:
    """A clip's inputs, read once: its ground truth, decoded frames, input digests and
    what was read only in part."""

    gt: GroundTruth
    frames: np.ndarray
    digest: str
    gt_digest: str = ""
    warnings: Tuple[str, ...] = ()
    shared: dict = dataclasses.field(default_factory=dict)  # see SampleContext.shared


def ref(clip: GeneratedClip) -> sample_loop.SampleRef:
    return sample_loop.SampleRef(clip.clip_id, clip.split, clip.scene)


def ground_truth(clip: GeneratedClip, rows, data_root: pathlib.Path) -> GroundTruth:
    """The clip's GroundTruth; InputError when its phase-sheet row or GT is unusable."""
    sheet = rows[clip.split]
    row = sheet.get(clip.clip_id)
    if row is None:
        dropped = getattr(sheet, "dropped", {}).get(clip.clip_id)
        if dropped:
            raise InputError(getattr(sheet, "path", None) or clip.source,
                             f"a usable row for clip {clip.clip_id}", dropped)
        raise InputError(clip.source, f"clip {clip.clip_id} to have a row in the "
                         f"{clip.split} phase sheet", "none")
    locate = (dataset.synthetic_ground_truth if clip.split == dataset.SYNTHETIC
              else dataset.real_ground_truth)
    return dataclasses.replace(locate(data_root, clip.clip_id, row), notes=row.notes)


def load(clip: GeneratedClip, rows, data_root: pathlib.Path, max_side: int) -> Loaded:
    """Reads one clip's inputs; raises InputError/FrameInputError for unusable ones."""
    if clip.error:
        raise InputError(clip.source, clip.expected, clip.error)
    gt = ground_truth(clip, rows, data_root)
    warnings = list(gt.notes) + list(clip.warnings)  # + sources of the clip not read
    # MemoBench's frame rule: string order = numeric order; a gap is kept, with a warning.
    warnings += frame_order.gap_warnings(clip.source)
    # Each generated file is read once, for its frame and the clip's digest; a video by
    # its container's frame count, as run_eval.py's VideoReader reads it.
    frames, digest = frames_lib.load_frames_and_digest(clip.source, max_side=max_side,
                                                       warnings=warnings, as_declared=True)
    if len(frames) < keyframes.MIN_GENERATED_FRAMES:
        raise InputError(clip.source, f"a generated clip of at least "
                         f"{keyframes.MIN_GENERATED_FRAMES} frames (the V-D-R phases)",
                         f"{len(frames)} frames")
    return Loaded(gt, frames, digest, dataset.reference_digest(gt), tuple(warnings))


def keyframes_of(loaded: Loaded) -> Tuple[int, int]:
    """(h, r): the phase sheet's keyframes mapped onto the generated clip (ValueError when
    it is too short)."""
    gt = loaded.gt
    return keyframes.map_keyframes(gt.h_gt, gt.r_gt, gt.gt_total, len(loaded.frames))


def context(clip: GeneratedClip, loaded: Loaded, sample_step: int) -> family_lib.ClipContext:
    """What every Step 1 family reads of the clip: frames, phases, GT and GT frames."""
    gt = loaded.gt
    h, r = keyframes_of(loaded)
    return family_lib.ClipContext(
        sample_id=clip.clip_id, split=clip.split, frames=loaded.frames,
        reference=sample_context.ReferenceFrames(gt.source), h=h, r=r, gt=gt,
        sample_step=sample_step, shared=loaded.shared)


def evaluate(clip: GeneratedClip, loaded: Loaded, sample_step: int, prepared: Prepared,
             metric_ids) -> scorecard_pb2.SampleScore:
    """Scores one loaded clip with every prepared family."""
    start = time.perf_counter()
    gt, frames = loaded.gt, loaded.frames
    sample = scorecard_pb2.SampleScore(sample_id=clip.clip_id, split=clip.split,
                                       scene=clip.scene)
    sample_loop.record_digests(sample, {GENERATED: loaded.digest, REFERENCE: loaded.gt_digest})
    ctx = context(clip, loaded, sample_step)
    n, h, r = len(frames), ctx.h, ctx.r
    sample.diagnostics.update({
        "num_frames": str(n), "h_start": str(h), "r_start": str(r),
        "gt_frames": str(gt.gt_total), "height": str(frames.shape[1]),
        "width": str(frames.shape[2]), "source": str(clip.source), "layout": clip.layout,
        "gt_source": str(gt.source), "gt_layout": gt.layout,
    })
    sample.metrics[RAW + "fx"] = round(gt.fx, 2)
    sample.metrics[RAW + "fy"] = round(gt.fy, 2)

    columns = sample_loop.run_families(ctx, prepared.families, sample)
    for warning in loaded.warnings + tuple(ctx.reference.warnings):
        sample_loop.add_warning(sample, warning)
    for column, value in columns.items():
        sample.metrics[RAW + column] = value

    direct = {m: sample.metrics[RAW + m] for m in metric_ids
              if RAW + m in sample.metrics and m not in eval_csv.COMPOSITE_COLUMNS}
    sample.metrics.update(direct)  # e.g. GT_ALL_PSNR: the CSV column is the metric
    for metric, value in eval_csv.composites(sample).items():
        if metric in metric_ids:
            sample.metrics[metric] = value
    for metric, (reason, _) in prepared.unavailable.items():
        if metric in metric_ids:
            sample.unavailable[metric] = reason
    sample.seconds = round(time.perf_counter() - start, 4)
    return sample
