"""The one checkpoint reader: every torch-saved checkpoint worldeval loads goes through
`load` (CPU, `weights_only=True`: no pickled code runs), and every unreadable file
(truncated, corrupt, not a torch file, holding pickled code) raises one error,
CheckpointUnreadable, naming the file. Callers keep their own checks of what is inside
(nested "model" keys, key names) and, where they have one, their wording.
"""

import os
import pathlib
from typing import Dict, Iterable, Optional

import torch

DEFAULT_UNREADABLE = "not a readable torch file"


class CheckpointUnreadable(ValueError):
    """A checkpoint file that torch.load(weights_only=True) cannot read; names the file."""

    def __init__(self, path: os.PathLike, reason: str, error: BaseException):
        self.path = str(path)
        first_line = (str(error).splitlines() or [""])[0][:200]
        super().__init__(f"{path}: {reason} ({type(error).__name__}: {first_line})")


def load(path: os.PathLike, *, mmap: bool = False, safe_globals: Iterable = (),
         unreadable: str = DEFAULT_UNREADABLE) -> object:
    """What `path` holds, read by `torch.load(map_location="cpu", weights_only=True)`.

    Args:
      path: the checkpoint file.
      mmap: memory-map the file where it is in torch's zip format (a multi-GB file is
        then not held twice); a legacy-format file is read whole.
      safe_globals: classes the weights-only unpickler may also build (e.g.
        argparse.Namespace in training checkpoints).
      unreadable: what the error says after the file name (a caller's own wording).

    Raises:
      FileNotFoundError: there is no such file.
      CheckpointUnreadable: (a ValueError) the file is not a readable weights-only torch
        file: truncated, corrupt, another format, or it holds pickled code.
    """
    path = pathlib.Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"{path}: no such checkpoint file")
    try:
        with torch.serialization.safe_globals(list(safe_globals)):
            if mmap:
                try:
                    return torch.load(str(path), map_location="cpu", weights_only=True,
                                      mmap=True)
                except RuntimeError as error:
                    if "mmap" not in str(error):
                        raise
            return torch.load(str(path), map_location="cpu", weights_only=True)
    except Exception as error:  # torch raises several kinds for a damaged or unsafe file
        raise CheckpointUnreadable(path, unreadable, error) from error


def read_state_dict(path: os.PathLike, *, key: Optional[str] = None, mmap: bool = False,
                    unreadable: str = DEFAULT_UNREADABLE) -> Dict[str, object]:
    """The dict stored at `path` (see `load`), or its `key` entry (e.g. "model").

    Raises:
      FileNotFoundError: there is no such file.
      CheckpointUnreadable: (a ValueError) the file is not a readable torch file.
      ValueError: the file holds something else than a dict (with a dict under `key`).
    """
    state = load(path, mmap=mmap, unreadable=unreadable)
    if not isinstance(state, dict):
        raise ValueError(f"{path}: expected a state dict, found {type(state).__name__}")
    if key is not None:
        if not isinstance(state.get(key), dict):
            raise ValueError(f"{path}: expected a state dict under {key!r}; got keys "
                             f"{list(state)[:5]}")
        state = state[key]
    return state
