"""What the model-based metric binaries share: keyframes, device and checkpoints.

Each binary keeps its own flags; these turn flag values into checked settings with the
same messages everywhere (ConfigError and CheckpointUnavailable both mean exit 2).
"""

import dataclasses
from typing import Optional, Tuple

from absl import flags

from metrics import cli_support
from metrics import device as device_lib
from metrics.checkpoints import resolver
from metrics.video import sampling


@dataclasses.dataclass(frozen=True)
class ClipFlags:
    """The flags that name a clip and its MemoBench keyframes."""

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


class ConfigError(ValueError):
    """Unusable configuration: keyframes out of range or a bad --device."""


def keyframes(num_frames: int, h_value: Optional[int],
              r_value: Optional[int]) -> Tuple[int, int, bool]:
    """(h, r, defaulted): --h_start/--r_start, else N//3 and 2N//3, checked against N."""
    defaulted = h_value is None or r_value is None
    h = num_frames // 3 if h_value is None else h_value
    r = 2 * num_frames // 3 if r_value is None else r_value
    try:
        sampling.phase_ranges(h, r, num_frames)
    except ValueError as e:
        raise ConfigError(f"--h_start/--r_start: {e}") from e
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


def fetch_hint(spec: resolver.CheckpointSpec, checkpoint_dir: Optional[str]) -> str:
    return spec.fetch_command(checkpoint_dir and str(cli_support.user_path(checkpoint_dir)))
