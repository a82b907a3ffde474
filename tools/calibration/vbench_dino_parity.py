"""VBench's DINO backend (`dino_vitb16`, subject_consistency) against the official VBench
code (Vchitect/VBench @45e79ec, the vbench 0.1.5 wheel) with the torch.hub DINO model
(facebookresearch/dino @7c446df `dino_vitb16`), on identical seeded random FULL-SIZE
weights, via the stored official run (vbench_record; official_runs/vbench_clip_dino.py).

The official run loaded tools.calibration.vbench_weights' DINO tensors as
dino_vitbase16_pretrain.pth from the hub cache (`torch.hub.load(<dino>, "dino_vitb16",
source="local")`, VBench's local mode); here the same file is written and loaded through
metrics.dino.vit.load_dino (as benchmarks/vbench/families.py does), and our dimension
code recomputes:

* preprocess: transforms.dino_pixels vs utils.dino_transform(224) (bilinear shorter side
  to 224 on load_video's float tensor, no crop): shape, mean, RMS, 64 values per frame;
  the 641x361 frame gives a 224x397 input, whose 14x24 grid exercises the position-table
  resampling.
* features: the class tokens (recorded at the final norm while compute runs),
  L2-normalised, vs F.normalize(model(frame)), every element.
* score: subject_consistency.compute's value per video.
"""

import functools
import tempfile
from typing import List

import numpy as np
from timm.models.vision_transformer import VisionTransformer
import torch
import torch.nn.functional as F

from benchmarks.vbench import metric_specs
from benchmarks.vbench.dimensions import subject_consistency
from metrics.dino import vit
from tools.calibration import parity_table
from tools.calibration import vbench_record as record
from tools.calibration import vbench_weights as weights

BACKEND = metric_specs.BACKENDS["dino_subject"][0]
TEST = "//tools/calibration:vbench_dino_parity_test"
REFERENCE = ("Vchitect/VBench @45e79ec (vbench 0.1.5) subject_consistency() with "
             "facebookresearch/dino @7c446df torch.hub dino_vitb16 (source='local', weights "
             "from the hub cache), float32, torch 2.14.1 CPU, run outside the repository; "
             "numbers in tools/calibration/vbench_official.{csv,npz}")
WEIGHTS = (f"random full-size ViT-B/16 (seed {weights.DINO_SEED}) in "
           "dino_vitbase16_pretrain.pth's form")


@functools.lru_cache(maxsize=1)
def load() -> VisionTransformer:
    """The seeded weights written as dino_vitbase16_pretrain.pth and loaded by
    metrics.dino.vit.load_dino (fingerprint checked first; once per process)."""
    state = weights.dino_state()
    record.check_fingerprint("dino_vitb16", state)
    with tempfile.TemporaryDirectory() as tmp:
        path = f"{tmp}/dino_vitbase16_pretrain.pth"
        torch.save({k: torch.from_numpy(v) for k, v in state.items()}, path)
        del state
        return vit.load_dino(path, "cpu")


def run() -> List[parity_table.Row]:
    """The rows: our pixels and class tokens recorded (forward hooks on the patch
    convolution's input and the final norm's output) while subject_consistency.compute
    ran, and its values."""
    official, clips = record.arrays(), record.clips()
    model = load()
    with record.captured(model.patch_embed.proj) as convs, \
            record.captured(model.norm) as norms:
        values = [subject_consistency.compute(record.video(c, i), model).video_results
                  for i, c in enumerate(clips)]
    pixels = [p for args, _, _ in convs for p in args[0]]
    features = F.normalize(torch.cat([out[:, 0] for _, _, out in norms]), dim=-1, p=2)
    common = dict(test=TEST, reference=REFERENCE, weights=WEIGHTS,
                  inputs=record.inputs_text())
    return [
        parity_table.compare(
            BACKEND, "preprocess", *record.stats(pixels, "dino_transform"),
            compared="transforms.dino_pixels vs utils.dino_transform(224) on load_video's "
            "float tensor: shape, mean, RMS and 64 values per frame", **common),
        parity_table.compare(
            BACKEND, "features", features, official["subject/features"],
            compared="the class tokens in subject_consistency.compute (batched), "
            "L2-normalised, vs F.normalize(model(frame)) one frame at a time, every element",
            **common),
        parity_table.compare(
            BACKEND, "score", np.array(values), official["subject/video_results"],
            compared="subject_consistency.compute's value vs the official video_results, "
            "per video", **common)]
