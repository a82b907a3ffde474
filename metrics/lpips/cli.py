"""Prints the mean LPIPS (v0.1, AlexNet) of one generated clip against a reference.

A clip is a folder of numbered PNG/JPEG frames or a video file. Frames are
paired as //metrics/pixel does: frame i with frame i when both clips have the
same length, otherwise the reference is resampled to the generated length
(the whole clip). Each reference frame is resized to its generated
frame's size (INTER_AREA); pairs go through the model 16 at a time. The model is the
lpips package's own LPIPS(net="alex") (lpips 0.1.4) on the two weight files below.

Weights: torchvision's AlexNet (sha256-pinned) and lpips v0.1's alex.pth (no
pinned digest yet: its sha256 is reported). Each is looked for at its flag's
path, then under --checkpoint_dir, then in torch's cache, then downloaded
(never with --offline). A file whose digest does not match its pin is refused
unless --allow_unverified_checkpoints, which marks it "unverified".

Usage:
  bazel run //metrics/lpips:lpips -- --generated=gen.mp4 --reference=gt_frames \
      --checkpoint_dir=~/ckpt --offline --json

Exit codes: 0 done, 2 bad input (missing or unreadable clip, missing or wrong
checkpoint, bad flag, extra arguments).
"""

import dataclasses
import json
import os
import sys
from typing import Optional, Sequence

from absl import app
from absl import flags
import numpy as np

from metrics import cli_support
from metrics import device as device_lib
from metrics.checkpoints import resolver
from metrics.lpips import lpips
from metrics.video import frames
from metrics.video import pairing as pairing_lib

PAIRING_SAME_LENGTH = pairing_lib.SAME_LENGTH
PAIRING_RESAMPLED = pairing_lib.RESAMPLED
VERIFIED = "verified"
NOT_PINNED = "not_pinned"
UNVERIFIED = "unverified"

_GENERATED = flags.DEFINE_string(
    "generated", None, "Generated clip: a frame folder or a video file.")
_REFERENCE = flags.DEFINE_string(
    "reference", None, "Reference (ground-truth) clip: a frame folder or a video file.")
_MAX_SIDE = flags.DEFINE_integer(
    "max_side", None, "If given, generated frames whose longer side exceeds this are "
    "downscaled (INTER_AREA, never upscaled) first, as the official Step 1 does with 640. "
    "Default: no resize.", lower_bound=1)
_ALEXNET_CHECKPOINT = flags.DEFINE_string(
    "alexnet_checkpoint", None, f"Path of torchvision's {lpips.ALEXNET_SPEC.filename} "
    "(or a folder holding it).")
_LPIPS_CHECKPOINT = flags.DEFINE_string(
    "lpips_checkpoint", None, f"Path of lpips v0.1's {lpips.LPIPS_ALEX_SPEC.filename} "
    "(or a folder holding it).")
_CHECKPOINT_DIR = flags.DEFINE_string(
    "checkpoint_dir", None, "Folder searched for the weights (as <dir>/<file> or "
    f"<dir>/{lpips.ALEXNET_SPEC.name}/<file>, <dir>/{lpips.LPIPS_ALEX_SPEC.name}/<file>); "
    "downloads go there too.")
_OFFLINE = flags.DEFINE_boolean(
    "offline", False, "Never download weights; a missing checkpoint is an error.")
_ALLOW_UNVERIFIED = flags.DEFINE_boolean(
    "allow_unverified_checkpoints", False, "Use weight files whose sha256 does not match "
    "the pinned digest, and report them as 'unverified'.")
_DEVICE = flags.DEFINE_string(
    "device", "auto", "Torch device: auto, cpu, cuda or cuda:N.")
_JSON = flags.DEFINE_boolean(
    "json", False, "Print one JSON object instead of text.")


@dataclasses.dataclass(frozen=True)
class LoadedCheckpoint:
    """A weight file that was used, and how far it was checked.

    Attributes:
        name: The spec's name (e.g. "alexnet").
        path: The file loaded.
        sha256: Its full digest.
        source: Where the resolver found it ("flag", "checkpoint_dir", ...).
        verification: VERIFIED (matches the pin), NOT_PINNED (no pin to check),
            or UNVERIFIED (does not match; allowed by the flag).
    """

    name: str
    path: str
    sha256: str
    source: str
    verification: str


@dataclasses.dataclass(frozen=True)
class LpipsResult:
    """Mean LPIPS of one generated clip against its reference.

    Attributes:
        lpips: Mean over the pairs of the per-pair distances.
        pairs: Number of (reference, generated) frame pairs.
        pairing: PAIRING_SAME_LENGTH or PAIRING_RESAMPLED.
        generated_frames / reference_frames: Frame counts as loaded.
        generated_size / reference_size: (width, height) as loaded.
    """

    lpips: float
    pairs: int
    pairing: str
    generated_frames: int
    reference_frames: int
    generated_size: tuple
    reference_size: tuple


def resolve_checkpoint(spec, explicit_path, checkpoint_dir, offline, allow_unverified):
    """Finds one weight file (metrics.checkpoints.resolver) and says how it was checked.

    Returns:
        A LoadedCheckpoint.

    Raises:
        resolver.CheckpointUnavailable: Not found, or (unless allow_unverified)
            its digest does not match the pin.
    """
    if allow_unverified and spec.sha256:
        found = resolver.resolve(dataclasses.replace(spec, sha256=""), explicit_path,
                                 checkpoint_dir, offline)
        verification = VERIFIED if found.sha256.startswith(spec.sha256) else UNVERIFIED
    else:
        found = resolver.resolve(spec, explicit_path, checkpoint_dir, offline)
        verification = VERIFIED if spec.sha256 else NOT_PINNED
    return LoadedCheckpoint(spec.name, str(found.path), found.sha256, found.source,
                            verification)




def evaluate(model, generated, reference):
    """Mean LPIPS of loaded clips ((N, H, W, 3) BGR uint8 arrays); an LpipsResult."""
    paired, pairing = pairing_lib.pair_reference(reference, len(generated))
    distances = lpips.lpips_distance_pairs(model, list(paired), list(generated))
    return LpipsResult(
        lpips=float(np.mean(distances)), pairs=len(distances), pairing=pairing,
        generated_frames=len(generated), reference_frames=len(reference),
        generated_size=(generated.shape[2], generated.shape[1]),
        reference_size=(reference.shape[2], reference.shape[1]))




def format_text(result, checkpoints, device, generated_path, reference_path):
    """Readable lines (no trailing newline)."""
    gen_w, gen_h = result.generated_size
    ref_w, ref_h = result.reference_size
    lines = [
        f"generated: {generated_path} ({result.generated_frames} frames, {gen_w}x{gen_h})",
        f"reference: {reference_path} ({result.reference_frames} frames, {ref_w}x{ref_h})",
        "pairing:   " + pairing_lib.describe(result.pairing, result.reference_frames,
                                             result.generated_frames),
        f"pairs:     {result.pairs}",
        f"device:    {device}",
    ]
    for ckpt in checkpoints:
        lines.append(f"weights:   {ckpt.name}: {ckpt.path} (sha256 {ckpt.sha256}, "
                     f"{ckpt.verification}, from {ckpt.source})")
    lines.append(f"LPIPS:     {result.lpips!r} (AlexNet v0.1, mean over pairs)")
    return "\n".join(lines)


def format_json(result, checkpoints, device, generated_path, reference_path):
    """One JSON object on one line."""
    record = {
        "lpips": result.lpips, "pairs": result.pairs, "pairing": result.pairing,
        "generated": generated_path, "reference": reference_path, "device": device,
        "checkpoints": {c.name: {"path": c.path, "sha256": c.sha256, "source": c.source,
                                 "verification": c.verification} for c in checkpoints},
    }
    return json.dumps(record)


def _fail(message):
    print(f"error: {message}".replace("\n", " "), file=sys.stderr)
    return cli_support.EXIT_BAD_INPUT


def main(argv: Sequence[str]) -> Optional[int]:
    if len(argv) > 1:
        raise app.UsageError(f"unexpected arguments: {' '.join(argv[1:])}",
                             exitcode=cli_support.EXIT_BAD_INPUT)
    generated_path, reference_path = _GENERATED.value, _REFERENCE.value
    try:
        device = device_lib.resolve_device(_DEVICE.value)
        generated = frames.load_frames(cli_support.user_path(generated_path),
                                       max_side=_MAX_SIDE.value)
        reference = frames.load_frames(cli_support.user_path(reference_path))
    except ValueError as e:  # FrameInputError is a ValueError.
        return _fail(e)
    checkpoint_dir = (str(cli_support.user_path(_CHECKPOINT_DIR.value))
                      if _CHECKPOINT_DIR.value else None)
    checkpoints = []
    try:
        for spec, flag in ((lpips.ALEXNET_SPEC, _ALEXNET_CHECKPOINT.value),
                           (lpips.LPIPS_ALEX_SPEC, _LPIPS_CHECKPOINT.value)):
            explicit = str(cli_support.user_path(flag)) if flag else None
            checkpoints.append(resolve_checkpoint(spec, explicit, checkpoint_dir,
                                                  _OFFLINE.value, _ALLOW_UNVERIFIED.value))
        model = lpips.load_lpips_alex(checkpoints[0].path, checkpoints[1].path, device)
        result = evaluate(model, generated, reference)
    except (resolver.CheckpointUnavailable, ValueError) as e:
        return _fail(e)
    for ckpt in checkpoints:
        if ckpt.verification == UNVERIFIED:
            print(f"warning: {ckpt.path} does not match the pinned sha256 of {ckpt.name}; "
                  f"used because of --allow_unverified_checkpoints", file=sys.stderr)
    formatter = format_json if _JSON.value else format_text
    print(formatter(result, checkpoints, str(device), generated_path, reference_path))
    return cli_support.EXIT_OK


def _unshadow_lpips_package():
    """Python puts a script's folder first on sys.path; this binary's folder holds
    metrics/lpips/lpips.py, which `import lpips` would then find instead of the package."""
    here = os.path.dirname(os.path.realpath(__file__))
    sys.path[:] = [p for p in sys.path if not p or os.path.realpath(p) != here]


if __name__ == "__main__":
    _unshadow_lpips_package()
    flags.mark_flags_as_required(["generated", "reference"])
    app.run(main, flags_parser=cli_support.parse_flags)
