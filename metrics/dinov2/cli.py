"""Prints the DINOv2 patch similarity (mean and min) of a clip's last span to frame 0.

The clip (a folder of numbered PNG/JPEG frames, or a video) is shrunk to
--max_side (640, INTER_AREA, never upscaled); then 9 frames evenly spaced in
(r, N-1) are compared with frame 0 through DINOv2 ViT-B/14 patch tokens (see
metrics.dinov2.identity). Only r_start enters the metric; h_start is checked
against it. Without --h_start/--r_start the keyframes default to h = N//3 and
r = 2N//3, which the output says: pass the clip's real keyframes (the benchmark
maps them) for a benchmark's number.

The weights are the Hugging Face snapshot facebook/dinov2-base (--checkpoint, a
folder; --checkpoint_dir/dinov2_base; the hub cache; or a download unless --offline).

Usage:
  bazel run //metrics/dinov2:patch_similarity -- --frames=clip.mp4 --h_start=40 --r_start=90

Exit codes: 0 done; 2 bad input or configuration (unreadable clip, bad flag,
keyframes out of range, weights unavailable: the message says how to fetch
them); 1 internal error.
"""

from typing import Optional, Sequence

from absl import app
from absl import flags

from metrics import cli_support
from metrics import model_cli
from metrics.dinov2 import backbone
from metrics.dinov2 import identity
from metrics.video import frames as frames_lib

_CLIP = model_cli.define_clip_flags()
_FRAMES, _H_START, _R_START, _MAX_SIDE = _CLIP.frames, _CLIP.h_start, _CLIP.r_start, _CLIP.max_side
_CHECKPOINT = flags.DEFINE_string(
    "checkpoint", None, "The dinov2-base snapshot folder (config.json + model.safetensors).")
_MODEL = model_cli.define_model_flags(
    "Folder searched for checkpoints (<dir>/dinov2_base/).")


ConfigError = model_cli.ConfigError


def _keyframes(num_frames):
    return model_cli.keyframes(num_frames, _H_START.value, _R_START.value)


def _record(result, clip, h, r, defaulted, device, checkpoint):
    return {
        "PatchSimilarityMean": result.mean,
        "PatchSimilarityMin": result.min,
        "backend": backbone.BACKEND_NAME,
        **model_cli.clip_record(_FRAMES.value, clip, h, r, defaulted, device, checkpoint),
        "anchor_index": identity.ANCHOR_INDEX,
        "indices": list(result.indices),
        "frame_means": list(result.frame_means),
        "frame_mins": list(result.frame_mins),
    }


def format_text(record):
    """Readable lines for a record built by _record (no trailing newline)."""
    width, height = record["frame_size"]
    return "\n".join([
        f"frames:                 {record['frames']} ({record['num_frames']} frames, "
        f"{width}x{height})",
        f"keyframes:              {model_cli.keyframes_text(record)}",
        f"backend:                {record['backend']} on {record['device']}",
        f"checkpoint:             {model_cli.checkpoint_text(record['checkpoint'])}",
        f"sampled (vs frame 0):   {record['indices']}",
        f"PatchSimilarityMean:    {record['PatchSimilarityMean']!r}",
        f"PatchSimilarityMin:     {record['PatchSimilarityMin']!r}",
    ])


def _evaluate():
    clip = frames_lib.load_frames(cli_support.user_path(_FRAMES.value), max_side=_MAX_SIDE.value)
    h, r, defaulted = _keyframes(len(clip))
    model, device, checkpoint = model_cli.load_model(backbone.DINOV2_BASE, _CHECKPOINT.value,
                                                     _MODEL, backbone.load_dinov2)
    result = identity.identity_details(clip, r, len(clip) - 1, model, device)
    return _record(result, clip, h, r, defaulted, device, checkpoint)


def main(argv: Sequence[str]) -> Optional[int]:
    return model_cli.run_main(argv, _MODEL.json, _evaluate, format_text)


if __name__ == "__main__":
    flags.mark_flags_as_required(["frames"])
    app.run(main, flags_parser=cli_support.parse_flags)
