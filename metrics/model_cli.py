"""What the model-based metric binaries share: flags, keyframes, device, checkpoints
and the main body (errors of input or configuration exit 2 with one message line).

Each binary keeps its own metric-specific flags; these turn flag values into checked
settings with the same messages everywhere.
"""

import dataclasses
import json
import sys
from typing import Callable, Optional, Sequence, Tuple

from absl import app
from absl import flags

from metrics import cli_support
from metrics import device as device_lib
from metrics.checkpoints import resolver
from metrics.video import frames as frames_lib


@dataclasses.dataclass(frozen=True)
class ClipFlags:
    """The flags that name a clip and its h/r keyframes."""

    frames: flags.FlagHolder
    h_start: flags.FlagHolder
    r_start: flags.FlagHolder
    max_side: flags.FlagHolder


def define_clip_flags() -> ClipFlags:
    """--frames, --h_start, --r_start, --max_side (call once, at a binary's top level)."""
    return ClipFlags(
        frames=flags.DEFINE_string("frames", None, "The clip: a frame folder or a video file."),
        h_start=flags.DEFINE_integer(
            "h_start", None, "H keyframe index (end of the V phase) in the clip. "
            "Default: N//3.", lower_bound=0),
        r_start=flags.DEFINE_integer(
            "r_start", None, "R keyframe index (start of the R phase) in the clip. "
            "Default: 2N//3.", lower_bound=0),
        max_side=flags.DEFINE_integer(
            "max_side", 640, "Frames whose longer side exceeds this are shrunk (INTER_AREA) "
            "first.", lower_bound=1))


@dataclasses.dataclass(frozen=True)
class ModelFlags:
    """The flags every model-based binary has."""

    checkpoint_dir: flags.FlagHolder
    offline: flags.FlagHolder
    device: flags.FlagHolder
    json: flags.FlagHolder


def define_model_flags(checkpoint_dir_help: str) -> ModelFlags:
    """--checkpoint_dir, --offline, --device, --json (call once, at top level)."""
    return ModelFlags(
        checkpoint_dir=flags.DEFINE_string("checkpoint_dir", None, checkpoint_dir_help),
        offline=flags.DEFINE_boolean("offline", False, "Never download a checkpoint."),
        device=flags.DEFINE_string("device", "auto", "auto, cpu, cuda or cuda:N."),
        json=flags.DEFINE_boolean("json", False, "Print one JSON object instead of text."))


class ConfigError(ValueError):
    """Unusable configuration: keyframes out of range or a bad --device."""


def keyframes(num_frames: int, h_value: Optional[int],
              r_value: Optional[int]) -> Tuple[int, int, bool]:
    """(h, r, defaulted): --h_start/--r_start, else N//3 and 2N//3, checked against N."""
    defaulted = h_value is None or r_value is None
    h = num_frames // 3 if h_value is None else h_value
    r = 2 * num_frames // 3 if r_value is None else r_value
    if not 0 <= h <= r <= num_frames - 1:
        raise ConfigError(f"--h_start/--r_start: need 0 <= h <= r <= num_frames - 1, got h={h}, "
                          f"r={r}, num_frames={num_frames}")
    return h, r, defaulted


def device(value: str):
    """The torch device of --device; ConfigError when it is unusable here."""
    try:
        return device_lib.resolve_device(value)
    except ValueError as e:
        raise ConfigError(str(e)) from e


def resolve(spec: resolver.CheckpointSpec, explicit: Optional[str],
            checkpoint_dir: Optional[str], offline: bool):
    """(ResolvedCheckpoint, record for the JSON output) from user-typed paths."""
    explicit = explicit and str(cli_support.user_path(explicit))
    checkpoint_dir = checkpoint_dir and str(cli_support.user_path(checkpoint_dir))
    found = resolver.resolve(spec, explicit_path=explicit, checkpoint_dir=checkpoint_dir,
                             offline=offline)
    record = {"name": found.spec.name, "path": str(found.path), "sha256": found.sha256,
              "source": found.source, "revision": found.revision}
    return found, record


def load_model(spec: resolver.CheckpointSpec, explicit: Optional[str], model_flags: ModelFlags,
               load_fn: Callable):
    """(load_fn(path, device), device, checkpoint record) for a binary's flags.

    Raises:
        ConfigError: A bad --device.
        resolver.CheckpointUnavailable: The weights cannot be found, or a snapshot folder
            lacks its configs (the message says how to fetch them).
    """
    dev = device(model_flags.device.value)
    checkpoint_dir = model_flags.checkpoint_dir.value
    found, checkpoint = resolve(spec, explicit, checkpoint_dir, model_flags.offline.value)
    try:
        loaded = load_fn(found.path, dev)
    except FileNotFoundError as e:
        raise resolver.CheckpointUnavailable(
            f"{e}; fetch it with: {fetch_hint(spec, checkpoint_dir)}") from e
    return loaded, dev, checkpoint


def clip_record(frames_value: str, clip, h: int, r: int, defaulted: bool, dev,
                checkpoint: dict) -> dict:
    """The fields every keyframed clip binary reports about its input and model."""
    num_frames, height, width = clip.shape[:3]
    return {"frames": frames_value, "num_frames": int(num_frames),
            "frame_size": [int(width), int(height)], "h_start": h, "r_start": r,
            "keyframes_defaulted": defaulted, "device": str(dev), "checkpoint": checkpoint}


def fetch_hint(spec: resolver.CheckpointSpec, checkpoint_dir: Optional[str]) -> str:
    return spec.fetch_command(checkpoint_dir and str(cli_support.user_path(checkpoint_dir)))


def keyframes_text(record: dict) -> str:
    """The keyframes line of a text report, warning when they were defaulted."""
    text = f"h_start={record['h_start']}, r_start={record['r_start']}"
    if record["keyframes_defaulted"]:
        text += (" (DEFAULTED to N//3, 2N//3 where not given: pass --h_start/--r_start "
                 "for the clip's real keyframes)")
    return text


def checkpoint_text(checkpoint: dict) -> str:
    """One checkpoint record (from `resolve`) as text."""
    return f"{checkpoint['path']} (sha256 {checkpoint['sha256']}, {checkpoint['source']})"


def run_main(argv: Sequence[str], json_flag: flags.FlagHolder, evaluate: Callable[[], dict],
             format_text: Callable[[dict], str]) -> int:
    """A binary's main: `evaluate()` builds the record, printed as JSON or text.

    Unusable input or configuration (ConfigError, FrameInputError, a checkpoint that
    cannot be had) prints `error: ...` and returns exit code 2.
    """
    if len(argv) > 1:
        raise app.UsageError(f"unexpected arguments: {' '.join(argv[1:])}",
                             exitcode=cli_support.EXIT_BAD_INPUT)
    try:
        record = evaluate()
    except (ConfigError, frames_lib.FrameInputError, resolver.CheckpointUnavailable) as e:
        print(f"error: {e}", file=sys.stderr)
        return cli_support.EXIT_BAD_INPUT
    print(json.dumps(record) if json_flag.value else format_text(record))
    return cli_support.EXIT_OK
