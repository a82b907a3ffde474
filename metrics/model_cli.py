"""What the model-based metric binaries share: keyframes, device and checkpoints.

Each binary keeps its own flags; these turn flag values into checked settings with the
same messages everywhere (ConfigError and CheckpointUnavailable both mean exit 2).
"""

from typing import Optional, Tuple

from metrics import cli_support
from metrics import device as device_lib
from metrics.checkpoints import resolver
from metrics.video import sampling


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
