"""Evaluating one MemoBench clip: decode once, map the phases, score every metric.

The generated clip is decoded and resized (max side, INTER_AREA) once; every metric
reads those frames. Values are stored twice in the SampleScore: under the scorecard's
metric ids, and under "raw:<column>" as run_eval.py's eval-CSV row holds them.
"""

import hashlib
import pathlib
import time

from benchmarks.memobench import eval_csv
from benchmarks.memobench import metric_specs
from benchmarks.memobench import pixel_fidelity
from benchmarks.memobench.dataset import GroundTruth
from benchmarks.memobench.generated import GeneratedClip
from metrics.video import frames as frames_lib
from metrics.video import sampling
from proto import scorecard_pb2

RAW = eval_csv.RAW_KEY_PREFIX
PIXEL_SECONDS = "seconds:pixel_fidelity"  # GT reading + PSNR/SSIM of every phase


def input_digest(source: pathlib.Path) -> str:
    """sha256 over the clip's generated files, in frame order (or the video's bytes)."""
    digest = hashlib.sha256()
    paths = frames_lib.list_frame_files(source) if source.is_dir() else [source]
    for path in paths:
        digest.update(path.name.encode() + b"\0")
        digest.update(path.read_bytes())
    return digest.hexdigest()


def evaluate(clip: GeneratedClip, gt: GroundTruth, max_side: int,
             metric_ids) -> scorecard_pb2.SampleScore:
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

    wanted_pixel = [m for m in metric_specs.PIXEL_METRICS if m in metric_ids]
    if wanted_pixel:
        pixel_start = time.perf_counter()
        phases = pixel_fidelity.phase_definitions(h, r, n, gt.h_gt, gt.r_gt, gt.gt_total)
        try:
            by_phase = pixel_fidelity.phase_fidelity(frames, gt.source, phases)
        except (frames_lib.FrameInputError, ValueError) as e:
            # run_eval.py: anything raised here leaves every GT metric of the clip None.
            for metric in wanted_pixel:
                sample.unavailable[metric] = f"GT comparison failed: {e}"
        else:
            for phase, values in by_phase.items():
                for name, value in values.items():
                    metric = f"GT_{phase}_{name}"
                    sample.metrics[RAW + metric] = value
                    if metric in metric_ids:
                        sample.metrics[metric] = value
        sample.diagnostics[PIXEL_SECONDS] = f"{time.perf_counter() - pixel_start:.4f}"
    for metric, reason in metric_specs.PENDING.items():
        if metric in metric_ids:
            sample.unavailable[metric] = reason
    sample.seconds = round(time.perf_counter() - start, 4)
    return sample
