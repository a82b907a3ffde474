"""What the //metrics/clip binaries share: devices, checkpoints, their records."""

from typing import Optional

from metrics import cli_support
from metrics import device as device_lib
from metrics.checkpoints import resolver


class ConfigError(ValueError):
    """Unusable configuration or input; the CLI prints it as `error: ...` and exits 2."""


def resolve_device(requested: str):
    """torch.device for --device, raising ConfigError when it is not usable."""
    try:
        return device_lib.resolve_device(requested)
    except ValueError as e:
        raise ConfigError(str(e)) from e


def user_path_or_none(value: Optional[str]) -> Optional[str]:
    """A flag's path resolved against the user's directory, or None when unset."""
    return str(cli_support.user_path(value)) if value else None


def resolve_checkpoint(spec: resolver.CheckpointSpec, explicit: Optional[str],
                       checkpoint_dir: Optional[str], offline: bool) -> resolver.ResolvedCheckpoint:
    """resolver.resolve with the flags' paths; CheckpointUnavailable becomes ConfigError.

    The message keeps the resolver's fetch command.
    """
    try:
        return resolver.resolve(spec, explicit_path=user_path_or_none(explicit),
                                checkpoint_dir=user_path_or_none(checkpoint_dir),
                                offline=offline)
    except resolver.CheckpointUnavailable as e:
        raise ConfigError(str(e)) from e


def unusable_checkpoint(found: resolver.ResolvedCheckpoint, error: Exception,
                        checkpoint_dir: Optional[str]) -> ConfigError:
    """ConfigError for a checkpoint that was found but does not load, with the fetch command."""
    command = found.spec.fetch_command(user_path_or_none(checkpoint_dir))
    reason = str(error)
    prefix = f"{found.path}: "
    if reason.startswith(prefix):  # the message names the path once, not twice
        reason = reason[len(prefix):]
    return ConfigError(f"{found.path}: not a usable {found.spec.name} checkpoint "
                       f"({type(error).__name__}: {reason[:300]}); fetch it with: {command}")


def checkpoint_record(found: resolver.ResolvedCheckpoint) -> dict:
    """What the output says about a loaded checkpoint."""
    return {"name": found.spec.name, "path": str(found.path), "sha256": found.sha256,
            "source": found.source, "revision": found.revision}


def one_line(message: str) -> str:
    """`message` without line breaks, for the one-line `error: ...` contract."""
    return " ".join(str(message).split())

