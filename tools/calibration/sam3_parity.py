"""SAM-3 parity: worldeval's metrics/segmentation/sam3 (transformers' Sam3Model plus the
official processor's glue) against the official sam3 0.1.4 package, via stored numbers.

sam3 cannot be locked (it requires numpy<2.4), so `Sam3Processor(build_sam3_image_model(
...))` ran outside the repository (official_runs/sam3.py: a scratch virtualenv with the
locked torch 2.14.1, on the CPU) at the tiny sizes of metrics/segmentation/tiny_sam3, on
the files `//tools/calibration:official_run_inputs` writes: our tiny snapshot
(`save_tiny_sam3` with the official text tower's MLP ratio 4 and 512-wide projection),
the same tensors in the official sam3.pt layout (`sam3_layout.to_official_layout`), its
BPE merges as the official gzip vocabulary, the frames and PROMPTS. Only its numbers
are committed (sam3_official.csv): per frame the processor's 56 px tensor and, per
prompt, the token ids, the grounding outputs (pred_logits, presence logit, low-resolution
mask logits) and the state's scores and binary masks (per query the pixel count and the
row/column index sums, i.e. size and centroid).
"""

import gzip
import json
import pathlib
import tempfile
from typing import List

import numpy as np
import torch
from safetensors.torch import load_file

from metrics.segmentation import sam3
from metrics.segmentation import tiny_sam3
from tools.calibration import frames as frames_lib
from tools.calibration import official_numbers
from tools.calibration import parity_table
from tools.calibration import sam3_layout

BACKEND = sam3.BACKEND_NAME
TEST = "//tools/calibration:sam3_parity_test"
OFFICIAL = "tools/calibration/sam3_official.csv"
SEED = 1
TEXT_OVERRIDES = {"intermediate_size": 64, "projection_dim": 512}  # VETextEncoder's sizes
PROMPTS = ("red ball", "subject", "a Blue subject, far away")
REFERENCE = ("sam3 0.1.4 Sam3Processor(build_sam3_image_model()) at tiny sizes "
             "(torch 2.14.1, CPU), run outside the repository; numbers in " + OFFICIAL)


def write_inputs(folder) -> pathlib.Path:
    """<folder>/sam3/ (ours), sam3_official.pt, sam3_bpe.txt.gz, sam3_prompts.json."""
    folder = pathlib.Path(folder)
    snapshot = tiny_sam3.save_tiny_sam3(folder, seed=SEED, text_overrides=TEXT_OVERRIDES)
    state = load_file(str(snapshot / "model.safetensors"))
    torch.save(sam3_layout.to_official_layout(state), folder / "sam3_official.pt")
    (folder / "sam3_bpe.txt.gz").write_bytes(gzip.compress(bpe_vocabulary(snapshot), mtime=0))
    (folder / "sam3_prompts.json").write_text(json.dumps(PROMPTS))
    return snapshot


def bpe_vocabulary(snapshot: pathlib.Path) -> bytes:
    """The snapshot tokenizer's merges as the official bpe_simple_vocab file (before
    gzip): a header line SimpleTokenizer skips, then one "left right" merge a line, no
    newline at the end (SimpleTokenizer would read an empty last line as a merge)."""
    merges = json.loads((snapshot / "tokenizer.json").read_text())["model"]["merges"]
    merges = [m.split(" ") if isinstance(m, str) else m for m in merges]
    return "\n".join(["#version: worldeval tiny"] + [f"{a} {b}" for a, b in merges]).encode()


def _ours(detector, frames):
    """Per frame and prompt our tensors, keyed like the official CSV's names."""
    prompts = [sam3.encode_prompt(detector, p) for p in PROMPTS]
    out = {(0, f"tokens_p{j}"): p.input_ids[0] for j, p in enumerate(prompts)}
    for i, frame in enumerate(frames):
        rgb = np.ascontiguousarray(frame[:, :, ::-1])
        pixels = sam3.pixel_values(detector, rgb)
        out[(i, "pixel_values")] = pixels
        for j, prompt in enumerate(prompts):
            with torch.inference_mode():
                logits, presence, masks = sam3._grounding(  # pylint: disable=protected-access
                    detector.model, pixels, prompt)
            found = sam3.detect(detector, rgb, prompt, threshold=0.0, return_masks=True)
            kept = masks[0][(logits.sigmoid() * presence.sigmoid())[0] > 0.0]
            rows, cols = np.indices(found.masks.shape[1:])
            out.update({(i, f"pred_logits_p{j}"): logits.reshape(-1),
                        (i, f"presence_p{j}"): presence.reshape(-1),
                        (i, f"pred_masks_p{j}"): masks, (i, f"scores_p{j}"): found.scores,
                        (i, f"mask_probs_p{j}"): sam3.mask_probabilities(kept, *rgb.shape[:2]),
                        (i, f"mask_area_p{j}"): found.mask_areas,
                        (i, f"mask_rows_p{j}"): (found.masks * rows).sum(axis=(1, 2)),
                        (i, f"mask_cols_p{j}"): (found.masks * cols).sum(axis=(1, 2))})
    return out


def _load_ours():
    frames = frames_lib.all_frames()
    with tempfile.TemporaryDirectory() as tmp:
        detector = sam3.load_sam3(write_inputs(tmp), "cpu")
    return frames, _ours(detector, frames)


def mask_disagreement(frames, ours) -> float:
    """The largest |our mask's pixel count - the official one's| / the frame's pixels.

    The binary masks cut probabilities at 0.5, so float rounding flips pixels whose
    probability is within rounding of 0.5; on the tiny model's smooth masks that is a
    few pixels a mask (not a parity check of its own: the probabilities are compared).
    """
    official = official_numbers.read(OFFICIAL)
    worst = 0.0
    for (i, name), wanted in official.items():
        if name.startswith("mask_area_p"):
            theirs = np.array([v for _, stat, v in wanted if stat.startswith("at:")])
            pixels = frames[i].shape[0] * frames[i].shape[1]
            worst = max(worst, float(np.abs(ours[(i, name)] - theirs).max()) / pixels)
    return worst


def mask_logit_difference(ours) -> float:
    """max |ours - official| of the low-resolution mask logits relative to THEIR scale.

    The features row pools them with the query logits (scale ~0.4); on their own scale
    (~2e-4 on the tiny init) they differ by ~5e-4: more than float rounding, not explained
    yet (see README.md). Kept here so that the test notices if it grows.
    """
    official = official_numbers.read(OFFICIAL)
    keys = [k for k in official if k[1].startswith("pred_masks_p")]
    _, rel = parity_table.differences(
        [official_numbers.stats_like(ours[k], official[k]) for k in keys],
        [np.array([v for _, _, v in official[k]]) for k in keys])
    return rel


def run(loaded=None) -> List[parity_table.Row]:
    frames, ours = loaded or _load_ours()
    official = official_numbers.read(OFFICIAL)
    common = dict(reference=REFERENCE, test=TEST,
                  inputs=f"{frames_lib.describe()}; {len(PROMPTS)} prompts",
                  weights=f"random (seed {SEED}): metrics/segmentation tiny_sam3 with the "
                          "official text MLP ratio")
    checks = (
        ("preprocess", ("pixel_values", "tokens"), "pixel_values (v2 Resize 56, /255, "
         "Normalize 0.5) and token_ids vs the processor's transform and SimpleTokenizer"),
        ("features", ("pred_logits", "presence", "pred_masks"), "sam3._grounding's "
         "pred_logits, presence logit and low-resolution mask logits vs forward_grounding's"),
        ("score", ("scores", "mask_probs"), "sam3.detect at threshold 0: scores, and "
         "sam3.mask_probabilities (resized, sigmoid) vs the processor state's scores and "
         "masks_logits (binary masks: mask_disagreement)"),
    )
    rows = []
    for check, stems, what in checks:  # keys sorted: the pooling order is fixed
        keys = [k for k in sorted(official) if k[1].rsplit("_p", 1)[0] in stems
                or k[1] in stems]
        mine = [official_numbers.stats_like(ours[k], official[k]) for k in keys]
        theirs = [np.array([v for _, _, v in official[k]]) for k in keys]
        rows.append(parity_table.compare(
            BACKEND, check, mine, theirs, compared=f"{what}: shape, mean, RMS and up to 32 "
            f"values of each, {len(keys)} tensors", **common))
    return rows
