"""Prints the mean PSNR and/or SSIM of one generated clip against a reference.

A clip is a folder of numbered PNG/JPEG frames or a video file. If both clips
have the same number of frames, frame i is compared with frame i; otherwise
the reference is resampled to the generated length as the official whole-clip
'ALL' phase does. Each reference frame is resized to its generated frame's
size (INTER_AREA) before comparing.

Usage:
  bazel run //metrics/pixel:psnr -- --generated=gen.mp4 --reference=gt_frames
  bazel run //metrics/pixel:ssim -- --generated=gen --reference=gt --json

Relative paths are taken from where the command was run. Exit codes: 0 done,
2 bad input (missing or unreadable clip, bad flag, extra arguments).
"""

import dataclasses
import json
import sys
from typing import Optional, Sequence

from absl import app
from absl import flags
import numpy as np

from metrics import cli_support
from metrics.pixel import fidelity
from metrics.video import frames
from metrics.video import pairing as pairing_lib

PAIRING_SAME_LENGTH = pairing_lib.SAME_LENGTH
PAIRING_RESAMPLED = pairing_lib.RESAMPLED

_GENERATED = flags.DEFINE_string(
    "generated", None, "Generated clip: a frame folder or a video file.")
_REFERENCE = flags.DEFINE_string(
    "reference", None, "Reference (ground-truth) clip: a frame folder or a "
    "video file.")
_METRIC = flags.DEFINE_enum(
    "metric", "both", ["psnr", "ssim", "both"], "Which metric to print.")
_MAX_SIDE = flags.DEFINE_integer(
    "max_side", None, "If given, generated frames whose longer side exceeds "
    "this are downscaled (INTER_AREA, never upscaled) first, as the official code "
    "does with 640. Default: no resize.", lower_bound=1)
_JSON = flags.DEFINE_boolean(
    "json", False, "Print one JSON object instead of text.")


@dataclasses.dataclass(frozen=True)
class PixelResult:
    """Mean pixel fidelity of one generated clip against its reference.

    Attributes:
        psnr: Mean PSNR over the pairs, in dB.
        ssim: Mean SSIM over the pairs.
        pairs: Number of (reference, generated) frame pairs.
        pairing: PAIRING_SAME_LENGTH or PAIRING_RESAMPLED.
        generated_frames: Number of generated frames.
        reference_frames: Number of reference frames (before resampling).
        generated_size: (width, height) of the generated frames as compared.
        reference_size: (width, height) of the reference frames as loaded.
    """

    psnr: float
    ssim: float
    pairs: int
    pairing: str
    generated_frames: int
    reference_frames: int
    generated_size: tuple
    reference_size: tuple




def evaluate(generated_path, reference_path, max_side=None):
    """Loads both clips and computes their mean PSNR and SSIM.

    Args:
        generated_path: Frame folder or video of the generated clip.
        reference_path: Frame folder or video of the reference clip.
        max_side: If given, generated frames are shrunk with
            metrics.video.resize.resize_max_side before comparing.

    Returns:
        A PixelResult.

    Raises:
        frames.FrameInputError: If a clip is missing or unreadable.
    """
    generated = frames.load_frames(generated_path, max_side=max_side)
    reference = frames.load_frames(reference_path)
    paired, pairing = pairing_lib.pair_reference(reference, len(generated))
    psnrs, ssims = fidelity.per_pair_pixel_fidelity(paired, generated)
    return PixelResult(
        psnr=float(np.mean(psnrs)),
        ssim=float(np.mean(ssims)),
        pairs=len(psnrs),
        pairing=pairing,
        generated_frames=len(generated),
        reference_frames=len(reference),
        generated_size=(generated.shape[2], generated.shape[1]),
        reference_size=(reference.shape[2], reference.shape[1]),
    )




def format_text(result, metric, generated_path, reference_path):
    """Formats a result as readable lines (without a trailing newline).

    Args:
        result: A PixelResult.
        metric: "psnr", "ssim" or "both": which values to show.
        generated_path: Shown as given.
        reference_path: Shown as given.

    Returns:
        The text to print.
    """
    gen_w, gen_h = result.generated_size
    ref_w, ref_h = result.reference_size
    lines = [
        f"generated: {generated_path} ({result.generated_frames} frames, "
        f"{gen_w}x{gen_h})",
        f"reference: {reference_path} ({result.reference_frames} frames, "
        f"{ref_w}x{ref_h})",
        "pairing:   " + pairing_lib.describe(result.pairing, result.reference_frames,
                                             result.generated_frames),
        f"pairs:     {result.pairs}",
    ]
    if metric in ("psnr", "both"):
        lines.append(f"PSNR:      {result.psnr!r} dB (mean over pairs)")
    if metric in ("ssim", "both"):
        lines.append(f"SSIM:      {result.ssim!r} (mean over pairs)")
    return "\n".join(lines)


def format_json(result, metric, generated_path, reference_path):
    """Formats a result as one JSON object; only the chosen metrics appear.

    Args:
        result: A PixelResult.
        metric: "psnr", "ssim" or "both".
        generated_path: Stored under "generated", as given.
        reference_path: Stored under "reference", as given.

    Returns:
        The JSON text, one line.
    """
    record = {}
    if metric in ("psnr", "both"):
        record["psnr"] = result.psnr
    if metric in ("ssim", "both"):
        record["ssim"] = result.ssim
    record.update(pairs=result.pairs, pairing=result.pairing,
                  generated=generated_path, reference=reference_path)
    return json.dumps(record)


def main(argv: Sequence[str]) -> Optional[int]:
    if len(argv) > 1:
        raise app.UsageError(
            f"unexpected arguments: {' '.join(argv[1:])}",
            exitcode=cli_support.EXIT_BAD_INPUT)
    generated, reference = _GENERATED.value, _REFERENCE.value
    if not generated or not reference:
        raise app.UsageError("--generated and --reference are required",
                             exitcode=cli_support.EXIT_BAD_INPUT)
    try:
        result = evaluate(cli_support.user_path(generated), cli_support.user_path(reference),
                          max_side=_MAX_SIDE.value)
    except frames.FrameInputError as e:
        print(f"error: {e}", file=sys.stderr)
        return cli_support.EXIT_BAD_INPUT
    formatter = format_json if _JSON.value else format_text
    print(formatter(result, _METRIC.value, generated, reference))
    return 0


if __name__ == "__main__":
    flags.mark_flags_as_required(["generated", "reference"])
    app.run(main, flags_parser=cli_support.parse_flags)
