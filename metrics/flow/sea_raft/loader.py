"""Loading an official SEA-RAFT checkpoint unchanged.

The official files are the training script's `model.module.state_dict()` saved with
`torch.save` (`.pth`, e.g. `Tartan-C-T-TSKH-spring540x960-M.pth`) or the same tensors
as `model.safetensors` of a `PyTorchModelHubMixin` upload. Both hold the official
parameter names, which `SeaRaft` uses, so the state dict loads as it is. One detail:
the shortcut BatchNorm of a strided block is one module registered under two names
(`bn3` and `downsample.1`); `torch.save` keeps both names, while the hub's safetensors
file keeps one of each shared tensor (`safetensors.torch.save_model`), which
`safetensors.torch.load_model` fills back in. `fill_shared_aliases` does the same here.

Deviation, so that a flow never comes from random weights: the official `load_ckpt`
calls `load_state_dict(strict=False)` (a missing or misnamed tensor silently keeps the
constructor's initialisation: ImageNet ResNet weights in the encoders, random
elsewhere); this loader is strict and names what is missing, unexpected or misshapen.
"""

import pathlib
from typing import Dict, Mapping, Optional

import torch

from metrics.checkpoints import state_dict
from metrics.flow.sea_raft import config as config_lib
from metrics.flow.sea_raft import model as model_lib


def read_state_dict(path) -> Dict[str, torch.Tensor]:
    """The tensors of a `.pth` (torch.save'd dict) or `.safetensors` file."""
    path = pathlib.Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"SEA-RAFT checkpoint {path} does not exist")
    unreadable = "expected a SEA-RAFT state dict (torch.save'd .pth or .safetensors)"
    if path.suffix == ".safetensors":
        from safetensors.torch import load_file  # pylint: disable=import-outside-toplevel
        try:
            state = load_file(str(path))
        except Exception as error:
            raise ValueError(f"{path}: {unreadable}: {error}") from error
    else:
        state = state_dict.load(path, unreadable=unreadable)
    if not isinstance(state, Mapping) or not all(
            isinstance(v, torch.Tensor) for v in state.values()):
        raise ValueError(f"{path}: expected a flat dict of tensors (the official "
                         f"`model.module.state_dict()`), found {type(state).__name__}")
    return dict(state)


def fill_shared_aliases(model: torch.nn.Module, state: Mapping[str, torch.Tensor]
                        ) -> Dict[str, torch.Tensor]:
    """Adds the missing names of tensors the model shares between names (same storage)."""
    groups: Dict[tuple, list] = {}
    for key, value in model.state_dict(keep_vars=True).items():
        groups.setdefault((value.data_ptr(), tuple(value.shape), value.dtype), []).append(key)
    filled = dict(state)
    for names in groups.values():
        present = [k for k in names if k in filled]
        if present and len(names) > 1:
            for key in names:
                filled.setdefault(key, filled[present[0]])
    return filled


def check_state_dict(model: torch.nn.Module, state: Mapping[str, torch.Tensor],
                     source: str) -> None:
    """Raises ValueError naming missing, unexpected and misshapen tensors."""
    expected = model.state_dict()
    missing = [k for k in expected if k not in state]
    unexpected = [k for k in state if k not in expected]
    wrong = [f"{k} {tuple(state[k].shape)} (needs {tuple(v.shape)})"
             for k, v in expected.items() if k in state and state[k].shape != v.shape]
    if missing or unexpected or wrong:
        raise ValueError(
            f"{source}: not a SEA-RAFT checkpoint of this config ({model.config}): "
            f"{len(missing)} missing (e.g. {missing[:4]}), {len(unexpected)} unexpected "
            f"(e.g. {unexpected[:4]}), {len(wrong)} of the wrong shape (e.g. {wrong[:3]})")


def load_sea_raft(path, device, config: Optional[config_lib.SeaRaftConfig] = None
                  ) -> model_lib.SeaRaft:
    """Builds SEA-RAFT (`config`, default the full-size spring-M) and loads `path` strictly.

    Args:
        path: The official `.pth` or `.safetensors` file.
        device: torch.device or string the model is moved to.
        config: The architecture; default `config.SPRING_M`.

    Returns:
        The model in eval mode on `device`.

    Raises:
        FileNotFoundError: No file at `path`.
        ValueError: Not a state dict, or its names/shapes do not match `config`.
    """
    config = config_lib.SPRING_M if config is None else config
    state = read_state_dict(path)
    model = model_lib.SeaRaft(config)
    state = fill_shared_aliases(model, state)
    check_state_dict(model, state, str(path))
    model.load_state_dict(state, strict=True)
    return model.to(device).eval()
