"""Prints SAM 3's detections for a text prompt on each frame of one clip.

The clip (a folder of numbered PNG/JPEG frames, or a video) is read at its native
resolution; each frame from --start to --end (inclusive; default: all) goes through
SAM-3's image and text-prompt pass (metrics.segmentation.sam3) and the queries scoring
above --threshold are kept. Per frame: each kept mask's score and its coverage (mask
pixels / W*H). How a benchmark turns detections into a score is the benchmark's.

The weights are the Hugging Face snapshot facebook/sam3 (--checkpoint, a folder;
--checkpoint_dir/sam3; the hub cache; or a download unless --offline).

Usage:
  bazel run //metrics/segmentation:text_prompt_detections -- --frames=clip.mp4 \\
      --prompt="a red ball" --start=25

Exit codes: 0 done; 2 bad input or configuration (unreadable clip, bad flag, weights
unavailable: the message says how to fetch them); 1 internal error.
"""

from typing import Optional, Sequence

import cv2
from absl import app
from absl import flags

from metrics import cli_support
from metrics import model_cli
from metrics.segmentation import sam3
from metrics.video import frames as frames_lib

_FRAMES = flags.DEFINE_string("frames", None, "The clip: a frame folder or a video file.")
_PROMPT = flags.DEFINE_string("prompt", None, "What SAM-3 looks for (a noun phrase).")
_START = flags.DEFINE_integer("start", 0, "First frame judged.", lower_bound=0)
_END = flags.DEFINE_integer("end", None, "Last frame judged (inclusive). Default: the last.",
                            lower_bound=0)
_THRESHOLD = flags.DEFINE_float("threshold", 0.0, "Queries scoring above this are kept.")
_CHECKPOINT = flags.DEFINE_string(
    "checkpoint", None, "The facebook/sam3 snapshot folder (config.json, tokenizer files, "
    "model.safetensors).")
_MODEL = model_cli.define_model_flags("Folder searched for checkpoints (<dir>/sam3/).")


def _frame_range(num_frames: int) -> range:
    end = num_frames - 1 if _END.value is None else _END.value
    if not _START.value <= end <= num_frames - 1:
        raise model_cli.ConfigError(f"--start/--end: need 0 <= start <= end <= "
                                    f"{num_frames - 1} (the clip's last frame), got "
                                    f"start={_START.value}, end={end}")
    return range(_START.value, end + 1)


def _evaluate() -> dict:
    if not _PROMPT.value or not _PROMPT.value.strip():
        raise model_cli.ConfigError("--prompt is blank: SAM-3 looks for a text prompt")
    clip = frames_lib.load_frames(cli_support.user_path(_FRAMES.value))
    indices = _frame_range(len(clip))
    detector, device, checkpoint = model_cli.load_model(sam3.SAM3, _CHECKPOINT.value, _MODEL,
                                                        sam3.load_sam3)
    prompt = sam3.encode_prompt(detector, _PROMPT.value)
    per_frame = []
    for index in indices:
        found = sam3.detect(detector, cv2.cvtColor(clip[index], cv2.COLOR_BGR2RGB), prompt,
                            threshold=_THRESHOLD.value)
        area = found.width * found.height
        per_frame.append({"frame": index, "scores": [float(s) for s in found.scores],
                          "coverage": [int(a) / area for a in found.mask_areas]})
    num_frames, height, width = clip.shape[:3]
    return {"frames": _FRAMES.value, "num_frames": int(num_frames),
            "frame_size": [int(width), int(height)], "prompt": _PROMPT.value,
            "threshold": _THRESHOLD.value, "per_frame": per_frame,
            "backend": sam3.BACKEND_NAME, "device": str(device), "checkpoint": checkpoint}


def format_text(record: dict) -> str:
    """Readable lines for a record built by _evaluate (no trailing newline)."""
    width, height = record["frame_size"]
    lines = [f"frames:     {record['frames']} ({record['num_frames']} frames, {width}x{height})",
             f"prompt:     {record['prompt']!r} (kept: score > {record['threshold']})",
             f"backend:    {record['backend']} on {record['device']}",
             f"checkpoint: {model_cli.checkpoint_text(record['checkpoint'])}"]
    for frame in record["per_frame"]:
        masks = ", ".join(f"{s:.4f} @ {c:.5f}" for s, c in zip(frame["scores"],
                                                                frame["coverage"]))
        lines.append(f"frame {frame['frame']:>5}: {len(frame['scores'])} masks (score @ "
                     f"coverage) {masks}")
    return "\n".join(lines)


def main(argv: Sequence[str]) -> Optional[int]:
    return model_cli.run_main(argv, _MODEL.json, _evaluate, format_text)


if __name__ == "__main__":
    flags.mark_flags_as_required(["frames", "prompt"])
    app.run(main, flags_parser=cli_support.parse_flags)
