"""Prints the mean CLIP ViT-B/32 cosine similarity of generated frames to reference frames.

The generated clip is shrunk to --max_side (640, INTER_AREA); the reference (a frame
folder or a video) is read at native size (the CLIP transform resizes both). --pairs
lists the (generated, reference) frame indices to compare, e.g. "12:17,16:23"; without
it every generated frame i is compared with the reference frame at the same relative
position, round(i * (M - 1) / (N - 1)) for M reference frames. Each pair's similarity
is the cosine of the two unit CLIP embeddings (metrics.clip.frame_similarity); the
number printed is their mean.

Weights: the openai/clip-vit-base-patch32 snapshot (--clip_checkpoint, a folder
with config.json and model.safetensors), else <--checkpoint_dir>/clip_vit_base_patch32/,
the HF cache, or a download unless --offline. --clip_activation: see
metrics.clip.vision (gelu = open_clip >= 2.29).

Usage:
  bazel run //metrics/clip:frame_similarity -- --generated=gen.mp4 --reference=gt.mp4 \\
      --pairs=60:220,70:260 --checkpoint_dir=~/ckpt --offline

Exit codes: 0 done; 2 bad input or configuration (unreadable clip, bad flag,
indices out of range, weights missing or unusable: the message holds the
command that fetches them); 1 internal error.
"""

import json
import pathlib
import sys
from typing import Optional, Sequence

import numpy as np
from absl import app
from absl import flags

from metrics import cli_support
from metrics.clip import cli_common
from metrics.clip import frame_similarity
from metrics.clip import vision
from metrics.video import frames as frames_lib
from metrics.video import sampling

_GENERATED = flags.DEFINE_string("generated", None, "Generated clip: a frame folder or a video.")
_REFERENCE = flags.DEFINE_string("reference", None, "Reference clip: a frame folder or a video.")
_PAIRS = flags.DEFINE_string(
    "pairs", None, "Comma-separated generated:reference frame index pairs, e.g. 12:17,16:23. "
    "Default: each generated frame with the reference frame at the same relative position.")
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
    """(frame count, frames_at) for a reference frame folder or video, read at native size.

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


def parse_pairs(value: Optional[str], num_frames: int, num_reference: int):
    """(reference index, generated index) pairs from --pairs, or the default pairing.

    Raises:
        cli_common.ConfigError: Malformed, or an index out of range.
    """
    if value is None:
        return [(ref, gen) for gen, ref in enumerate(
            sampling.resample_gt_indices(0, num_reference - 1, num_frames))]
    pairs = []
    for item in value.split(","):
        try:
            gen, ref = (int(part) for part in item.split(":"))
        except ValueError:
            raise cli_common.ConfigError(
                f"--pairs: expected generated:reference index pairs, got {item!r}") from None
        if not (0 <= gen < num_frames and 0 <= ref < num_reference):
            raise cli_common.ConfigError(
                f"--pairs: {item} out of range for {num_frames} generated and "
                f"{num_reference} reference frames")
        pairs.append((ref, gen))
    return pairs


def _load_model(found, device) -> vision.ClipVision:
    try:
        return vision.load_clip_vision(found.path, device, _CLIP_ACTIVATION.value)
    except (ValueError, OSError) as e:
        raise cli_common.unusable_checkpoint(found, e, _CHECKPOINT_DIR.value) from e


def format_text(record) -> str:
    """Readable lines for a record built by main (no trailing newline)."""
    width, height = record["frame_size"]
    ckpt = record["checkpoint"]
    lines = [
        f"generated:       {record['generated']} ({record['num_frames']} frames, "
        f"{width}x{height})",
        f"reference:       {record['reference']} ({record['reference_frames']} frames)",
        f"backbone:        CLIP ViT-B/32 (transformers), activation "
        f"{record['clip_activation']}, on {record['device']}",
        f"checkpoint:      {ckpt['path']} (sha256 {ckpt['sha256']}, {ckpt['source']})",
    ]
    for pair in record["pairs"]:
        lines.append(f"pair:            generated {pair['gen_index']} vs reference "
                     f"{pair['reference_index']} -> {pair['similarity']!r}")
    lines.append(f"FrameSimilarity: {record['FrameSimilarity']!r}")
    return "\n".join(lines)


def main(argv: Sequence[str]) -> Optional[int]:
    if len(argv) > 1:
        raise app.UsageError(f"unexpected arguments: {' '.join(argv[1:])}",
                             exitcode=cli_support.EXIT_BAD_INPUT)
    try:
        device = cli_common.resolve_device(_DEVICE.value)
        found = cli_common.resolve_checkpoint(frame_similarity.CLIP_VIT_B32,
                                              _CLIP_CHECKPOINT.value, _CHECKPOINT_DIR.value,
                                              _OFFLINE.value)
        gen = frames_lib.load_frames(cli_support.user_path(_GENERATED.value),
                                     max_side=_MAX_SIDE.value)
        num_reference, reference_at = reference_reader(cli_support.user_path(_REFERENCE.value))
        pairs = parse_pairs(_PAIRS.value, len(gen), num_reference)  # Before the model loads.
        model = _load_model(found, device)
        similarities = frame_similarity.pair_similarities(gen, reference_at, pairs, model)
    except (cli_common.ConfigError, frames_lib.FrameInputError) as e:
        print(f"error: {cli_common.one_line(e)}", file=sys.stderr)
        return cli_support.EXIT_BAD_INPUT
    num_frames, height, width = gen.shape[:3]
    record = {
        "FrameSimilarity": float(np.mean(similarities)),
        "generated": _GENERATED.value,
        "reference": _REFERENCE.value,
        "num_frames": int(num_frames),
        "frame_size": [int(width), int(height)],
        "reference_frames": int(num_reference),
        "pairs": [{"gen_index": gen_i, "reference_index": ref, "similarity": sim}
                  for (ref, gen_i), sim in zip(pairs, similarities)],
        "clip_activation": _CLIP_ACTIVATION.value,
        "device": str(device),
        "checkpoint": cli_common.checkpoint_record(found),
    }
    print(json.dumps(record) if _JSON.value else format_text(record))
    return cli_support.EXIT_OK


if __name__ == "__main__":
    flags.mark_flags_as_required(["generated", "reference"])
    app.run(main, flags_parser=cli_support.parse_flags)
