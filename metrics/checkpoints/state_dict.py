"""Reading a checkpoint that is a torch-saved state dict, without running pickled code."""

import os
import pickle
import struct
from typing import Dict

import torch


def read_state_dict(path: os.PathLike) -> Dict[str, object]:
    """The dict stored at `path` (`torch.load(weights_only=True)` on the CPU).

    Raises:
        ValueError: The file is not a readable torch file, or holds something else.
    """
    try:
        state = torch.load(str(path), map_location="cpu", weights_only=True)
    except (pickle.UnpicklingError, EOFError, RuntimeError, struct.error) as e:  # struct: b"junk"
        raise ValueError(f"{path}: not a readable torch file ({e})") from e
    if not isinstance(state, dict):
        raise ValueError(f"{path}: expected a state dict, found {type(state).__name__}")
    return state
