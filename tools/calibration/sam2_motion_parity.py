"""SAM 2.1 Hiera-B+ as WorldScore's motion accuracy tracks objects: worldeval's
metrics/segmentation sam2 (bicubic frames-folder resize, no post-processing) against the
official `vos_inference` of haoyi-duan/WorldScore@344983c (motion_accuracy_metrics.py and
the sam2 it vendors), via stored numbers.

The official code ran outside the repository (official_runs/sam2_motion.py) on the files
`write_inputs` makes: a tiny random SAM 2.1 in the official checkpoint format (the
tiny_sam2 trunk on sam2.1_hiera_b+.yaml's Hiera defaults, 128 px input, seed SEED,
object-score bias +OBJECT_BIAS), a frames/ folder of FRAMES PNGs and a masks/ folder of
two first-frame box masks (BOXES; one 0/255, one 0/1). Only numbers are committed
(sam2_motion_official.npz). Compared:
  * preprocess: the video predictor's normalised frames (`load_video_frames` of the
    folder) as mean, RMS and 32 seeded values per frame;
  * features: per frame the union of the object masks (vos_inference with its dilation
    disabled), as the fraction of pixels equal to the official union;
  * score: the same with the official 21x21 dilation (vos_inference's return value).

The case is chosen so that no compared mask is empty or full: the official unions cover
11-25% of each frame and their dilations 14-81% (`coverage`), so a wrong dilation, a
lost object or a mask grown to the whole frame moves thousands of pixels. (The tracked
masks of random weights are fine-grained: at 128x96, or with seed 0, the 21x21 dilation
covers 97-100% of the frame.) One pixel of a 640x480 frame is 3.3e-6 of it: up to three pixels per
frame may flip between CPUs at a logit's zero crossing (|logit| < 1e-6: two or three per
tracked frame here; on the CPU of the official run, none flipped) within the 1e-5 bound.
"""

import dataclasses
import json
import pathlib
import tempfile
from typing import Dict, List, Tuple

import numpy as np
from PIL import Image

from benchmarks.common import paths
from benchmarks.worldscore import motion_accuracy
from metrics.flow import motion_stats
from metrics.segmentation import sam2_config
from metrics.segmentation import sam2_loader
from metrics.segmentation import tiny_sam2
from metrics.segmentation import sam2_video
from tools.calibration import parity_table
from tools.fixtures import worldscore_sample

BACKEND = sam2_config.BACKEND_NAME_B_PLUS
TEST = "//tools/calibration:sam2_motion_parity_test"
OFFICIAL = "tools/calibration/sam2_motion_official.npz"
SEED, OBJECT_BIAS, FRAMES, SIZE = 4, 10.0, 4, (640, 480)
# The first-frame object boxes (rows, columns): one 0/255 mask, one 0/1.
BOXES = ((slice(150, 300), slice(200, 350)), (slice(25, 100), slice(450, 600)))
CONFIG = dataclasses.replace(tiny_sam2.TINY_128, window_pos_embed_bkg=(14, 14),
                             postprocessing=False, fill_hole_area=0)
OVERRIDES = tuple(tiny_sam2.OFFICIAL_OVERRIDES) + ("++model.image_size=128",
                                                   "++model.non_overlap_masks=false")
REFERENCE = ("haoyi-duan/WorldScore @344983c motion_accuracy_metrics.vos_inference on its "
             "vendored sam2 (build_sam2_video_predictor(apply_postprocessing=False); torch "
             "2.14.1, CPU), run outside the repository; numbers in " + OFFICIAL)


def write_inputs(folder) -> pathlib.Path:
    """Everything official_runs/sam2_motion.py reads, into `folder`."""
    folder = pathlib.Path(folder)
    (folder / "frames").mkdir(parents=True, exist_ok=True)
    (folder / "masks").mkdir(exist_ok=True)
    tiny_sam2.save_tiny_sam2(folder / "tiny_sam2.pt", seed=SEED, config=CONFIG,
                             object_bias=OBJECT_BIAS)
    for i in range(FRAMES):
        Image.fromarray(worldscore_sample.texture(3, i, 2, size=SIZE)).save(
            folder / "frames" / f"{i:03d}.png")
    for i, (box, value) in enumerate(zip(BOXES, (255, 1))):
        mask = np.zeros(SIZE[::-1], np.uint8)
        mask[box] = value
        Image.fromarray(mask).save(folder / "masks" / f"{i:03d}.png")
    (folder / "motion_inputs.json").write_text(json.dumps({"overrides": list(OVERRIDES)}))
    return folder


def _stats(tensor, index) -> np.ndarray:
    flat = np.asarray(tensor, dtype=np.float64).ravel()
    return np.concatenate([[flat.mean(), np.sqrt((flat ** 2).mean())], flat[index]])


def _equal(ours, theirs) -> List[float]:
    return [float((a == b).mean()) for a, b in zip(ours, theirs)]


def ours():
    """(normalised frames (FRAMES, 3, S, S), per-frame union masks) of worldeval's code on
    the inputs `write_inputs` makes."""
    with tempfile.TemporaryDirectory() as tmp:
        folder = write_inputs(pathlib.Path(tmp))
        model = sam2_loader.load_sam2(folder / "tiny_sam2.pt", config=CONFIG)
        frames = np.stack([np.asarray(Image.open(folder / "frames" / f"{i:03d}.png"))
                           for i in range(FRAMES)])
        masks = motion_accuracy.read_first_frame_masks(folder / "masks")
    pixels = sam2_video.frames_to_model(frames, CONFIG.image_size, "bicubic").numpy()
    return pixels, motion_accuracy.sam2_track(model)(frames, masks)


def official() -> Dict[str, np.ndarray]:
    """The stored official numbers; "unions" and "dilated" unpacked to (FRAMES, H, W) bool."""
    with np.load(paths.runfile(OFFICIAL)) as stored:
        numbers = {k: stored[k] for k in stored.files}
    shape = (FRAMES,) + tuple(int(n) for n in numbers["mask_shape"])
    for name in ("unions", "dilated"):
        numbers[name] = np.unpackbits(numbers[name])[:int(np.prod(shape))].reshape(shape) > 0
    return numbers


def coverage(masks) -> Tuple[float, float]:
    """(smallest, largest) fraction of ones of per-frame masks."""
    fractions = [float(np.mean(m)) for m in masks]
    return min(fractions), max(fractions)


def run() -> List[parity_table.Row]:
    pixels, unions = ours()
    return rows(official(), pixels, unions, [motion_stats.dilate_mask(u) for u in unions])


def rows(theirs: Dict[str, np.ndarray], pixels, unions, dilated) -> List[parity_table.Row]:
    """The rows of our frames, unions and dilated unions against `official()`."""
    spread = "; official unions {:.0%}-{:.0%} of each frame, dilated {:.0%}-{:.0%}".format(
        *coverage(theirs["unions"]), *coverage(theirs["dilated"]))
    common = dict(reference=REFERENCE, test=TEST,
                  weights=f"random (seed {SEED}): metrics/segmentation tiny_sam2 on the B+ "
                          f"Hiera defaults, 128 px input, object-score bias +{OBJECT_BIAS}, "
                          "official checkpoint format",
                  inputs=f"{FRAMES} {SIZE[0]}x{SIZE[1]} PNG frames (tools/fixtures "
                         "worldscore_sample texture, step 3, seed 2), 2 first-frame box "
                         "masks" + spread)
    index = theirs["pixel_index"]
    return [
        parity_table.compare(
            BACKEND, "preprocess", np.stack([_stats(p, index) for p in pixels]),
            theirs["pixel_stats"], compared="normalised frames of the frames folder "
            "(frames_to_model bicubic vs load_video_frames): mean, RMS, 32 values per frame",
            **common),
        parity_table.compare(
            BACKEND, "features", np.array(_equal(unions, theirs["unions"])), np.ones(FRAMES),
            compared="per frame the union of the tracked object masks (logits > 0): "
            "fraction of pixels equal to the official union", **common),
        parity_table.compare(
            BACKEND, "score", np.array(_equal(dilated, theirs["dilated"])), np.ones(FRAMES),
            compared="per frame the dilated union (21x21, motion accuracy's mask): fraction "
            "of pixels equal to vos_inference's", **common)]
