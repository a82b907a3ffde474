"""Test helper: every Step 1 checkpoint as a tiny random model of the official
architecture, saved under the official file names in a --checkpoint_dir layout, and the
pins that random weights cannot match cleared for the duration of a run."""

import contextlib
import dataclasses
import pathlib

import numpy as np
import pytest
import torch

from metrics.clip import aesthetic
from metrics.clip import clipiqa
from metrics.clip import frame_similarity
from metrics.clip import tiny_clip as clip_models
from metrics.clip import tiny_clipiqa
from metrics.depth import depth_anything
from metrics.depth import tiny_checkpoint as depth_tiny
from metrics.dinov2 import backbone as dinov2_backbone
from metrics.dinov2 import tiny_checkpoint as dinov2_tiny
from metrics.flow import raft
from metrics.imagereward import reward_model
from metrics.imagereward import scoring
from metrics.imagereward import tiny_checkpoint as image_reward_tiny
from metrics.lpips import lpips
from metrics.lpips import tiny_lpips


def write_all(ckpt: pathlib.Path) -> pathlib.Path:
    """Writes RAFT, LPIPS, DINOv2, both CLIP towers, the LAION head, CLIP-IQA+, Depth
    Anything and ImageReward under `ckpt`; returns it."""
    torch.manual_seed(0)
    raft_path = ckpt / raft.RAFT_LARGE.name / raft.RAFT_LARGE.filename
    raft_path.parent.mkdir(parents=True)
    torch.save(raft.build_raft_large().state_dict(), raft_path)
    tiny_lpips.write_random_checkpoints(ckpt)
    dinov2_tiny.save_tiny_dinov2(ckpt)
    clip_models.write_clip_snapshot(ckpt / aesthetic.CLIP_VIT_L14.name, projection_dim=768)
    clip_models.write_head(ckpt / aesthetic.AESTHETIC_HEAD.name / aesthetic.AESTHETIC_HEAD.filename)
    tiny_clipiqa.write_rn50(ckpt / clipiqa.CLIP_RN50.name / clipiqa.CLIP_RN50.filename, seed=4)
    tiny_clipiqa.write_prompts(ckpt / clipiqa.CLIPIQA_PLUS_PROMPTS.name
                               / clipiqa.CLIPIQA_PLUS_PROMPTS.filename, seed=5)
    clip_models.write_clip_snapshot(ckpt / frame_similarity.CLIP_VIT_B32.name,
                                    projection_dim=512, seed=1)
    depth_tiny.save_tiny_depth_anything(ckpt)
    image_reward_tiny.save_tiny_image_reward(ckpt)
    return ckpt


def load_image_reward(ckpt: pathlib.Path):
    """The tiny ImageReward written by write_all, loaded on the CPU."""
    folder = ckpt / reward_model.IMAGE_REWARD.name
    return reward_model.load_image_reward(folder / "ImageReward.pt", folder / "med_config.json",
                                          ckpt / "bert_base_uncased" / "vocab.txt", "cpu")


def image_reward_score(frames, prompt: str, model) -> float:
    """visual_quality.py's image_reward_score written out on the per-frame rewards
    (n_sample=5: frames int(i * (N-1) / 4), sigmoid, mean, 4 dp)."""
    n = len(frames)
    raw = scoring.raw_rewards(model, prompt, [frames[int(i * (n - 1) / 4)] for i in range(5)])
    return round(float(np.mean([1.0 / (1.0 + np.exp(-value)) for value in raw])), 4)


@contextlib.contextmanager
def pins_cleared():
    """RAFT, AlexNet, LPIPS's lin layers, RN50, DINOv2, Depth Anything and ImageReward's
    three files are sha256-pinned; random weights need the pins off."""
    mp = pytest.MonkeyPatch()
    for module, name in ((raft, "RAFT_LARGE"), (lpips, "ALEXNET_SPEC"),
                         (lpips, "LPIPS_ALEX_SPEC"), (clipiqa, "CLIP_RN50"),
                         (dinov2_backbone, "DINOV2_BASE"),
                         (depth_anything, "DEPTH_ANYTHING_V2_SMALL"),
                         (reward_model, "IMAGE_REWARD"), (reward_model, "MED_CONFIG"),
                         (reward_model, "BERT_VOCAB")):
        mp.setattr(module, name, dataclasses.replace(getattr(module, name), sha256=""))
    try:
        yield
    finally:
        mp.undo()
