"""Reads the official ViCLIP checkpoint into metrics.viclip.model, strictly.

The official `ViCLIP.__init__` does `torch.load(pretrain)['model']` and
`self.load_state_dict(state_dict)` (strict): the file is a dict whose 'model' entry holds
every parameter under `vision_encoder.` / `text_encoder.` plus `temp`, with the text
`positional_embedding` already at the 32-token context, and nothing is ignored or resized
on that path (the resizing helpers upstream serve other checkpoints). Other top-level
entries of the file are not read. We read it without running pickled code
(metrics.checkpoints.state_dict) and load strictly, so a missing, extra or mis-shaped key
is an error naming the file.
"""

import os

import torch

from metrics.checkpoints import state_dict as state_dict_lib
from metrics.viclip import model as model_lib

MODEL_KEY = "model"


def read_official_state(path: os.PathLike) -> dict:
    """The 'model' state dict of an official ViCLIP file.

    Raises:
        ValueError: Not a torch file, or no 'model' dict of tensors in it.
    """
    stored = state_dict_lib.read_state_dict(path)
    state = stored.get(MODEL_KEY)
    if not isinstance(state, dict):
        raise ValueError(f"{path}: expected the official ViCLIP format {{'{MODEL_KEY}': "
                         f"state_dict}}, found top-level keys {sorted(stored)[:8]}")
    return state


def load_viclip(path: os.PathLike, device="cpu",
                config: model_lib.ViClipConfig = model_lib.VICLIP_L14) -> model_lib.ViClip:
    """An eval-mode float32 ViClip on `device` with the weights of `path`.

    Raises:
        ValueError: The file is not an official ViCLIP checkpoint of `config`'s sizes.
    """
    state = read_official_state(path)
    model = model_lib.ViClip(config)
    try:
        model.load_state_dict(state, strict=True)
    except RuntimeError as e:
        raise ValueError(f"{path}: does not fit ViCLIP {config}: {e}") from e
    return model.float().to(device).eval()


def write_official(model: model_lib.ViClip, path: os.PathLike) -> None:
    """torch.saves `model` in the official file format ({'model': state_dict})."""
    state = {k: v.detach().clone() for k, v in model.state_dict().items()}
    torch.save({MODEL_KEY: state}, str(path))
