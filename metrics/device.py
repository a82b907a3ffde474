"""The torch device a model-based metric runs on."""

import torch


def resolve_device(requested: str = "auto") -> torch.device:
    """'auto' is the first CUDA device when one is visible, else the CPU.

    Raises:
      ValueError: CUDA was asked for and none is visible, or the name is not a device.
    """
    if requested in ("", "auto"):
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    try:
        device = torch.device(requested)
    except RuntimeError as e:
        raise ValueError(f"--device={requested}: expected auto, cpu, cuda or cuda:N") from e
    if device.type == "cuda" and not torch.cuda.is_available():
        raise ValueError(f"--device={requested}: no CUDA device is visible on this machine")
    return device


def to_device(tensor: torch.Tensor, device=None) -> torch.Tensor:
    """`tensor.to(device)`, value for value; a CPU tensor bound for a CUDA device is first
    copied into pinned (page-locked) host memory and sent with a non-blocking copy, so the
    host goes on while the transfer runs on the device's current stream (kernels queued
    after it on that stream see the data; the pinned buffer is kept until the copy is done).
    Nothing is pinned for any other device (None: the CPU)."""
    target = torch.device("cpu") if device is None else torch.device(device)
    if target.type == "cuda" and tensor.device.type == "cpu":
        return tensor.pin_memory().to(target, non_blocking=True)
    return tensor.to(target)
