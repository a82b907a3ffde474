"""Reading an OpenMMLab (mmengine) checkpoint file unchanged and loading it strictly.

mmengine saves {"meta": ..., "state_dict": {...}} (published files may also keep
"message_hub" / "optimizer" entries); its load_checkpoint takes "state_dict" when present,
else the file itself. The meta holds dataset information with numpy arrays, so the file
is read with torch's weights-only unpickler plus numpy's array reconstruction allowed.
Any other object in the file (e.g. an mmengine HistoryBuffer left in "message_hub")
is read as an inert placeholder: nothing outside torch and numpy is imported or run,
and only the tensors under "state_dict" are used. Keys load strictly: a missing or unexpected tensor raises,
so a score never comes from random weights (mmengine only warns).
"""

import pathlib
import pickle
from typing import Dict, Mapping

import numpy as np
import torch

from metrics.checkpoints import state_dict


def _numpy_globals():
    names = [np.ndarray, np.dtype]
    reconstruct = getattr(getattr(np, "_core", np.core), "multiarray")._reconstruct
    names.append(reconstruct)
    names.extend(type(np.dtype(t)) for t in ("float32", "float64", "int64", "int32",
                                              "uint8", "bool"))
    return names


class Placeholder:
    """Stands in for a non-tensor object of the file (its state is kept, never used)."""

    def __init__(self, *args, **kwargs):
        self.args, self.kwargs = args, kwargs

    def __setstate__(self, state):
        self.state = state


def _load(path: pathlib.Path, unreadable: str):
    allowed = _numpy_globals()
    try:
        return state_dict.load(path, safe_globals=allowed, unreadable=unreadable)
    except state_dict.CheckpointUnreadable as error:
        if not isinstance(error.__cause__, pickle.UnpicklingError):
            raise
        try:
            unsafe = torch.serialization.get_unsafe_globals_in_checkpoint(str(path))
        except Exception:  # not a torch file at all: the reader's error says so
            raise error from error.__cause__
        others = [name for name in unsafe if not name.startswith(("torch.", "numpy."))]
        if not others:
            raise
    stubs = [(type(name.rsplit(".", 1)[-1], (Placeholder,), {}), name) for name in others]
    return state_dict.load(path, safe_globals=allowed + stubs, unreadable=unreadable)


def read_state_dict(path, what: str) -> Dict[str, torch.Tensor]:
    """The state dict of an mmengine checkpoint file (ValueError naming the file)."""
    path = pathlib.Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"{what} checkpoint {path} does not exist")
    raw = _load(path, f"expected an OpenMMLab {what} checkpoint (torch.save'd dict with "
                      "'state_dict')")
    state = raw.get("state_dict", raw) if isinstance(raw, Mapping) else None
    if not isinstance(state, Mapping) or not all(
            isinstance(v, torch.Tensor) for v in state.values()):
        raise ValueError(f"{path}: expected an OpenMMLab {what} checkpoint, a dict of "
                         "tensors under 'state_dict'")
    return dict(state)


def load_strict(model: torch.nn.Module, state: Mapping[str, torch.Tensor], path,
                ignore_prefixes=("data_preprocessor.",)) -> None:
    """Load `state` into `model` under its own key names; raise on any mismatch."""
    state = {k: v for k, v in state.items() if not k.startswith(tuple(ignore_prefixes))}
    own = model.state_dict()
    missing = sorted(set(own) - set(state))
    unexpected = sorted(set(state) - set(own))
    wrong = sorted(k for k in set(own) & set(state) if own[k].shape != state[k].shape)
    if missing or unexpected or wrong:
        detail = "; ".join(f"{label}: {keys[:5]}{' ...' if len(keys) > 5 else ''}"
                           for label, keys in (("missing", missing),
                                               ("unexpected", unexpected),
                                               ("wrong shape", wrong)) if keys)
        raise ValueError(f"{path}: does not match the architecture ({detail})")
    model.load_state_dict(state, strict=True)
