"""Prints pyiqa's CLIP-IQA+ (CLIP RN50) score of every --sample_step-th frame of one clip.

The clip (a folder of numbered PNG/JPEG frames, or a video) is shrunk to --max_side
(640, INTER_AREA, never upscaled); frames 0, step, 2*step, ... are scored at that size
(see metrics.clip.clipiqa) and their plain mean is printed too (a benchmark may clip,
round or reduce them otherwise).

Weights: OpenAI's RN50.pt (--clip_checkpoint; sha256-pinned) and pyiqa's
CLIP-IQA+_learned_prompts-603f3273.pth (--prompts_checkpoint; not pinned, its digest is
reported), else <--checkpoint_dir>/<name>/, the local HF/torch caches, or a download
unless --offline. --allow_unverified_checkpoints runs an RN50.pt whose digest does not
match the pin (e.g. a re-saved copy), marks it "unverified" and warns on stderr.

Usage:
  bazel run //metrics/clip:image_quality -- --frames=clip.mp4 --checkpoint_dir=~/ckpt --offline
  bazel run //metrics/clip:image_quality -- --frames=frames/ --json

Exit codes: 0 done; 2 bad input or configuration (unreadable clip, bad flag, weights
missing or unusable: the message holds the command that fetches them); 1 internal error.
"""

import dataclasses
import sys
from typing import Optional, Sequence

import numpy as np
from absl import app
from absl import flags

from metrics import cli_support
from metrics import model_cli
from metrics.checkpoints import resolver
from metrics.clip import clipiqa
from metrics.clip import openai_clip
from metrics.video import frames as frames_lib

BACKEND = ("clipiqa+ (pyiqa): OpenAI CLIP RN50 on open_clip (ModifiedResNet + text "
           "Transformer), learned prompts, no positional embedding")

_FRAMES = flags.DEFINE_string("frames", None, "The clip: a frame folder or a video file.")
_SAMPLE_STEP = flags.DEFINE_integer(
    "sample_step", 4, "Frame stride.", lower_bound=1)
_MAX_SIDE = flags.DEFINE_integer(
    "max_side", 640, "Frames whose longer side exceeds this are shrunk (INTER_AREA) first.",
    lower_bound=1)
_CLIP_CHECKPOINT = flags.DEFINE_string(
    "clip_checkpoint", None, f"Path of OpenAI's {clipiqa.CLIP_RN50.filename} (or its folder).")
_PROMPTS_CHECKPOINT = flags.DEFINE_string(
    "prompts_checkpoint", None,
    f"Path of {clipiqa.CLIPIQA_PLUS_PROMPTS.filename} (or its folder).")
_BATCH_SIZE = flags.DEFINE_integer(
    "batch_size", clipiqa.DEFAULT_BATCH_SIZE, "Frames per model call.", lower_bound=1)
_ALLOW_UNVERIFIED = flags.DEFINE_boolean(
    "allow_unverified_checkpoints", False, "Use weight files whose sha256 does not match the "
    "pinned digest, and report them as 'unverified'.")
_MODEL = model_cli.define_model_flags(
    "Folder searched for checkpoints (<dir>/openai_clip_rn50/RN50.pt, "
    "<dir>/clipiqa_plus_prompts/...).")


def _unusable(spec, found, error: Exception) -> resolver.CheckpointUnavailable:
    hint = model_cli.fetch_hint(spec, _MODEL.checkpoint_dir.value)
    return resolver.CheckpointUnavailable(
        f"{found.path}: not a usable {spec.name} checkpoint ({type(error).__name__}: "
        f"{str(error)[:300]}); fetch it with: {hint}")


def _resolve(spec, explicit):
    """(ResolvedCheckpoint, record with its verification) for one weight file."""
    pinned = spec.sha256
    if _ALLOW_UNVERIFIED.value:
        spec = dataclasses.replace(spec, sha256="")
    found, record = model_cli.resolve(spec, explicit, _MODEL.checkpoint_dir.value,
                                      _MODEL.offline.value)
    record["verification"] = ("not_pinned" if not pinned else
                              "verified" if found.sha256.startswith(pinned) else "unverified")
    if record["verification"] == "unverified":
        print(f"warning: {found.path} does not match the pinned sha256 of {spec.name}; used "
              "because of --allow_unverified_checkpoints", file=sys.stderr)
    return found, record


def _load():
    """(model, device, checkpoint records); unusable files raise CheckpointUnavailable."""
    device = model_cli.device(_MODEL.device.value)
    found_clip, clip_record = _resolve(clipiqa.CLIP_RN50, _CLIP_CHECKPOINT.value)
    found_prompts, prompts_record = _resolve(clipiqa.CLIPIQA_PLUS_PROMPTS,
                                             _PROMPTS_CHECKPOINT.value)
    try:
        clip = openai_clip.load_openai_clip(found_clip.path, device)
    except (ValueError, OSError) as e:
        raise _unusable(clipiqa.CLIP_RN50, found_clip, e) from e
    try:
        model = clipiqa.build_clipiqa(clip, clipiqa.load_learned_context(found_prompts.path))
    except (ValueError, OSError) as e:
        raise _unusable(clipiqa.CLIPIQA_PLUS_PROMPTS, found_prompts, e) from e
    return model, device, {"clip": clip_record, "prompts": prompts_record}


def _evaluate() -> dict:
    clip = frames_lib.load_frames(cli_support.user_path(_FRAMES.value), max_side=_MAX_SIDE.value)
    model, device, checkpoints = _load()
    sampled = clipiqa.strided_frame_scores(clip, _SAMPLE_STEP.value, model, _BATCH_SIZE.value)
    num_frames, height, width = clip.shape[:3]
    return {
        "mean_score": float(np.mean(sampled.scores)) if sampled.scores else None,
        "frames": _FRAMES.value,
        "num_frames": int(num_frames),
        "frame_size": [int(width), int(height)],
        "sample_step": _SAMPLE_STEP.value,
        "indices": sampled.indices,
        "frame_scores": sampled.scores,
        "backend": BACKEND,
        "device": str(device),
        "checkpoints": checkpoints,
    }


def format_text(record: dict) -> str:
    """Readable lines for a record built by _evaluate (no trailing newline)."""
    width, height = record["frame_size"]
    lines = [
        f"frames:            {record['frames']} ({record['num_frames']} frames, {width}x{height})",
        f"sampled:           {record['indices']} (step {record['sample_step']})",
        f"backend:           {record['backend']}, on {record['device']}",
    ]
    for name, checkpoint in record["checkpoints"].items():
        lines.append(f"{name + ' checkpoint:':<19}{model_cli.checkpoint_text(checkpoint)} "
                     f"{checkpoint['verification']}")
    lines += [f"frame scores:      {record['frame_scores']}",
              f"mean score:        {record['mean_score']!r}"]
    return "\n".join(lines)


def main(argv: Sequence[str]) -> Optional[int]:
    return model_cli.run_main(argv, _MODEL.json, _evaluate, format_text)


if __name__ == "__main__":
    flags.mark_flags_as_required(["frames"])
    app.run(main, flags_parser=cli_support.parse_flags)
