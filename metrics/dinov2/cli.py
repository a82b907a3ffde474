"""Prints MemoBench's ObjIdentityConsistency (ObjIdentityMean/Min) of one clip.

The clip (a folder of numbered PNG/JPEG frames, or a video) is shrunk to
--max_side (640, INTER_AREA, never upscaled) as MemoBench's Step 1 does; then 9
frames of the R phase (r, N-1) are compared with frame 0 through DINOv2 ViT-B/14
patch tokens (see metrics.dinov2.identity). Only r_start enters the metric;
h_start is checked against it. Without --h_start/--r_start the keyframes default
to h = N//3 and r = 2N//3, which the output says: pass the clip's real keyframes
(metrics.video.sampling.map_keyframes) for the benchmark number.

The weights are the Hugging Face snapshot facebook/dinov2-base (--checkpoint, a
folder; --checkpoint_dir/dinov2_base; the hub cache; or a download unless --offline).

Usage:
  bazel run //metrics/dinov2:object_identity -- --frames=clip.mp4 --h_start=40 --r_start=90

Exit codes: 0 done; 2 bad input or configuration (unreadable clip, bad flag,
keyframes out of range, weights unavailable: the message says how to fetch
them); 1 internal error.
"""

import json
import sys
from typing import Optional, Sequence

import numpy as np
from absl import app
from absl import flags

from metrics import cli_support
from metrics import model_cli
from metrics.checkpoints import resolver
from metrics.dinov2 import backbone
from metrics.dinov2 import identity
from metrics.video import frames as frames_lib

_CLIP = model_cli.define_clip_flags()
_FRAMES, _H_START, _R_START, _MAX_SIDE = _CLIP.frames, _CLIP.h_start, _CLIP.r_start, _CLIP.max_side
_CHECKPOINT = flags.DEFINE_string(
    "checkpoint", None, "The dinov2-base snapshot folder (config.json + model.safetensors).")
_CHECKPOINT_DIR = flags.DEFINE_string(
    "checkpoint_dir", None, "Folder searched for checkpoints (<dir>/dinov2_base/).")
_OFFLINE = flags.DEFINE_boolean("offline", False, "Never download a checkpoint.")
_DEVICE = flags.DEFINE_string("device", "auto", "auto, cpu, cuda or cuda:N.")
_JSON = flags.DEFINE_boolean("json", False, "Print one JSON object instead of text.")


ConfigError = model_cli.ConfigError


def _keyframes(num_frames):
    return model_cli.keyframes(num_frames, _H_START.value, _R_START.value)


def _model():
    """(model, device, checkpoint record); raises ConfigError or CheckpointUnavailable."""
    device = model_cli.device(_DEVICE.value)
    spec = backbone.DINOV2_BASE
    found, checkpoint = model_cli.resolve(spec, _CHECKPOINT.value, _CHECKPOINT_DIR.value,
                                          _OFFLINE.value)
    try:
        model = backbone.load_dinov2(found.path, device)
    except FileNotFoundError as e:
        raise resolver.CheckpointUnavailable(
            f"{e}; fetch it with: {model_cli.fetch_hint(spec, _CHECKPOINT_DIR.value)}") from e
    return model, device, checkpoint


def _pct(value):
    """run_eval's `clip(x * 100, 0, 100).round(1)`."""
    return float(np.round(np.clip(value * 100.0, 0.0, 100.0), 1))


def _record(result, clip, h, r, defaulted, device, checkpoint):
    num_frames, height, width = clip.shape[:3]
    mean_pct, min_pct = _pct(result.mean), _pct(result.min)
    return {
        "ObjIdentityMean": result.mean,
        "ObjIdentityMin": result.min,
        "ObjIdentityConsistency": float(np.round(0.7 * mean_pct + 0.3 * min_pct, 2)),
        "backend": backbone.BACKEND_NAME,
        "frames": _FRAMES.value,
        "num_frames": int(num_frames),
        "frame_size": [int(width), int(height)],
        "h_start": h,
        "r_start": r,
        "keyframes_defaulted": defaulted,
        "device": str(device),
        "checkpoint": checkpoint,
        "anchor_index": identity.ANCHOR_INDEX,
        "indices": list(result.indices),
        "frame_means": list(result.frame_means),
        "frame_mins": list(result.frame_mins),
    }


def format_text(record):
    """Readable lines for a record built by _record (no trailing newline)."""
    width, height = record["frame_size"]
    keyframes = f"h_start={record['h_start']}, r_start={record['r_start']}"
    if record["keyframes_defaulted"]:
        keyframes += (" (DEFAULTED to N//3, 2N//3 where not given: pass --h_start/--r_start "
                      "for the clip's real keyframes)")
    ckpt = record["checkpoint"]
    return "\n".join([
        f"frames:                 {record['frames']} ({record['num_frames']} frames, "
        f"{width}x{height})",
        f"keyframes:              {keyframes}",
        f"backend:                {record['backend']} on {record['device']}",
        f"checkpoint:             {ckpt['path']} (sha256 {ckpt['sha256']}, {ckpt['source']})",
        f"sampled (vs frame 0):   {record['indices']}",
        f"ObjIdentityMean:        {record['ObjIdentityMean']!r}",
        f"ObjIdentityMin:         {record['ObjIdentityMin']!r}",
        f"ObjIdentityConsistency: {record['ObjIdentityConsistency']!r} (this clip alone)",
    ])


def main(argv: Sequence[str]) -> Optional[int]:
    if len(argv) > 1:
        raise app.UsageError(f"unexpected arguments: {' '.join(argv[1:])}",
                             exitcode=cli_support.EXIT_BAD_INPUT)
    if not _FRAMES.value:
        raise app.UsageError("--frames is required", exitcode=cli_support.EXIT_BAD_INPUT)
    try:
        clip = frames_lib.load_frames(cli_support.user_path(_FRAMES.value),
                                      max_side=_MAX_SIDE.value)
        h, r, defaulted = _keyframes(len(clip))
        model, device, checkpoint = _model()
    except (ConfigError, frames_lib.FrameInputError, resolver.CheckpointUnavailable) as e:
        print(f"error: {e}", file=sys.stderr)
        return cli_support.EXIT_BAD_INPUT
    result = identity.identity_details(clip, r, model, device)
    record = _record(result, clip, h, r, defaulted, device, checkpoint)
    print(json.dumps(record) if _JSON.value else format_text(record))
    return cli_support.EXIT_OK


if __name__ == "__main__":
    flags.mark_flags_as_required(["frames"])
    app.run(main, flags_parser=cli_support.parse_flags)
