"""ImageReward parity: worldeval's metrics/imagereward (BLIP on transformers' modules)
against the official image-reward 1.5 package, via stored numbers.

image-reward cannot be locked (fairscale==0.4.13 has no wheel; it pins timm==0.6.13), so
`ImageReward(med_config)` + `load_state_dict(ImageReward.pt, strict=False)` ran outside
the repository (official_runs/imagereward.py: a scratch virtualenv with the locked torch
2.14.1, timm 0.6.13, transformers 4.44.2, a fairscale shim for an import only training
uses) at the tiny checkpoint's sizes, on the files `//tools/calibration:
official_run_inputs` writes: metrics/imagereward/tiny_checkpoint's ImageReward.pt,
med_config.json and vocab.txt, the frames and PROMPTS. Only its numbers are committed
(imagereward_official.csv): per frame the 224 px tensor of `model.preprocess` (bicubic
resize, centre crop, normalise), per frame and prompt the MLP input (the text encoder's
first token after cross-attending to the image) and `model.score(prompt, pil)`, and
`inference_rank`'s rewards over all frames.
"""

import json
import pathlib
import tempfile
from typing import List

import numpy as np

from metrics.clip import image_transform
from metrics.imagereward import reward_model
from metrics.imagereward import scoring
from metrics.imagereward import tiny_checkpoint
from tools.calibration import frames as frames_lib
from tools.calibration import official_numbers
from tools.calibration import parity_table

BACKEND = "image-reward-v1.0"  # benchmarks/memobench/step1/image_reward.BACKEND_NAME
TEST = "//tools/calibration:imagereward_parity_test"
OFFICIAL = "tools/calibration/imagereward_official.csv"
FOLDER = "imagereward"
PROMPTS_FILE = "imagereward_prompts.json"
SEED = 0
# In the tiny vocabulary; with unknown words ([UNK]); longer than the 35-token cut.
PROMPTS = ("a fox walks from left to right", "the person sees another bird crossing",
           "A glass of WATER, subject (camera) and zebras",
           " ".join(["the bird walks to the left"] * 7))
REFERENCE = ("image-reward 1.5 ImageReward(med_config) + load_state_dict(strict=False) "
             "(timm 0.6.13, transformers 4.44.2, torch 2.14.1), run outside the "
             "repository; numbers in " + OFFICIAL)


def write_inputs(folder) -> pathlib.Path:
    """<folder>/imagereward/ (the tiny checkpoint files) and the prompts; returns the first."""
    root = tiny_checkpoint.save_tiny_image_reward(pathlib.Path(folder) / FOLDER, seed=SEED)
    (pathlib.Path(folder) / PROMPTS_FILE).write_text(json.dumps(PROMPTS))
    return root


def _load(root: pathlib.Path) -> reward_model.ImageReward:
    return reward_model.load_image_reward(
        root / reward_model.IMAGE_REWARD.name / reward_model.IMAGE_REWARD.filename,
        root / reward_model.MED_CONFIG.name / reward_model.MED_CONFIG.filename,
        root / reward_model.BERT_VOCAB.name / reward_model.BERT_VOCAB.filename, "cpu")


def run() -> List[parity_table.Row]:
    frames = frames_lib.all_frames()
    official = official_numbers.read(OFFICIAL)
    with tempfile.TemporaryDirectory() as tmp:
        reward = _load(write_inputs(tmp))
    pixels = [image_transform.open_clip_transform(image_transform.bgr_to_pil(f),
                                                  reward.image_size) for f in frames]
    captured = []
    hook = reward.model.mlp.register_forward_pre_hook(
        lambda module, args: captured.append(args[0].detach().clone()))
    features, scores, theirs_score, theirs_rank = [], [], [], []
    try:
        for j, prompt in enumerate(PROMPTS):
            captured.clear()
            scores += scoring.raw_rewards(reward, prompt, frames)
            features += list(captured[0])
            theirs_score += [official[(i, f"score_p{j}")][0][2] for i in range(len(frames))]
            theirs_rank += [official[(i, f"rank_reward_p{j}")][0][2]
                            for i in range(len(frames))]
    finally:
        hook.remove()
    names = [(i, j) for j in range(len(PROMPTS)) for i in range(len(frames))]
    feature_stats = [official_numbers.stats_like(t, official[(i, f"mlp_input_p{j}")])
                     for t, (i, j) in zip(features, names)]
    common = dict(reference=REFERENCE, test=TEST,
                  inputs=f"{frames_lib.describe()}; {len(PROMPTS)} prompts",
                  weights=f"random (seed {SEED}): metrics/imagereward tiny_checkpoint")
    rows = [official_numbers.compare_tensors(
        BACKEND, "preprocess", "pixel_values", pixels, official,
        "image_transform.open_clip_transform (Resize 224 bicubic, CenterCrop, Normalize)",
        **common)]
    rows.append(parity_table.compare(
        BACKEND, "features", feature_stats,
        [np.array([v for _, _, v in official[(i, f"mlp_input_p{j}")]]) for i, j in names],
        compared="the MLP input (text encoder's first token, cross-attending to the image) "
        "in scoring.raw_rewards' batched call vs ImageReward.score's per frame and prompt: "
        "shape, mean, RMS and 32 values", **common))
    rows.append(parity_table.compare(
        BACKEND, "score", np.array(scores + scores), np.array(theirs_score + theirs_rank),
        compared="scoring.raw_rewards (all frames in one call) vs ImageReward.score per "
        "frame and inference_rank's rewards, per prompt", **common))
    return rows

