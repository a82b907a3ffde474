"""Prints the CLIP ViT-B/32 similarity (GTRevisitSim) of a clip's last span to the reference.

The generated clip is shrunk to --max_side (640, INTER_AREA) as Step 1 does; the
reference (ground truth: a frame folder or a video) is read at native size.
Three R-phase pairs are compared (see metrics.clip.revisit). The GT frame count
is the folder's image count or the video's CAP_PROP_FRAME_COUNT, as run_eval
reads it (--gt_total overrides it, e.g. with a timestamps.txt line count).

--r_start is the R keyframe in the generated clip. Without it, it is mapped from
--h_start_gt/--r_start_gt with metrics.video.sampling.map_keyframes (needs --h_start_gt).

Weights: the openai/clip-vit-base-patch32 snapshot (--clip_checkpoint, a folder
with config.json and model.safetensors), else <--checkpoint_dir>/clip_vit_base_patch32/,
the HF cache, or a download unless --offline. --clip_activation: see
metrics.clip.vision (gelu = open_clip >= 2.29, the official setup today).

Usage:
  bazel run //metrics/clip:gt_revisit -- --generated=gen.mp4 --reference=gt.mp4 \\
      --r_start=60 --r_start_gt=220 --checkpoint_dir=~/ckpt --offline

Exit codes: 0 done; 2 bad input or configuration (unreadable clip, bad flag,
keyframes out of range, weights missing or unusable: the message holds the
command that fetches them); 1 internal error.
"""

import json
import pathlib
import sys
from typing import Optional, Sequence

from absl import app
from absl import flags

from metrics import cli_support
from metrics.clip import cli_common
from metrics.clip import revisit
from metrics.clip import vision
from metrics.video import frames as frames_lib
from metrics.video import sampling

_GENERATED = flags.DEFINE_string("generated", None, "Generated clip: a frame folder or a video.")
_REFERENCE = flags.DEFINE_string("reference", None, "GT clip: a frame folder or a video.")
_R_START = flags.DEFINE_integer(
    "r_start", None, "R keyframe in the generated clip. Default: mapped from the GT keyframes.",
    lower_bound=0)
_R_START_GT = flags.DEFINE_integer("r_start_gt", None, "R keyframe in the GT clip.",
                                   lower_bound=0)
_H_START_GT = flags.DEFINE_integer(
    "h_start_gt", None, "H keyframe in the GT clip; only used to map --r_start.", lower_bound=0)
_GT_TOTAL = flags.DEFINE_integer(
    "gt_total", None, "GT frame count. Default: counted from --reference.", lower_bound=1)
_MAX_SIDE = flags.DEFINE_integer(
    "max_side", 640, "Generated frames whose longer side exceeds this are shrunk first.",
    lower_bound=1)
_CLIP_CHECKPOINT = flags.DEFINE_string(
    "clip_checkpoint", None, "Folder of the openai/clip-vit-base-patch32 snapshot.")
_CHECKPOINT_DIR = flags.DEFINE_string(
    "checkpoint_dir", None, "Folder searched for checkpoints (<dir>/<name>/...).")
_OFFLINE = flags.DEFINE_boolean("offline", False, "Never download a checkpoint.")
_DEVICE = flags.DEFINE_string("device", "auto", "auto, cpu, cuda or cuda:N.")
_CLIP_ACTIVATION = flags.DEFINE_enum(
    "clip_activation", vision.OFFICIAL_ACTIVATION, list(vision.ACTIVATIONS),
    "CLIP MLP activation: gelu (open_clip >= 2.29, the official setup today) or quick_gelu.")
_JSON = flags.DEFINE_boolean("json", False, "Print one JSON object instead of text.")


def reference_reader(path: pathlib.Path):
    """(frame count, gt_frames_at) for a GT frame folder or video, read at native size.

    Raises:
        frames_lib.FrameInputError: Missing, unreadable or of another type.
    """
    if path.is_dir():
        files = frames_lib.list_frame_files(path)

        def folder_frames_at(indices):
            for i in indices:
                if i >= len(files):
                    raise frames_lib.FrameInputError(
                        path, f"a frame at index {i}", f"{len(files)} frames")
            return [frames_lib.read_image(files[i]) for i in indices]
        return len(files), folder_frames_at
    if path.suffix.lower() in frames_lib.VIDEO_EXTENSIONS:
        return (frames_lib.video_frame_count(path),
                lambda indices: frames_lib.read_video_frames(path, indices))
    raise frames_lib.FrameInputError(path, "a frame folder or a .mp4/.avi/.mov/.mkv video",
                                     "a file of another type" if path.exists() else "nothing")


def _r_start(num_frames: int, gt_total: int):
    """(r, derived) from the flags; raises cli_common.ConfigError."""
    if _R_START.value is not None:
        return _R_START.value, False
    if _H_START_GT.value is None:
        raise cli_common.ConfigError("pass --r_start, or --h_start_gt to map it from the GT")
    try:
        _, r = sampling.map_keyframes(_H_START_GT.value, _R_START_GT.value, gt_total, num_frames)
    except ValueError as e:
        raise cli_common.ConfigError(f"--h_start_gt/--r_start_gt: {e}") from e
    return r, True


def _load_model(found, device) -> vision.ClipVision:
    try:
        return vision.load_clip_vision(found.path, device, _CLIP_ACTIVATION.value)
    except (ValueError, OSError) as e:
        raise cli_common.unusable_checkpoint(found, e, _CHECKPOINT_DIR.value) from e


def format_text(record) -> str:
    """Readable lines for a record built by main (no trailing newline)."""
    width, height = record["frame_size"]
    derived = " (mapped with map_keyframes)" if record["r_start_derived"] else ""
    ckpt = record["checkpoint"]
    lines = [
        f"generated:     {record['generated']} ({record['num_frames']} frames, {width}x{height})",
        f"reference:     {record['reference']} ({record['gt_total']} frames)",
        f"keyframes:     r_start={record['r_start']}{derived}, r_start_gt={record['r_start_gt']}",
        f"backbone:      CLIP ViT-B/32 (transformers), activation "
        f"{record['clip_activation']}, on {record['device']}",
        f"checkpoint:    {ckpt['path']} (sha256 {ckpt['sha256']}, {ckpt['source']})",
    ]
    for pair in record["pairs"]:
        lines.append(f"pair:          gt {pair['gt_index']} vs generated {pair['gen_index']} "
                     f"-> {pair['similarity']!r}")
    lines.append(f"GTRevisitSim:  {record['GTRevisitSim']!r}")
    return "\n".join(lines)


def main(argv: Sequence[str]) -> Optional[int]:
    if len(argv) > 1:
        raise app.UsageError(f"unexpected arguments: {' '.join(argv[1:])}",
                             exitcode=cli_support.EXIT_BAD_INPUT)
    try:
        device = cli_common.resolve_device(_DEVICE.value)
        found = cli_common.resolve_checkpoint(revisit.CLIP_VIT_B32, _CLIP_CHECKPOINT.value,
                                              _CHECKPOINT_DIR.value, _OFFLINE.value)
        gen = frames_lib.load_frames(cli_support.user_path(_GENERATED.value),
                                     max_side=_MAX_SIDE.value)
        counted, gt_frames_at = reference_reader(cli_support.user_path(_REFERENCE.value))
        gt_total = _GT_TOTAL.value or counted
        r, derived = _r_start(len(gen), gt_total)
        try:
            revisit.revisit_pairs(  # Checked before the model loads.
                r, _R_START_GT.value, len(gen), gt_total)
        except ValueError as e:
            raise cli_common.ConfigError(f"--r_start/--r_start_gt: {e}") from e
        model = _load_model(found, device)
        result = revisit.revisit_details(gen, gt_frames_at, r, _R_START_GT.value, gt_total,
                                         model)
    except (cli_common.ConfigError, frames_lib.FrameInputError) as e:
        print(f"error: {cli_common.one_line(e)}", file=sys.stderr)
        return cli_support.EXIT_BAD_INPUT
    num_frames, height, width = gen.shape[:3]
    record = {
        "GTRevisitSim": result.score,
        "generated": _GENERATED.value,
        "reference": _REFERENCE.value,
        "num_frames": int(num_frames),
        "frame_size": [int(width), int(height)],
        "gt_total": int(gt_total),
        "r_start": int(r),
        "r_start_gt": _R_START_GT.value,
        "r_start_derived": derived,
        "pairs": [{"gt_index": gt, "gen_index": gen_i, "similarity": sim}
                  for (gt, gen_i), sim in zip(result.pairs, result.similarities)],
        "clip_activation": _CLIP_ACTIVATION.value,
        "device": str(device),
        "checkpoint": cli_common.checkpoint_record(found),
    }
    print(json.dumps(record) if _JSON.value else format_text(record))
    return cli_support.EXIT_OK


if __name__ == "__main__":
    flags.mark_flags_as_required(["generated", "reference", "r_start_gt"])
    app.run(main, flags_parser=cli_support.parse_flags)
