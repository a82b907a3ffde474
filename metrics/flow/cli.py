"""Prints the flow warp-error smoothness (WarpSmoothness) of one clip's two keyframe spans.

The clip (a folder of numbered PNG/JPEG frames, or a video) is shrunk to
--max_side (640, INTER_AREA, never upscaled); then the spans V = (0, h) and
R = (r, N-1), each only when it is at least 2 frames long, are scored with the
warp error (see metrics.flow.warp_error), and WarpSmoothness is their mean. Without
--h_start/--r_start the keyframes default to h = N//3 and r = 2N//3, which the output
says: pass the clip's real keyframes (the benchmark maps them) for a benchmark's number.

--flow_backend=raft (default) is the official backend and needs the RAFT-large
weights (--raft_checkpoint, --checkpoint_dir, the torch cache, or a download
unless --offline). --flow_backend=dis uses OpenCV DIS flow: no weights, NOT
the official number.

Usage:
  bazel run //metrics/flow:warp_smoothness -- --frames=clip.mp4 --h_start=40 --r_start=90
  bazel run //metrics/flow:warp_smoothness -- --frames=frames/ --flow_backend=dis --json

Exit codes: 0 done; 2 bad input or configuration (unreadable clip, bad flag,
keyframes out of range, RAFT weights unavailable: the message says how to
fetch them); 1 internal error.
"""

from typing import Optional, Sequence

from absl import app
from absl import flags

from metrics import cli_support
from metrics import model_cli
from metrics.flow import opencv_dis
from metrics.flow import raft
from metrics.flow import warp_error
from metrics.video import frames as frames_lib

_CLIP = model_cli.define_clip_flags()
_FRAMES, _H_START, _R_START, _MAX_SIDE = _CLIP.frames, _CLIP.h_start, _CLIP.r_start, _CLIP.max_side
_SAMPLE_STEP = flags.DEFINE_integer(
    "sample_step", 4, "Frame stride within a span (the official runner passes 4).", lower_bound=1)
_FLOW_BACKEND = flags.DEFINE_enum(
    "flow_backend", "raft", ["raft", "dis"],
    "raft: RAFT-large, the official backend. dis: OpenCV DIS, weight-free, NOT official.")
_RAFT_CHECKPOINT = flags.DEFINE_string(
    "raft_checkpoint", None, f"Path of {raft.RAFT_LARGE.filename} (or a folder holding it).")
_MODEL = model_cli.define_model_flags(
    "Folder searched for checkpoints (<dir>/raft_large/<file> or <dir>/<file>); downloads "
    "go there too.")
_BATCH_SIZE = flags.DEFINE_integer(
    "batch_size", raft.DEFAULT_BATCH_SIZE, "Frame pairs per RAFT call.", lower_bound=1)


ConfigError = model_cli.ConfigError

# A span is scored only when end - start >= 2 (shorter ones are skipped, not scored 0.0).
_MIN_SPAN = 2


def _keyframes(num_frames):
    return model_cli.keyframes(num_frames, _H_START.value, _R_START.value)


def _flow_backend():
    """(flow_fn, device name, checkpoint record or None) for --flow_backend.

    Raises:
        ConfigError: A bad --device.
        resolver.CheckpointUnavailable: The RAFT weights cannot be found.
    """
    if _FLOW_BACKEND.value == "dis":
        return opencv_dis.DisFlow(), "cpu", None
    model, device, checkpoint = model_cli.load_model(raft.RAFT_LARGE, _RAFT_CHECKPOINT.value,
                                                     _MODEL, raft.load_raft)
    return raft.RaftFlow(model, device, _BATCH_SIZE.value), str(device), checkpoint


def _record(result, clip, h, r, defaulted, flow_fn, device, checkpoint):
    return {
        "WarpSmoothness": result.mean,
        "backend": flow_fn.name,
        "official": flow_fn.official,
        **model_cli.clip_record(_FRAMES.value, clip, h, r, defaulted, device, checkpoint),
        "sample_step": _SAMPLE_STEP.value,
        "phases": [{"name": p.name, "start": p.start, "end": p.end, "indices": list(p.indices),
                    "pair_errors": list(p.pair_errors), "score": p.score}
                   for p in result.spans],
    }


def format_text(record):
    """Readable lines for a record built by _record (no trailing newline)."""
    width, height = record["frame_size"]
    official = ("official" if record["official"]
                else f"NOT the official backend; the official one is {raft.BACKEND_NAME}")
    lines = [
        f"frames:        {record['frames']} ({record['num_frames']} frames, {width}x{height})",
        f"keyframes:     {model_cli.keyframes_text(record)}",
        f"backend:       {record['backend']} ({official}) on {record['device']}",
    ]
    if record["checkpoint"]:
        lines.append(f"checkpoint:    {model_cli.checkpoint_text(record['checkpoint'])}")
    for phase in record["phases"]:
        note = "" if phase["pair_errors"] else " (< 3 sampled frames: 0.0, still averaged in)"
        lines.append(f"phase {phase['name']}:       ({phase['start']}, {phase['end']}) "
                     f"sampled {phase['indices']} -> score {phase['score']!r}{note}")
    if not record["phases"]:
        lines.append("phases:        none ran (needs h >= 2 or N-1-r >= 2)")
    lines.append(f"WarpSmoothness: {record['WarpSmoothness']!r}")
    return "\n".join(lines)


def _evaluate():
    flow_fn, device, checkpoint = _flow_backend()
    clip = frames_lib.load_frames(cli_support.user_path(_FRAMES.value), max_side=_MAX_SIDE.value)
    h, r, defaulted = _keyframes(len(clip))
    spans = [span for span in (("V", 0, h), ("R", r, len(clip) - 1))
             if span[2] - span[1] >= _MIN_SPAN]
    result = warp_error.flow_warp_smoothness(clip, spans, _SAMPLE_STEP.value, flow_fn)
    return _record(result, clip, h, r, defaulted, flow_fn, device, checkpoint)


def main(argv: Sequence[str]) -> Optional[int]:
    return model_cli.run_main(argv, _MODEL.json, _evaluate, format_text)


if __name__ == "__main__":
    flags.mark_flags_as_required(["frames"])
    app.run(main, flags_parser=cli_support.parse_flags)
