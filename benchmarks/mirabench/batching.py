"""--sample_batch for MiraBench: the towers that see each frame alone (DINO ViT-B/16,
CLIP ViT-B/32, CLIP ViT-L/14 + the LAION head) embed the frames of the next N videos in
shared calls; each video's metric is then computed from its own rows, as alone.

The official scripts call these networks per video (aesthetic: per frame), so a batch
changes nothing but the order of float sums inside the matrix products:
mirabench_test pins the per-video values of --sample_batch=3 to 1e-5 of the default.
DINO stacks frames at their own size: only videos of one frame size share its calls.
"""

import dataclasses
import functools
from typing import List, Optional, Sequence

import numpy as np

from benchmarks.common import sample_batch
from benchmarks.mirabench import model_families


def stage(families: Sequence, size: int) -> Optional[sample_batch.BatchStage]:
    """The stage for `size` videos at a time over the per-frame families among
    `families`; None when there is none or size is 1."""
    computes = [f.compute_fn for f in families
                if isinstance(getattr(f, "compute_fn", None), model_families.PerFrame)]
    if not computes:
        return None
    return sample_batch.stage_or_none(size, functools.partial(_run, computes))


def _run(computes, rows, loadeds) -> List[object]:
    del rows
    rgb = [np.ascontiguousarray(loaded.frames[..., ::-1]) for loaded in loadeds]
    shared = [{} for _ in loadeds]
    for compute in computes:
        metric = compute.metric
        usable = []
        for i, frames in enumerate(rgb):
            try:
                usable.append((i, list(metric.checked(frames))))
            except ValueError:
                continue  # scored alone: its own path says why it cannot be
        if len(usable) < 2:
            continue
        model = compute.model.get()
        values = sample_batch.shared_calls(
            [frames for _, frames in usable], lambda frames: metric.per_frame(frames, model),
            key=(lambda frame: frame.shape) if metric.ONE_SIZE_PER_CALL else lambda frame: 0)
        for (i, _), value in zip(usable, values):
            shared[i][compute.metric_id] = value
    return [dataclasses.replace(loaded, shared=s) for loaded, s in zip(loadeds, shared)]
