"""Test support: seeded random CoTracker3 weights saved in the official checkpoint format.

`seeded_state_dict` draws every tensor from its own generator (seed + index in the
state-dict order), so the weights depend only on the seed, the config and torch's normal
sampler, not on module construction order: an official-code run can load the same file.
Weights are N(0, 1/fan_in) (so activations keep their scale through the random network),
biases N(0, 0.1^2), affine norm gains 1 + N(0, 0.1^2), the virtual tracks N(0, 1), and the
time embedding is the model's own sin/cos table. `vis_bias` shifts the visibility logit
bias so that a random model's sigmoid(visibility) straddles the predictor's 0.9 cut.
"""

import pathlib
from typing import Dict

import torch

from metrics.tracking.cotracker3 import config as config_lib
from metrics.tracking.cotracker3 import correlation
from metrics.tracking.cotracker3 import model as model_lib

FILE_NAME = "scaled_offline.pth"


def seeded_state_dict(cfg: config_lib.CoTracker3Config = config_lib.TINY, seed: int = 0,
                      vis_bias: float = 0.0) -> Dict[str, torch.Tensor]:
    """A full state dict for `cfg` with the official key names."""
    with torch.device("meta"):
        shapes = {k: v.shape for k, v in model_lib.CoTracker3Offline(cfg).state_dict().items()}
    state = {}
    for index, (key, shape) in enumerate(shapes.items()):
        generator = torch.Generator().manual_seed(seed * 1000 + index)
        noise = torch.randn(shape, generator=generator)
        if key == "time_emb":
            state[key] = correlation.sincos_time_embedding(cfg.input_dim, cfg.window_len)
        elif key.endswith("virual_tracks"):
            state[key] = noise
        elif key.endswith("norm_context.weight"):
            state[key] = 1 + 0.1 * noise
        elif len(shape) > 1:
            state[key] = noise / shape[1:].numel() ** 0.5
        else:
            state[key] = 0.1 * noise
    state["updateformer.vis_conf_head.bias"][0] += vis_bias
    return state


def save_checkpoint(folder, cfg: config_lib.CoTracker3Config = config_lib.TINY, seed: int = 0,
                    vis_bias: float = 0.0, wrap_in_model_key: bool = False) -> pathlib.Path:
    """Writes <folder>/scaled_offline.pth (a plain state dict, or {"model": ...}); returns it."""
    state = seeded_state_dict(cfg, seed, vis_bias)
    path = pathlib.Path(folder) / FILE_NAME
    torch.save({"model": state} if wrap_in_model_key else state, path)
    return path
