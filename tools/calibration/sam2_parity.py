"""SAM 2.1 parity: worldeval's metrics/segmentation sam2 (transformers Sam2Model and
Sam2VideoModel around our own pre/post-processing) against VMBench's vendored official
`sam2` package, via stored numbers.

The official package cannot be locked (sam2==1.1.0 is a sdist only, and differs from the
vendored copy VMBench runs), so it ran outside the repository (official_runs/sam2.py) on
the files `write_inputs` makes: the tiny random model in the official checkpoint format
(`metrics/segmentation/tiny_sam2`, seed SEED, noise NOISE), RGB frames of the fixtures
room with boxes, and a clip with two initial masks. Only numbers are committed
(sam2_official.csv). Compared, each as shape, mean, RMS and 32 seeded values:
  * preprocess: the image predictor's 1024 x 1024 normalised input;
  * features: its low-resolution mask logits and IoU predictions, and the video
    predictor's per-frame logits (add_new_mask on frame 0, propagate 3 frames);
  * score: the boolean masks (image: at the frame's size; video: every tracked frame), as
    the fraction of pixels equal to the official masks (sam2_official_masks.npz).
Not compared: the video frames' resize (the official loader lets decord/ffmpeg resize the
mp4; the official run here was given worldeval's resized frames), and hole filling
(the official run has no `sam2._C`, so it skips it; ours runs with fill_hole_area=0 here).
"""

import dataclasses
import json
import pathlib
import tempfile
from typing import Dict, List

import cv2
import numpy as np
import torch
import torch.nn.functional as F

from metrics.segmentation import sam2_config
from metrics.segmentation import sam2_image
from metrics.segmentation import sam2_loader
from metrics.segmentation import tiny_sam2
from metrics.segmentation import sam2_video
from benchmarks.common import paths
from tools.calibration import frames as frames_lib
from tools.calibration import official_numbers
from tools.calibration import parity_table
from tools.fixtures import scene

BACKEND = sam2_config.BACKEND_NAME
TEST = "//tools/calibration:sam2_parity_test"
OFFICIAL = "tools/calibration/sam2_official.csv"
OFFICIAL_MASKS = "tools/calibration/sam2_official_masks.npz"
SEED, NOISE, OBJECT_BIAS = 0, 0.05, 10.0
CONFIG = dataclasses.replace(tiny_sam2.TINY, fill_hole_area=0)
VIDEO_FRAMES, VIDEO_START, VIDEO_STEP, VIDEO_IDS = 4, 0, 3, (1, 3)
REFERENCE = ("VMBench @c278a73 vendored Grounded-SAM-2 sam2 (SAM2ImagePredictor, "
             "SAM2VideoPredictor; torch 2.14.1, CPU, no sam2._C), run outside the "
             "repository; numbers in " + OFFICIAL)


def image_inputs() -> List[np.ndarray]:
    """The first frame of each calibration size, as RGB."""
    return [cv2.cvtColor(clip[0], cv2.COLOR_BGR2RGB) for clip in frames_lib.frames_by_size()]


def image_boxes(rgb: np.ndarray) -> List[List[float]]:
    """Two pixel boxes per frame (one fractional, one touching the border)."""
    h, w = rgb.shape[:2]
    return [[0.1 * w + 0.5, 0.2 * h, 0.6 * w, 0.9 * h], [0.4 * w, 0.0, float(w), 0.5 * h]]


def video_inputs():
    """(T, H, W, 3) RGB clip and its two initial masks (an ellipse and a rectangle)."""
    clip = scene.render_clip(VIDEO_FRAMES, 239, 427, frames_lib.SEED)[0]
    rgb = np.stack([cv2.cvtColor(f, cv2.COLOR_BGR2RGB) for f in clip])
    ellipse = np.zeros(rgb.shape[1:3], np.uint8)
    cv2.ellipse(ellipse, (150, 120), (60, 40), 0, 0, 360, 1, -1)
    rect = np.zeros(rgb.shape[1:3], bool)
    rect[20:110, 250:400] = True
    return rgb, np.stack([ellipse.astype(bool), rect])


def write_checkpoint(path) -> pathlib.Path:
    """The tiny model, its object-score head biased (+OBJECT_BIAS) so that tracked objects
    stay "present" and the propagated logits are the memory path's, not the no-object fill."""
    path = tiny_sam2.save_tiny_sam2(path, seed=SEED, noise=NOISE)
    content = torch.load(str(path), weights_only=True)
    content["model"]["sam_mask_decoder.pred_obj_score_head.layers.2.bias"] += OBJECT_BIAS
    torch.save(content, str(path))
    return path


def write_inputs(folder) -> pathlib.Path:
    """Everything official_runs/sam2.py reads, into `folder`."""
    folder = pathlib.Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    write_checkpoint(folder / "tiny_sam2.pt")
    frames = image_inputs()
    np.save(folder / "image_frames.npy", np.array(frames, dtype=object), allow_pickle=True)
    rgb, masks = video_inputs()
    np.save(folder / "video_rgb.npy", rgb)
    np.save(folder / "video_init_masks.npy", masks)
    np.save(folder / "video_frames.npy",
            sam2_video.frames_to_model(rgb, CONFIG.image_size).numpy())
    spec = {"overrides": list(tiny_sam2.OFFICIAL_OVERRIDES),
            "boxes": [image_boxes(f) for f in frames], "video_start": VIDEO_START,
            "video_step": VIDEO_STEP, "video_obj_ids": list(VIDEO_IDS)}
    (folder / "sam2_inputs.json").write_text(json.dumps(spec, indent=1))
    return folder


def _ours() -> Dict[str, list]:
    with tempfile.TemporaryDirectory() as tmp:
        model = sam2_loader.load_sam2(
            write_checkpoint(pathlib.Path(tmp) / "t.pt"),
            config=CONFIG)
    out = {k: [] for k in ("image_pixels", "image_low_res_logits", "image_iou",
                           "image_masks", "video_logits", "video_masks")}
    for rgb in image_inputs():
        boxes = np.array(image_boxes(rgb), dtype=np.float32)
        low, iou = model.image_logits(rgb, boxes)
        out["image_pixels"].append(sam2_image.preprocess(rgb, CONFIG.image_size)[0])
        out["image_low_res_logits"].append(low)
        out["image_iou"].append(iou)
        out["image_masks"].append(model.image_masks(rgb, boxes))
    rgb, masks = video_inputs()
    for _, _, logits in sam2_video.propagate_logits(
            model.video_model, rgb, dict(zip(VIDEO_IDS, masks)), VIDEO_START, VIDEO_STEP,
            CONFIG.fill_hole_area, "cpu"):
        full = F.interpolate(logits, size=rgb.shape[1:3], mode="bilinear", align_corners=False)
        out["video_logits"].append(full)
        out["video_masks"].append((full > 0)[:, 0].numpy())
    return out


def _official_masks(name: str, i: int) -> np.ndarray:
    with np.load(paths.runfile(OFFICIAL_MASKS)) as stored:
        shape = tuple(stored[f"{name}_{i}_shape"])
        return np.unpackbits(stored[f"{name}_{i}"])[:int(np.prod(shape))].reshape(shape) > 0


def _score_row(ours, common) -> parity_table.Row:
    """Per mask, the fraction of pixels equal to the official mask (theirs: all equal)."""
    equal = [float((mask == theirs).mean())
             for name in ("image", "video") for i, masks in enumerate(ours[f"{name}_masks"])
             for mask, theirs in zip(masks, _official_masks(name, i))]
    return parity_table.compare(
        BACKEND, "score", np.array(equal), np.ones(len(equal)),
        compared="masks (logits > 0) of the image predictor (each box, at the frame's size) and "
        "of the video predictor (each object, each frame): fraction of pixels equal to the "
        "official mask", **common)


def run() -> List[parity_table.Row]:
    official = official_numbers.read(OFFICIAL)
    ours = _ours()
    common = dict(reference=REFERENCE, test=TEST,
                  inputs=f"{frames_lib.describe()} (first frame per size, RGB, 2 boxes each); "
                         f"a {VIDEO_FRAMES}-frame 427x239 room clip, 2 masks on frame 0",
                  weights=f"random (seed {SEED}): metrics/segmentation tiny_sam2 + noise "
                          f"std {NOISE}, object-score bias +{OBJECT_BIAS}, official checkpoint format")
    checks = (("preprocess", ("image_pixels",), "image predictor input (sam2_image.preprocess)"),
              ("features", ("image_low_res_logits", "image_iou", "video_logits"),
               "image low-res mask logits and IoU; video per-frame logits at the video size"),
              )
    rows = [_score_row(ours, common)]
    for check, names, what in checks:
        mine, theirs = [], []
        for name in names:
            for i, tensor in enumerate(ours[name]):
                wanted = official[(i, name)]
                mine.append(official_numbers.stats_like(tensor, wanted))
                theirs.append(np.array([v for _, _, v in wanted]))
        rows.append(parity_table.compare(
            BACKEND, check, np.concatenate(mine), np.concatenate(theirs),
            compared=f"{what}: shape, mean, RMS and 32 values per frame vs the official run's",
            **common))
    return rows
