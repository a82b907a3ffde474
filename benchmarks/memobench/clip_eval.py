"""Evaluating one MemoBench clip: decode once, map the phases, run every family.

The generated clip is decoded and resized (max side, INTER_AREA) once; every Step 1
family reads those frames. Values are stored twice in the SampleScore: under
"raw:<column>" as run_eval.py's eval-CSV row holds them, and under the scorecard's
metric ids (the 0-100 composites exactly as the CSV row computes them).
"""

import hashlib
import pathlib
import time

from absl import logging

from benchmarks.memobench import eval_csv
from benchmarks.memobench.dataset import GroundTruth
from benchmarks.memobench.generated import GeneratedClip
from benchmarks.memobench.step1 import family as family_lib
from benchmarks.memobench.step1.prepare import Prepared
from metrics.video import frames as frames_lib
from metrics.video import sampling
from proto import scorecard_pb2

RAW = eval_csv.RAW_KEY_PREFIX
SECONDS = "seconds:"  # diagnostics key prefix: time spent per family


def input_digest(source: pathlib.Path) -> str:
    """sha256 over the clip's generated files, in frame order (or the video's bytes)."""
    digest = hashlib.sha256()
    paths = frames_lib.list_frame_files(source) if source.is_dir() else [source]
    for path in paths:
        digest.update(path.name.encode() + b"\0")
        digest.update(path.read_bytes())
    return digest.hexdigest()


def evaluate(clip: GeneratedClip, gt: GroundTruth, max_side: int, sample_step: int,
             prepared: Prepared, metric_ids) -> scorecard_pb2.SampleScore:
    """Scores one clip; raises FrameInputError/InputError for unusable inputs."""
    start = time.perf_counter()
    sample = scorecard_pb2.SampleScore(sample_id=clip.clip_id, split=clip.split,
                                       scene=clip.scene)
    sample.input_digest = input_digest(clip.source)
    frames = frames_lib.load_frames(clip.source, max_side=max_side)
    n = len(frames)
    h, r = sampling.map_keyframes(gt.h_gt, gt.r_gt, gt.gt_total, n)
    sample.diagnostics.update({
        "num_frames": str(n), "h_start": str(h), "r_start": str(r),
        "gt_frames": str(gt.gt_total), "height": str(frames.shape[1]),
        "width": str(frames.shape[2]), "source": str(clip.source), "layout": clip.layout,
        "gt_source": str(gt.source), "gt_layout": gt.layout,
    })
    sample.metrics[RAW + "fx"] = round(gt.fx, 2)
    sample.metrics[RAW + "fy"] = round(gt.fy, 2)

    ctx = family_lib.ClipContext(frames=frames, h=h, r=r, gt=gt, sample_step=sample_step)
    for fam in prepared.families:
        fam_start = time.perf_counter()
        try:
            result = fam.compute(ctx)
        except Exception as e:  # pylint: disable=broad-except  (one family, one clip)
            logging.warning("%s: %s failed: %s", clip.clip_id, fam.name, e)
            result = family_lib.FamilyResult(
                {}, {m: f"{fam.name} failed: {type(e).__name__}: {e}" for m in fam.metric_ids})
        sample.diagnostics[SECONDS + fam.name] = f"{time.perf_counter() - fam_start:.4f}"
        for column, value in result.columns.items():
            if value is not None:
                sample.metrics[RAW + column] = value
        sample.unavailable.update(result.unavailable)

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
