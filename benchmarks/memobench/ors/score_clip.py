"""Prints the SAM 3 object revisit score (ORS) of one clip.

The clip (a folder of numbered PNG/JPEG frames, or a video) is read at its native
resolution, as compute_ors.py reads it (benchmarks.memobench.ors.object_revisit); every
frame from --r_start to the last is given to SAM-3 with the text --prompt at
confidence threshold 0.0, and ORS = detection rate x mean confidence
(benchmarks.memobench.ors.revisit). Without --r_start the R phase starts at 2N//3, which
the output says: pass the clip's real keyframe (the official code maps the phase sheet's
re-enter frame with map_keyframes) for the benchmark number. The official prompt is the
`sees ...(subject)...` phrase of a synthetic clip's prompt, or a real clip's subject.

The weights are the Hugging Face snapshot facebook/sam3 (--checkpoint, a folder;
--checkpoint_dir/sam3; the hub cache; or a download unless --offline).

Usage:
  bazel run //benchmarks/memobench/ors:score_clip -- --frames=clip.mp4 \\
      --prompt="a red ball(subject) resting on the straw" --r_start=25

Exit codes: 0 done; 2 bad input or configuration (unreadable clip, bad flag, weights
unavailable: the message says how to fetch them); 1 internal error.
"""

import json
import sys
from typing import Optional, Sequence

from absl import app
from absl import flags

from benchmarks.memobench.ors import object_revisit
from metrics import cli_support
from metrics import model_cli
from metrics.checkpoints import resolver
from metrics.segmentation import sam3
from metrics.video import frames as frames_lib

_FRAMES = flags.DEFINE_string("frames", None, "The clip: a frame folder or a video file.")
_PROMPT = flags.DEFINE_string("prompt", None, "What SAM-3 looks for, e.g. "
                              "'another person(subject) crossing from the left to right'.")
_R_START = flags.DEFINE_integer("r_start", None, "First frame of the R (revisit) phase. "
                                "Default: 2N//3.", lower_bound=0)
_CHECKPOINT = flags.DEFINE_string(
    "checkpoint", None, "The facebook/sam3 snapshot folder (config.json, tokenizer files, "
    "model.safetensors).")
_MODEL = model_cli.define_model_flags("Folder searched for checkpoints (<dir>/sam3/).")


def _detector():
    """(Sam3Detector, checkpoint record); ConfigError or CheckpointUnavailable."""
    detector, _, checkpoint = model_cli.load_model(sam3.SAM3, _CHECKPOINT.value, _MODEL,
                                                   sam3.load_sam3)
    return detector, checkpoint


def _record(result, clip, r_start, defaulted, detector, checkpoint):
    return {
        "ors": result.ors, "detection_rate": result.detection_rate,
        "mean_confidence": result.mean_confidence, "n_r_frames": result.n_r_frames,
        "n_detected": result.n_detected, "r_start": r_start, "r_start_defaulted": defaulted,
        "num_frames": clip.num_frames, "frames": _FRAMES.value, "prompt": _PROMPT.value,
        "per_frame": [None if v is None else {"detected": v.detected,
                                              "confidence": v.confidence}
                      for v in result.frames],
        "backend": sam3.BACKEND_NAME, "device": str(detector.device), "checkpoint": checkpoint,
    }


def format_text(record) -> str:
    """Readable lines for a record built by _record (no trailing newline)."""
    r_phase = f"frames {record['r_start']}..{record['num_frames'] - 1}"
    if record["r_start_defaulted"]:
        r_phase += " (r_start DEFAULTED to 2N//3: pass --r_start for the clip's keyframe)"
    ckpt = record["checkpoint"]
    unreadable = sum(v is None for v in record["per_frame"])
    return "\n".join([
        f"frames:          {record['frames']} ({record['num_frames']} frames)",
        f"prompt:          {record['prompt']!r}",
        f"R phase:         {r_phase}, {unreadable} unreadable",
        f"backend:         {record['backend']} on {record['device']}",
        f"checkpoint:      {ckpt['path']} (sha256 {ckpt['sha256']}, {ckpt['source']})",
        f"detected:        {record['n_detected']} of {record['n_r_frames']} frames",
        f"detection_rate:  {record['detection_rate']!r}",
        f"mean_confidence: {record['mean_confidence']!r}",
        f"ORS:             {record['ors']!r} (0-1; this clip alone)",
    ])


def main(argv: Sequence[str]) -> Optional[int]:
    if len(argv) > 1:
        raise app.UsageError(f"unexpected arguments: {' '.join(argv[1:])}",
                             exitcode=cli_support.EXIT_BAD_INPUT)
    if not _FRAMES.value or not _PROMPT.value:
        raise app.UsageError("--frames and --prompt are required",
                             exitcode=cli_support.EXIT_BAD_INPUT)
    try:
        clip = object_revisit.open_clip(cli_support.user_path(_FRAMES.value))
        if clip.num_frames == 0:
            raise frames_lib.FrameInputError(_FRAMES.value, "a clip with frames", clip.note)
        defaulted = _R_START.value is None
        r_start = 2 * clip.num_frames // 3 if defaulted else _R_START.value
        detector, checkpoint = _detector()
    except (model_cli.ConfigError, frames_lib.FrameInputError,
            resolver.CheckpointUnavailable) as e:
        print(f"error: {e}", file=sys.stderr)
        return cli_support.EXIT_BAD_INPUT
    try:
        result = object_revisit.object_revisit_score(clip, r_start, detector, _PROMPT.value)
    except frames_lib.FrameInputError as e:  # a frame OpenCV refuses (named)
        print(f"error: {e}", file=sys.stderr)
        return cli_support.EXIT_BAD_INPUT
    record = _record(result, clip, r_start, defaulted, detector, checkpoint)
    print(json.dumps(record) if _MODEL.json.value else format_text(record))
    return cli_support.EXIT_OK


if __name__ == "__main__":
    flags.mark_flags_as_required(["frames", "prompt"])
    app.run(main, flags_parser=cli_support.parse_flags)
