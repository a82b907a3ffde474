"""Test support: a tiny seeded SEA-RAFT state dict in the official file layout.

The constructor's initialisation gives a near-trivial function (layer scale 1e-6,
BatchNorm running statistics 0/1), so every tensor gets seeded noise: weights and
biases N(0, std), layer scales N(0, 0.5), BatchNorm running variances in [0.5, 1.5].
The result is saved as the official training script saves it (`torch.save` of the
plain state dict, names unchanged) or as a `PyTorchModelHubMixin` upload stores it
(`safetensors.torch.save_model`, which keeps ONE name of each shared tensor: the
sorted-first `bn3.*`, dropping `downsample.1.*`).
"""

import pathlib

import torch

from metrics.flow.sea_raft import config as config_lib
from metrics.flow.sea_raft import model as model_lib


def seeded_state_dict(config: config_lib.SeaRaftConfig, seed: int = 0,
                      std: float = 0.2) -> dict:
    generator = torch.Generator().manual_seed(seed)
    state = {}
    for key, value in model_lib.SeaRaft(config).state_dict().items():
        if key.endswith("num_batches_tracked"):
            state[key] = value.clone()
        elif key.endswith("running_var"):
            state[key] = 0.5 + torch.rand(value.shape, generator=generator)
        elif key.endswith("gamma"):
            state[key] = 0.5 * torch.randn(value.shape, generator=generator)
        else:
            state[key] = std * torch.randn(value.shape, generator=generator)
    # The shortcut BatchNorm is one module under two names: keep its copies equal.
    for key in list(state):
        if ".bn3." in key:
            state[key.replace(".bn3.", ".downsample.1.")] = state[key]
    return state


def save(state: dict, path, config: config_lib.SeaRaftConfig = None) -> pathlib.Path:
    """`.safetensors`: through a model of `config` (default: inferred from nothing, so
    pass it), as the hub mixin saves; anything else: torch.save of the dict."""
    path = pathlib.Path(path)
    if path.suffix == ".safetensors":
        from safetensors.torch import save_model  # pylint: disable=import-outside-toplevel
        if config is None:
            raise ValueError("saving .safetensors needs the config the state dict is of")
        net = model_lib.SeaRaft(config)
        net.load_state_dict(state, strict=True)
        save_model(net, str(path))
    else:
        torch.save(state, path)
    return path
