"""Prints ImageReward-v1.0's reward of evenly spaced frames of one clip for one prompt.

The clip (a folder of numbered PNG/JPEG frames, or a video) is shrunk to
--max_side (640, INTER_AREA, never upscaled); --num_samples frames
int(i * (N - 1) / (num_samples - 1)) (repeats kept) are scored against --prompt (see
metrics.imagereward.scoring); the rewards and their plain mean are printed (a benchmark
may squash, round or reduce them otherwise).

Weights: THUDM/ImageReward's ImageReward.pt (--checkpoint: the file or its folder)
and med_config.json (--med_config; else beside ImageReward.pt), bert-base-uncased's
vocab.txt (--tokenizer_vocab); else <--checkpoint_dir>/image_reward/ and
<--checkpoint_dir>/bert_base_uncased/, the HF cache, or a download unless --offline.

Usage:
  bazel run //metrics/imagereward:image_reward -- --frames=clip.mp4 \\
      --prompt="a person walks from left to right" --checkpoint_dir=~/ckpt --offline

Exit codes: 0 done; 2 bad input or configuration (unreadable clip, bad flag,
weights missing or unusable: the message says how to fetch them); 1 internal error.
"""

from typing import List, Optional, Sequence

import numpy as np
from absl import app
from absl import flags

from metrics import cli_support
from metrics import model_cli
from metrics.checkpoints import resolver
from metrics.imagereward import reward_model
from metrics.imagereward import scoring
from metrics.video import frames as frames_lib

_FRAMES = flags.DEFINE_string("frames", None, "The clip: a frame folder or a video file.")
_PROMPT = flags.DEFINE_string(
    "prompt", None, "The clip's text prompt (the generation prompt); not blank.")
_NUM_SAMPLES = flags.DEFINE_integer("num_samples", 5, "Frames scored, evenly spaced.",
                                    lower_bound=2)
_MAX_SIDE = flags.DEFINE_integer(
    "max_side", 640, "Frames whose longer side exceeds this are shrunk (INTER_AREA) first.",
    lower_bound=1)
_CHECKPOINT = flags.DEFINE_string(
    "checkpoint", None, "ImageReward.pt (THUDM/ImageReward), or the folder holding it.")
_MED_CONFIG = flags.DEFINE_string(
    "med_config", None, "med_config.json (THUDM/ImageReward); default: beside ImageReward.pt.")
_TOKENIZER_VOCAB = flags.DEFINE_string(
    "tokenizer_vocab", None, "bert-base-uncased's vocab.txt, or the folder holding it.")
_MODEL = model_cli.define_model_flags(
    "Folder searched for checkpoints (<dir>/image_reward/, <dir>/bert_base_uncased/).")


def _resolve_all():
    """{"weights" | "med_config" | "vocab": (ResolvedCheckpoint, record)}."""
    dir_value, offline = _MODEL.checkpoint_dir.value, _MODEL.offline.value
    weights = model_cli.resolve(reward_model.IMAGE_REWARD, _CHECKPOINT.value, dir_value, offline)
    med_explicit = _MED_CONFIG.value
    beside = weights[0].path.parent / reward_model.MED_CONFIG.filename
    if med_explicit is None and _CHECKPOINT.value and beside.is_file():  # beside --checkpoint
        med_explicit = str(beside)
    return {"weights": weights,
            "med_config": model_cli.resolve(reward_model.MED_CONFIG, med_explicit, dir_value,
                                            offline),
            "vocab": model_cli.resolve(reward_model.BERT_VOCAB, _TOKENIZER_VOCAB.value,
                                       dir_value, offline)}


def _load(found, device) -> reward_model.ImageReward:
    try:
        return reward_model.load_image_reward(found["weights"][0].path,
                                              found["med_config"][0].path,
                                              found["vocab"][0].path, device)
    except (ValueError, OSError) as e:
        hint = model_cli.fetch_hint(reward_model.IMAGE_REWARD, _MODEL.checkpoint_dir.value)
        raise resolver.CheckpointUnavailable(
            f"not a usable ImageReward checkpoint: {' '.join(str(e).split())[:400]}; fetch it "
            f"with: {hint}") from e


def _sampled_indices(num_frames: int) -> List[int]:
    count = _NUM_SAMPLES.value
    return [int(i * (num_frames - 1) / (count - 1)) for i in range(count)]


def _evaluate() -> dict:
    prompt = _PROMPT.value or ""
    if not prompt.strip():
        raise model_cli.ConfigError("--prompt is blank: ImageReward scores an image against "
                                    "a text prompt")
    clip = frames_lib.load_frames(cli_support.user_path(_FRAMES.value), max_side=_MAX_SIDE.value)
    device = model_cli.device(_MODEL.device.value)
    num_frames, height, width = clip.shape[:3]
    indices = _sampled_indices(int(num_frames))
    found = _resolve_all()
    rewards = scoring.raw_rewards(_load(found, device), prompt, [clip[i] for i in indices])
    return {"mean_reward": float(np.mean(rewards)), "rewards": rewards, "indices": indices,
            "prompt": prompt, "frames": _FRAMES.value, "num_frames": int(num_frames),
            "frame_size": [int(width), int(height)], "device": str(device),
            "backend": "image-reward-v1.0",
            "checkpoints": {name: rec for name, (_, rec) in found.items()}}


def format_text(record: dict) -> str:
    """Readable lines for a record built by _evaluate (no trailing newline)."""
    width, height = record["frame_size"]
    lines = [f"frames:               {record['frames']} ({record['num_frames']} frames, "
             f"{width}x{height})",
             f"prompt:               {record['prompt']!r}",
             f"sampled:              {record['indices']}",
             f"backend:              {record['backend']} on {record['device']}"]
    for name, checkpoint in record["checkpoints"].items():
        lines.append(f"{name + ':':<22}{model_cli.checkpoint_text(checkpoint)}")
    lines += [f"rewards:              {record['rewards']}",
              f"mean reward:          {record['mean_reward']!r}"]
    return "\n".join(lines)


def main(argv: Sequence[str]) -> Optional[int]:
    return model_cli.run_main(argv, _MODEL.json, _evaluate, format_text)


if __name__ == "__main__":
    flags.mark_flags_as_required(["frames", "prompt"])
    app.run(main, flags_parser=cli_support.parse_flags)
