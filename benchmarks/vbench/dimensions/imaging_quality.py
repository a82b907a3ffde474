"""VBench imaging_quality of one video (spec §5.2, §9 quirk 8; upstream
vbench/imaging_quality.py:17-56 at 45e79ec).

Upstream, default `--imaging_quality_preprocessing_mode longer`: the whole video as
load_video's float32 tensor; if max(H, W) > 512, torchvision
`Resize(size=(int(s * H), int(s * W)), antialias=False)` with s = 512 / max(H, W)
(bilinear on float values; the int() truncation gives e.g. 1280x720 -> 512x288 and
848x480 -> 512x289, and can leave the longer side at 511); then / 255. pyiqa's MUSIQ
(SPAQ weights; only `model.training = False` set on the top module, dropout is 0 anyway)
scores one frame per call and `acc += float(score)`; video value = acc / T on MUSIQ's
0-100 scale. The ÷ 100 belongs to the aggregate (`:55`), not to this value.

Here: metrics.iqa.musiq (pyiqa's MUSIQ with the same parameter names, loading the
official file strictly) and its `frame_scores`, which does this very resize and / 255.
Differences: `batch_size` frames per network call (one upstream: float rounding only);
our frames are one OpenCV decode of the whole video (the pixels decord gives for these
codecs). Only the `longer` mode, VBench's default, is implemented.
"""

from benchmarks.vbench import dimension
from benchmarks.vbench.dimensions import transforms
from metrics.iqa import musiq

MAX_SIDE = 512      # imaging_quality.py:28
ANTIALIAS = False   # imaging_quality.py:30, explicit upstream
DEFAULT_BATCH_SIZE = 4


def compute(video: dimension.Video, model: musiq.Musiq,
            batch_size: int = DEFAULT_BATCH_SIZE) -> dimension.Value:
    """The official per-video value: the mean MUSIQ score (0-100) over every frame.

    Args:
        video: Every frame of the video (T >= 1).
        model: metrics.iqa.musiq.load_musiq(<metrics.iqa.pins.MUSIQ_SPAQ>, device).
        batch_size: Frames per network call.

    Raises:
        ValueError: Bad frames.
    """
    rgb = transforms.checked(video.rgb)
    total = 0.0
    for score in musiq.frame_scores(model, rgb, MAX_SIDE, ANTIALIAS, batch_size):
        total += float(score)  # upstream's Python-float running sum, in frame order
    return dimension.Value(total / len(rgb))
