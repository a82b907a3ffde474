"""Seeded random MUSIQ weights in pyiqa's checkpoint format, for tests and parity runs.

`random_state_dict(config, seed)` is a pure function of (config, seed, numpy's PCG64
stream): parameters are drawn in the order of Musiq(config).state_dict() (pyiqa's key
order) from one numpy Generator, float32, scaled so activations stay O(1) through 14
blocks: standard normal for convolutions (they are weight-standardised anyway) and for
the head's weight (so scores spread over points, not hundredths), N(0, 1 / fan_in) for
the other Linear weights, 1 + N(0, 0.1^2) for norm scales, N(0, 0.02^2) for biases and
embedding tables, and the head bias shifted by `head_bias`. `write_checkpoint`
torch-saves it as a plain state dict, the format of pyiqa's musiq_*_ckpt files.
"""

import numpy as np
import torch

from metrics.iqa import musiq

TINY = musiq.MusiqConfig(hidden_size=32, mlp_dim=48, num_heads=2, num_layers=2,
                         longer_sides=(64, 128))  # 4 + 16 resized entries, not 49 + 144


def _draw(rng: np.random.Generator, name: str, shape) -> np.ndarray:
    noise = rng.standard_normal(shape, dtype=np.float32)
    if len(shape) == 4:  # convolution weight
        return noise
    if name.endswith((".bias", "_emb", ".cls")):  # biases, embedding tables, class token
        return np.float32(0.02) * noise
    if len(shape) == 1:  # GroupNorm / LayerNorm scale
        return np.float32(1) + np.float32(0.1) * noise
    if name.startswith("head."):  # N(0, 1): scores spread over tens of points
        return noise
    return noise / np.float32(np.sqrt(shape[1]))  # Linear weight [out, in]


def random_state_dict(config: musiq.MusiqConfig = musiq.SPAQ, seed: int = 0,
                      head_bias: float = 50.0) -> dict:
    """{key: float32 tensor} with pyiqa MUSIQ's keys and shapes for `config`."""
    rng = np.random.default_rng(seed)
    state = {}
    for name, tensor in musiq.Musiq(config).state_dict().items():
        value = _draw(rng, name, tuple(tensor.shape))
        if name in ("head.bias", "head.0.bias"):
            value = value + np.float32(head_bias)
        state[name] = torch.from_numpy(value)
    return state


def write_checkpoint(path, config: musiq.MusiqConfig = musiq.SPAQ, seed: int = 0,
                     head_bias: float = 50.0) -> dict:
    """torch.saves random_state_dict(config, seed, head_bias) to `path`; returns it."""
    state = random_state_dict(config, seed, head_bias)
    torch.save(state, str(path))
    return state
