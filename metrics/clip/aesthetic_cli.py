"""Prints the LAION aesthetic score (ViT-L/14) of every --sample_step-th frame of one clip.

The clip (a folder of numbered PNG/JPEG frames, or a video) is shrunk to
--max_side (640, INTER_AREA, never upscaled); frames 0, step, 2*step, ... are scored
(see metrics.clip.aesthetic) and their plain mean is printed too (a benchmark may round
or reduce them otherwise).

Weights: the openai/clip-vit-large-patch14 snapshot (--clip_checkpoint, a folder
with config.json and model.safetensors) and sac+logos+ava1-l14-linearMSE.pth
(--head_checkpoint), else <--checkpoint_dir>/<name>/, the local HF/torch caches,
or a download unless --offline.

--clip_activation=gelu (default) matches what the official requirements install
today (open_clip >= 2.29 runs the OpenAI weights with nn.GELU); quick_gelu is
the activation CLIP was trained with (open_clip < 2.29). See metrics.clip.vision.

Usage:
  bazel run //metrics/clip:aesthetic -- --frames=clip.mp4 --checkpoint_dir=~/ckpt --offline
  bazel run //metrics/clip:aesthetic -- --frames=frames/ --json

Exit codes: 0 done; 2 bad input or configuration (unreadable clip, bad flag,
weights missing or unusable: the message holds the command that fetches them);
1 internal error.
"""

import json
import sys
from typing import Optional, Sequence

import numpy as np
from absl import app
from absl import flags

from metrics import cli_support
from metrics.clip import aesthetic
from metrics.clip import cli_common
from metrics.clip import vision
from metrics.video import frames as frames_lib

_FRAMES = flags.DEFINE_string("frames", None, "The clip: a frame folder or a video file.")
_SAMPLE_STEP = flags.DEFINE_integer(
    "sample_step", 4, "Frame stride.", lower_bound=1)
_MAX_SIDE = flags.DEFINE_integer(
    "max_side", 640, "Frames whose longer side exceeds this are shrunk (INTER_AREA) first.",
    lower_bound=1)
_CLIP_CHECKPOINT = flags.DEFINE_string(
    "clip_checkpoint", None, "Folder of the openai/clip-vit-large-patch14 snapshot.")
_HEAD_CHECKPOINT = flags.DEFINE_string(
    "head_checkpoint", None, f"Path of {aesthetic.AESTHETIC_HEAD.filename} (or its folder).")
_CHECKPOINT_DIR = flags.DEFINE_string(
    "checkpoint_dir", None, "Folder searched for checkpoints (<dir>/<name>/...).")
_OFFLINE = flags.DEFINE_boolean("offline", False, "Never download a checkpoint.")
_DEVICE = flags.DEFINE_string("device", "auto", "auto, cpu, cuda or cuda:N.")
_CLIP_ACTIVATION = flags.DEFINE_enum(
    "clip_activation", vision.OFFICIAL_ACTIVATION, list(vision.ACTIVATIONS),
    "CLIP MLP activation: gelu (open_clip >= 2.29, the official setup today) or quick_gelu.")
_BATCH_SIZE = flags.DEFINE_integer(
    "batch_size", vision.DEFAULT_BATCH_SIZE, "Frames per CLIP call.", lower_bound=1)
_JSON = flags.DEFINE_boolean("json", False, "Print one JSON object instead of text.")


def _resolve_checkpoints():
    """(clip, head) ResolvedCheckpoints; raises cli_common.ConfigError."""
    return (cli_common.resolve_checkpoint(aesthetic.CLIP_VIT_L14, _CLIP_CHECKPOINT.value,
                                          _CHECKPOINT_DIR.value, _OFFLINE.value),
            cli_common.resolve_checkpoint(aesthetic.AESTHETIC_HEAD, _HEAD_CHECKPOINT.value,
                                          _CHECKPOINT_DIR.value, _OFFLINE.value))


def _load_model(found_clip, found_head, device) -> aesthetic.AestheticModel:
    """Loads both checkpoints; raises cli_common.ConfigError naming the one that failed."""
    try:
        clip = aesthetic.load_tower(found_clip.path, device, _CLIP_ACTIVATION.value)
    except (ValueError, OSError) as e:
        raise cli_common.unusable_checkpoint(found_clip, e, _CHECKPOINT_DIR.value) from e
    try:
        head = aesthetic.load_head(found_head.path, device)
    except (RuntimeError, ValueError, OSError) as e:
        raise cli_common.unusable_checkpoint(found_head, e, _CHECKPOINT_DIR.value) from e
    return aesthetic.AestheticModel(clip, head)


def format_text(record) -> str:
    """Readable lines for a record built by main (no trailing newline)."""
    width, height = record["frame_size"]
    lines = [
        f"frames:          {record['frames']} ({record['num_frames']} frames, {width}x{height})",
        f"sampled:         {record['indices']} (step {record['sample_step']})",
        f"backbone:        CLIP ViT-L/14 (transformers), activation "
        f"{record['clip_activation']}, on {record['device']}",
    ]
    for name, ckpt in record["checkpoints"].items():
        lines.append(f"{name + ' checkpoint:':<17}{ckpt['path']} (sha256 {ckpt['sha256']}, "
                     f"{ckpt['source']})")
    lines.append(f"frame scores:    {record['frame_scores']}")
    lines.append(f"mean score:      {record['mean_score']!r}")
    return "\n".join(lines)


def main(argv: Sequence[str]) -> Optional[int]:
    if len(argv) > 1:
        raise app.UsageError(f"unexpected arguments: {' '.join(argv[1:])}",
                             exitcode=cli_support.EXIT_BAD_INPUT)
    try:
        device = cli_common.resolve_device(_DEVICE.value)
        found_clip, found_head = _resolve_checkpoints()
        clip = frames_lib.load_frames(cli_support.user_path(_FRAMES.value),
                                      max_side=_MAX_SIDE.value)
        model = _load_model(found_clip, found_head, device)
    except (cli_common.ConfigError, frames_lib.FrameInputError) as e:
        print(f"error: {cli_common.one_line(e)}", file=sys.stderr)
        return cli_support.EXIT_BAD_INPUT
    sampled = aesthetic.strided_frame_scores(clip, _SAMPLE_STEP.value, model, device,
                                             _BATCH_SIZE.value)
    num_frames, height, width = clip.shape[:3]
    record = {
        "mean_score": float(np.mean(sampled.scores)) if sampled.scores else None,
        "frames": _FRAMES.value,
        "num_frames": int(num_frames),
        "frame_size": [int(width), int(height)],
        "sample_step": _SAMPLE_STEP.value,
        "indices": sampled.indices,
        "frame_scores": sampled.scores,
        "clip_activation": _CLIP_ACTIVATION.value,
        "device": str(device),
        "checkpoints": {"clip": cli_common.checkpoint_record(found_clip),
                        "head": cli_common.checkpoint_record(found_head)},
    }
    print(json.dumps(record) if _JSON.value else format_text(record))
    return cli_support.EXIT_OK


if __name__ == "__main__":
    flags.mark_flags_as_required(["frames"])
    app.run(main, flags_parser=cli_support.parse_flags)
