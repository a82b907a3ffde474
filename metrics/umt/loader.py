"""Loading UMT's Kinetics-400 checkpoint the way VBench does (Vchitect/VBench@45e79ec
vbench/human_action.py:45-70): `torch.load(path, map_location='cpu')`, then
`model.load_state_dict(state_dict, strict=False)` on the WHOLE loaded object (no "model"
key is looked for), then eval.

What strict=False leaves, and what this loader does about it:
  - The official file holds the network's tensors under the model's own names, as a flat
    dict. Its size (607,024,201 bytes as third parties report it) is that of every
    parameter in 16-bit floats WITHOUT `pos_embed` (3136 x 1024 more values would add
    6.4 MB): so upstream's load leaves exactly one key missing, `pos_embed`, and the
    model keeps its own interpolated sine-cosine table (metrics/umt/vit.py), which is
    also what fine-tuning leaves there (the table is added detached: it gets no
    gradient). Unexpected keys: none known; any are ignored, as upstream does.
  - `load_state_dict` copies each tensor into the float32 parameter (16-bit values are
    widened exactly).
  - Deviation, so that a score never comes from random weights: upstream runs on
    whatever strict=False left, so a file wrapped in {"model": ...} or with other key
    names would score with the random initialisation. This loader makes the same call
    and then refuses the result unless every parameter but the position table came from
    the file (`OPTIONAL`); a present `pos_embed` is loaded, as upstream would. A tensor of
    the wrong shape fails inside load_state_dict, as upstream does.
"""

import dataclasses
import os
from typing import Mapping, Tuple

import torch

from metrics.checkpoints import state_dict
from metrics.umt import vit

OPTIONAL = ("pos_embed",)  # the only key the official file may lack (module doc)


@dataclasses.dataclass(frozen=True)
class LoadReport:
    """What `load_state_dict(strict=False)` reported (sorted key names)."""
    missing_keys: Tuple[str, ...]
    unexpected_keys: Tuple[str, ...]


def read_checkpoint(path: os.PathLike) -> Mapping:
    """The object the official torch.load returns (read weights-only, memory-mapped)."""
    raw = state_dict.load(path, mmap=True, unreadable=(
        "expected a torch.save'd UMT state dict (l16_ptk710_ftk710_ftk400_f16_res224.pth)"))
    if not isinstance(raw, Mapping):
        raise ValueError(f"{path}: expected a dict of tensors, found {type(raw).__name__}")
    return raw


def load_official_state(model: vit.UmtViT, raw: Mapping, source: str) -> LoadReport:
    """`model.load_state_dict(raw, strict=False)` as upstream, refused (ValueError) when a
    parameter other than OPTIONAL's was not in `raw`; `source` names the file in errors."""
    not_tensors = sorted(k for k, v in raw.items() if not isinstance(v, torch.Tensor))
    if not_tensors:
        raise ValueError(f"{source}: expected a flat dict of tensors, found other values at "
                         f"{not_tensors[:5]} (upstream's strict=False load would leave the "
                         "network randomly initialised)")
    result = model.load_state_dict(dict(raw), strict=False)
    report = LoadReport(tuple(sorted(result.missing_keys)),
                        tuple(sorted(result.unexpected_keys)))
    essential = [k for k in report.missing_keys if k not in OPTIONAL]
    if essential:
        raise ValueError(f"{source}: {len(essential)} of the UMT network's tensors are not in "
                         f"the file (e.g. {essential[:5]}; unexpected keys "
                         f"{list(report.unexpected_keys)[:5]}); upstream's strict=False load "
                         "would score with their random initialisation")
    return report


def load_umt(path: os.PathLike, device="cpu",
             config: vit.VitConfig = vit.UMT_L16_K400) -> Tuple[vit.UmtViT, LoadReport]:
    """The eval-mode network with the file's weights on `device`, and the load report."""
    model = vit.build(config)
    report = load_official_state(model, read_checkpoint(path), str(path))
    return model.to(device).eval(), report
