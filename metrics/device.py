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
