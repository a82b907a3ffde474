"""--sample_batch for MiraBench: the towers that see each frame alone (DINO ViT-B/16,
CLIP ViT-B/32, CLIP ViT-L/14 + the LAION head) embed the frames of the next N videos in
shared calls; each video's metric is then computed from its own rows, as alone.

The official scripts call these networks per video (aesthetic: per frame), so a batch
changes nothing but the order of float sums inside the matrix products:
mirabench_test pins the per-video values of --sample_batch=3 to 1e-5 of the default.
DINO stacks frames at their own size: only videos of one frame size share its calls.
"""

from typing import Optional, Sequence

from benchmarks.common import sample_batch
from benchmarks.mirabench import model_families


def stage(families: Sequence, size: int) -> Optional[sample_batch.BatchStage]:
    """The stage for `size` videos at a time over the per-frame families among
    `families`; None when there is none (a warning if size > 1) or size is 1."""
    return sample_batch.frame_stage(
        [f.compute_fn.frame_call() for f in families
         if isinstance(getattr(f, "compute_fn", None), model_families.PerFrame)], size,
        "MiraBench")
