"""Loading a VideoMAE v2 fine-tuning checkpoint the way its fine-tuning entry point
(`run_class_finetuning.py`, `--finetune`) does, read and described here:

  1. the state dict is the first of `model_key` ("model|module") present in the file,
     else the file itself;
  2. a leading `_orig_mod.` (torch.compile) is removed from every key;
  3. a head (`head.weight`, `head.bias`) whose shape differs from the model's is dropped
     (the check runs before step 4, so a prefixed head is never dropped);
  4. one leading `backbone.` or else `encoder.` is removed;
  5. a `pos_embed` whose spatial grid differs from the model's is resampled: tokens
     viewed as (T', g, g, C) with T' = frames // tubelet, each of the T' grids bicubic
     (align_corners False) to the model's grid, flattened back to (1, T' g'^2, C);
  6. the tensors are loaded non-strictly (unknown keys are ignored).

A fixed sine-cosine position table is not a parameter, so a checkpoint's `pos_embed`
is one of those ignored keys for such a model (resampled or not): the model keeps its
own table. Deviations, so that a score never comes from random weights: where the
official code prints a warning and keeps the random initialisation (a head of another
shape dropped in step 3, model tensors the file does not have), this loader raises.
"""

import argparse
import dataclasses
import pathlib
from typing import Dict, List, Mapping, Tuple

import torch
from torch.nn import functional as F

from metrics.checkpoints import state_dict
from metrics.videomae import vit

HEAD_KEYS = ("head.weight", "head.bias")


@dataclasses.dataclass(frozen=True)
class LoadReport:
    state_key: str            # "model", "module" or "" (the file itself)
    ignored_keys: Tuple[str, ...]   # in the file, not in the model (official: unused)
    resampled_pos_embed: bool


def read_checkpoint(path) -> Mapping:
    path = pathlib.Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"VideoMAE checkpoint {path} does not exist")
    # Fine-tuning checkpoints also hold the run's argparse.Namespace under "args".
    raw = state_dict.load(
        path, mmap=True, safe_globals=[argparse.Namespace],
        unreadable="expected a torch.save'd VideoMAE v2 checkpoint (a dict of tensors, "
                   "optionally under 'model'/'module')")
    if not isinstance(raw, Mapping):
        raise ValueError(f"{path}: expected a dict, found {type(raw).__name__}")
    return raw


def select_state(raw: Mapping, model_key: str = "model|module") -> Tuple[str, Dict]:
    """Steps 1 and 2: the chosen state dict (a copy) and the key it was under."""
    for key in model_key.split("|"):
        if key in raw:
            chosen, state = key, raw[key]
            break
    else:
        chosen, state = "", raw
    if not isinstance(state, Mapping):
        raise ValueError(f"expected a state dict under {chosen!r}, found {type(state).__name__}")
    return chosen, {(k[len("_orig_mod."):] if k.startswith("_orig_mod.") else k): v
                    for k, v in state.items()}


def strip_prefixes(state: Mapping) -> Dict:
    """Step 4: one `backbone.`, else one `encoder.`, removed."""
    out = {}
    for key, value in state.items():
        for prefix in ("backbone.", "encoder."):
            if key.startswith(prefix):
                key = key[len(prefix):]
                break
        out[key] = value
    return out


def resample_pos_embed(table: torch.Tensor, config: vit.VitConfig) -> torch.Tensor:
    """Step 5 on a (1, T' g^2, C) table (no extra tokens in these models)."""
    steps = config.frames // config.tubelet_size
    old = int((table.shape[-2] // steps) ** 0.5)
    new = int((config.num_patches // steps) ** 0.5)
    if old == new:
        return table
    channels = table.shape[-1]
    grids = table.reshape(-1, steps, old, old, channels).reshape(-1, old, old, channels)
    grids = F.interpolate(grids.permute(0, 3, 1, 2), size=(new, new), mode="bicubic",
                          align_corners=False)
    return grids.permute(0, 2, 3, 1).reshape(-1, steps, new, new, channels).flatten(1, 3)


def load_official_state(model: vit.VideoClassifierViT, raw: Mapping, source: str,
                        model_key: str = "model|module") -> LoadReport:
    """Steps 1-6 into `model`; `source` names the file in errors."""
    try:
        chosen, state = select_state(raw, model_key)
    except ValueError as error:
        raise ValueError(f"{source}: {error}") from error
    expected = model.state_dict()
    for key in HEAD_KEYS:
        if key in state and tuple(state[key].shape) != tuple(expected[key].shape):
            raise ValueError(f"{source}: {key} has shape {tuple(state[key].shape)}, the model "
                             f"needs {tuple(expected[key].shape)} (the official loader would "
                             f"drop it and score with a random head)")
    state = strip_prefixes(state)
    resampled = False
    if "pos_embed" in state:
        table = resample_pos_embed(state["pos_embed"], model.config)
        resampled = table is not state["pos_embed"]
        state["pos_embed"] = table
    missing: List[str] = [k for k in expected if k not in state]
    if missing:
        raise ValueError(f"{source}: expected the VideoMAE v2 classifier's tensors, "
                         f"{len(missing)} missing (e.g. {missing[:5]}); the official loader "
                         f"would leave them randomly initialised")
    not_tensors = [k for k in expected if not isinstance(state[k], torch.Tensor)]
    if not_tensors:
        raise ValueError(f"{source}: expected tensors, found other values at {not_tensors[:5]}")
    wrong = [f"{k} {tuple(state[k].shape)} (needs {tuple(v.shape)})"
             for k, v in expected.items() if tuple(state[k].shape) != tuple(v.shape)]
    if wrong:
        raise ValueError(f"{source}: tensors of the wrong shape for this model config: "
                         f"{wrong[:5]}")
    result = model.load_state_dict({k: state[k] for k in expected}, strict=True)
    assert not result.missing_keys and not result.unexpected_keys
    ignored = tuple(sorted(k for k in state if k not in expected))
    return LoadReport(chosen, ignored, resampled)
