"""Prints the depth consistency (mean and min) of a clip's two keyframe spans.

The clip (a folder of numbered PNG/JPEG frames, or a video) is shrunk to
--max_side (640, INTER_AREA, never upscaled); then 3 frames of the span V = (0, h)
and 3 of R = (r, N-1) go through Depth Anything V2 Small and consecutive depth maps
are compared (see metrics.depth.depth_consistency): the mean over the two spans of
each span's mean pair cosine, and the minimum pair cosine (unrounded; a span of one
frame has no pair and is left out). Without --h_start/--r_start
the keyframes default to h = N//3 and r = 2N//3, which the output says: pass the
clip's real keyframes (the benchmark maps them) for a benchmark's number.

The weights are the Hugging Face snapshot depth-anything/Depth-Anything-V2-Small-hf
(--checkpoint, a folder; --checkpoint_dir/depth_anything_v2_small; the hub cache;
or a download unless --offline).

Usage:
  bazel run //metrics/depth:depth_consistency -- --frames=clip.mp4 --h_start=40 --r_start=90

Exit codes: 0 done; 2 bad input or configuration (unreadable clip, bad flag,
keyframes out of range, weights unavailable: the message says how to fetch
them); 1 internal error.
"""

from typing import Optional, Sequence

from absl import app
from absl import flags

from metrics import cli_support
from metrics import model_cli
from metrics.depth import depth_anything
from metrics.depth import depth_consistency
from metrics.video import frames as frames_lib

_CLIP = model_cli.define_clip_flags()
_FRAMES, _H_START, _R_START, _MAX_SIDE = _CLIP.frames, _CLIP.h_start, _CLIP.r_start, _CLIP.max_side
_CHECKPOINT = flags.DEFINE_string(
    "checkpoint", None, "The Depth-Anything-V2-Small-hf snapshot folder (config.json, "
    "preprocessor_config.json, model.safetensors).")
_MODEL = model_cli.define_model_flags(
    "Folder searched for checkpoints (<dir>/depth_anything_v2_small/).")


ConfigError = model_cli.ConfigError


def _keyframes(num_frames):
    return model_cli.keyframes(num_frames, _H_START.value, _R_START.value)


def _record(result, clip, h, r, defaulted, device, checkpoint):
    return {
        "DepthConsistencyMean": result.mean,
        "DepthConsistencyMin": result.min,
        "backend": depth_anything.BACKEND_NAME,
        **model_cli.clip_record(_FRAMES.value, clip, h, r, defaulted, device, checkpoint),
        "phases": [{"name": p.name, "start": p.start, "end": p.end, "indices": list(p.indices),
                    "pair_similarities": list(p.pair_similarities), "mean": p.mean,
                    "min": p.min} for p in result.spans],
    }


def format_text(record):
    """Readable lines for a record built by _record (no trailing newline)."""
    width, height = record["frame_size"]
    lines = [
        f"frames:             {record['frames']} ({record['num_frames']} frames, "
        f"{width}x{height})",
        f"keyframes:          {model_cli.keyframes_text(record)}",
        f"backend:            {record['backend']} on {record['device']}",
        f"checkpoint:         {model_cli.checkpoint_text(record['checkpoint'])}",
    ]
    for phase in record["phases"]:
        note = "" if phase["indices"] else " (a single frame: no pair, not combined)"
        lines.append(f"phase {phase['name']}:            ({phase['start']}, {phase['end']}) "
                     f"sampled {phase['indices']} -> mean {phase['mean']!r}, "
                     f"min {phase['min']!r}{note}")
    lines += [
        f"DepthConsistencyMean: {record['DepthConsistencyMean']!r}",
        f"DepthConsistencyMin:  {record['DepthConsistencyMin']!r}",
    ]
    return "\n".join(lines)


def _evaluate():
    clip = frames_lib.load_frames(cli_support.user_path(_FRAMES.value), max_side=_MAX_SIDE.value)
    h, r, defaulted = _keyframes(len(clip))
    (model, processor), device, checkpoint = model_cli.load_model(
        depth_anything.DEPTH_ANYTHING_V2_SMALL, _CHECKPOINT.value, _MODEL,
        depth_anything.load_depth_anything)
    spans = [("V", 0, h), ("R", r, len(clip) - 1)]
    result = depth_consistency.depth_consistency_details(clip, spans, model, processor, device)
    return _record(result, clip, h, r, defaulted, device, checkpoint)


def main(argv: Sequence[str]) -> Optional[int]:
    return model_cli.run_main(argv, _MODEL.json, _evaluate, format_text)


if __name__ == "__main__":
    flags.mark_flags_as_required(["frames"])
    app.run(main, flags_parser=cli_support.parse_flags)
