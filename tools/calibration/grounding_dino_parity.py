"""GroundingDINO parity: metrics/detection (transformers GroundingDinoForObjectDetection
behind our key mapping) against the GroundingDINO code VMBench vendors, via stored numbers.

No GroundingDINO package can be locked, so the vendored official code ran outside the
repository (official_runs/grounding_dino.py: the transformers 4.36.1 that VMBench pins,
torch 2.14.1, CPU, its pure-PyTorch deformable attention) on the files
`//tools/calibration:official_run_inputs` writes: a tiny random GroundingDINO
(metrics/detection/tiny_grounding_dino: Swin 16 wide, d_model 256, 1 encoder and 2
decoder layers, 50 queries; Gaussian noise std 0.02 on every tensor) in the official
checkpoint format, a tiny BERT folder, the frames and the captions. Its numbers
(grounding_dino_official.csv) per frame: the transform's output; per frame and caption:
`pred_logits` over the caption's tokens and `pred_boxes` (shape, sum, sum of squares, 32
seeded values each), and what get_grounding_output keeps at the official thresholds
0.25 / 0.20: the count, and every value of the kept boxes, their scores and the tokens
above the text threshold (which make the phrase). On these random weights the official
thresholds keep 40 to 50 of the 50 queries per frame and caption (all 50 on one of the
8 pairs); the official run prints each pair's smallest distance of a query's score
from 0.25 (at least 0.027), so float rounding cannot flip a decision.
"""

import json
import pathlib
import tempfile
from typing import List

import cv2
import numpy as np

from metrics.detection import grounding_dino
from metrics.detection import tiny_grounding_dino
from tools.calibration import frames as frames_lib
from tools.calibration import official_numbers
from tools.calibration import parity_table

BACKEND = grounding_dino.BACKEND_NAME
TEST = "//tools/calibration:grounding_dino_parity_test"
OFFICIAL = "tools/calibration/grounding_dino_official.csv"
SEED = 0
NOISE = 0.02
CAPTIONS = (" Red Sphere", "dog. ball. person.")
# The first frame of each size of frames.py (every frame costs ~1 s per caption on CPU:
# the network input is at least 800 px on the short side whatever the frame size).
FRAMES = tuple(range(0, len(frames_lib.SIZES) * frames_lib.FRAMES_PER_SIZE,
                     frames_lib.FRAMES_PER_SIZE))
BOX_THRESHOLD = 0.25
TEXT_THRESHOLD = 0.20
REFERENCE = ("AMAP-ML/VMBench @c278a73 Grounded-Segment-Anything/GroundingDINO "
             "(transformers 4.36.1, torch 2.14.1, CPU), run outside the repository; "
             "numbers in " + OFFICIAL)


def write_inputs(folder) -> pathlib.Path:
    """The tiny checkpoint, the BERT folder (with weights, which the official
    `BertModel.from_pretrained` needs) and grounding_dino_arch.json; returns the checkpoint."""
    checkpoint, bert = tiny_grounding_dino.write_checkpoint(folder, seed=SEED, noise=NOISE)
    tiny_grounding_dino.write_bert_weights(bert)
    arch = {k: list(v) if isinstance(v, tuple) else v
            for k, v in vars(tiny_grounding_dino.TINY).items()}
    spec = {"arch": arch, "checkpoint": checkpoint.name, "captions": list(CAPTIONS),
            "frames": list(FRAMES),
            "box_threshold": BOX_THRESHOLD, "text_threshold": TEXT_THRESHOLD}
    (pathlib.Path(folder) / "grounding_dino_arch.json").write_text(
        json.dumps(spec, indent=1), encoding="utf-8")
    return checkpoint


def _kept(official, frame: int, caption: int, name: str) -> np.ndarray:
    rows = official.get((frame, f"c{caption}:{name}"), [])
    return np.array([value for _, _, value in rows])


def run() -> List[parity_table.Row]:
    every_frame = frames_lib.all_frames()
    frames = [cv2.cvtColor(every_frame[i], cv2.COLOR_BGR2RGB) for i in FRAMES]
    official = official_numbers.read(OFFICIAL)
    with tempfile.TemporaryDirectory() as tmp:
        checkpoint, bert = tiny_grounding_dino.write_checkpoint(tmp, seed=SEED, noise=NOISE)
        detector = grounding_dino.load_grounding_dino(checkpoint, bert,
                                                      config=tiny_grounding_dino.TINY)
    pixels = [grounding_dino.preprocess(f) for f in frames]
    sizes = ", ".join(f"{w}x{h}" for h, w in frames_lib.SIZES)
    common = dict(reference=REFERENCE, test=TEST,
                  inputs=f"the first BGR frame of each size of the //tools/fixtures room (seed "
                         f"{frames_lib.SEED}) at {sizes} (frames {list(FRAMES)} of "
                         f"frames.py); captions " + " | ".join(repr(c) for c in CAPTIONS),
                  weights=f"random (seed {SEED}): metrics/detection tiny_grounding_dino + "
                          f"noise std {NOISE}")
    rows = [parity_table.compare(
        BACKEND, "preprocess",
        [official_numbers.stats_like(x, official[(i, "pixel_values")]) for i, x in
         zip(FRAMES, pixels)],
        [np.array([v for _, _, v in official[(i, "pixel_values")]]) for i in FRAMES],
        compared="pixel_values (grounding_dino.preprocess of the RGB frame): shape, mean, "
        "RMS and 32 values per frame vs the official transform's", **common)]
    ours, theirs, kept, problems = [], [], [], []
    for i, x in zip(FRAMES, pixels):
        for c, caption in enumerate(CAPTIONS):
            text = grounding_dino.official_caption(caption)
            n = detector.tokenize(text)["input_ids"].shape[1]
            logits, boxes = detector.forward(x, text)
            for name, tensor in (("pred_logits", logits[:, :n]), ("pred_boxes", boxes)):
                wanted = official[(i, f"c{c}:{name}")]
                ours.append(official_numbers.stats_like(tensor, wanted))
                theirs.append(np.array([v for _, _, v in wanted]))
            found = detector.postprocess(logits, boxes, text, BOX_THRESHOLD, TEXT_THRESHOLD,
                                         tuple(x.shape[1:]))
            count = int(_kept(official, i, c, "kept_count")[0])
            if count != len(found.scores):
                problems.append(f"frame {i} caption {c}: kept {len(found.scores)}, "
                                f"official {count}")
                continue
            tokens = (logits.sigmoid()[:, :n][logits.sigmoid().max(1).values > BOX_THRESHOLD]
                      > TEXT_THRESHOLD).numpy()
            kept.append((np.concatenate([found.boxes_cxcywh.ravel(), found.scores,
                                         tokens.ravel()]),
                         np.concatenate([_kept(official, i, c, name) for name in
                                         ("kept_boxes", "kept_scores", "kept_tokens")])))
    if problems:
        raise AssertionError("GroundingDINO kept other queries than the official code: "
                             + "; ".join(problems))
    rows.append(parity_table.compare(
        BACKEND, "features", ours, theirs, compared="pred_logits (over the caption's tokens) "
        "and pred_boxes of GroundingDino.forward: shape, mean, RMS and 32 values per frame "
        "and caption vs the official run's", **common))
    rows.append(parity_table.compare(
        BACKEND, "score", [a for a, _ in kept], [b for _, b in kept],
        compared=f"GroundingDino.detect at box {BOX_THRESHOLD} / text {TEXT_THRESHOLD}: the "
        "same queries kept on every frame and caption, and every value of their boxes, "
        "scores and phrase tokens vs the official get_grounding_output steps", **common))
    return rows
