"""Test support: seeded random CoTracker2 weights saved in the official checkpoint format.

`seeded_state_dict` draws every tensor from its own generator (seed + index in the
state-dict order), so the weights depend only on the seed, the config and torch's normal
sampler: an official-code run can load the same file. Weights are N(0, 1/fan_in), biases
N(0, 0.1^2), affine norm gains 1 + N(0, 0.1^2), the virtual tracks N(0, 1); the stored
`time_emb` and `pos_emb` tables are the model's own. `vis_bias` shifts the visibility
bias so that a random model's visibility straddles the predictor's cut.
"""

import pathlib
from typing import Dict

import torch

from metrics.tracking.cotracker2 import config as config_lib
from metrics.tracking.cotracker2 import model as model_lib

FILE_NAME = "cotracker2.pth"
_TABLES = ("time_emb", "pos_emb")


def seeded_state_dict(cfg: config_lib.CoTracker2Config = config_lib.TINY, seed: int = 0,
                      vis_bias: float = 0.0) -> Dict[str, torch.Tensor]:
    """A full state dict for `cfg` with the official key names."""
    with torch.device("meta"):
        reference = model_lib.CoTracker2(cfg).state_dict()
    state = {}
    for index, (key, value) in enumerate(reference.items()):
        shape = value.shape
        generator = torch.Generator().manual_seed(seed * 1000 + index)
        noise = torch.randn(shape, generator=generator)
        if key in _TABLES:
            state[key] = value.clone()
        elif key.endswith("virual_tracks"):
            state[key] = noise
        elif key.endswith(("norm_context.weight", "norm.weight")):
            state[key] = 1 + 0.1 * noise
        elif len(shape) > 1:
            state[key] = noise / shape[1:].numel() ** 0.5
        else:
            state[key] = 0.1 * noise
    state["vis_predictor.0.bias"] += vis_bias
    return state


def save_checkpoint(folder, cfg: config_lib.CoTracker2Config = config_lib.TINY, seed: int = 0,
                    vis_bias: float = 0.0, wrap_in_model_key: bool = False) -> pathlib.Path:
    """Writes <folder>/cotracker2.pth (a plain state dict, or {"model": ...}); returns it."""
    state = seeded_state_dict(cfg, seed, vis_bias)
    path = pathlib.Path(folder) / FILE_NAME
    torch.save({"model": state} if wrap_in_model_key else state, path)
    return path
