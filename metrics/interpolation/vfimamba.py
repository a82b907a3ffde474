"""VFIMamba (Zhang et al., NeurIPS 2024; github.com/MCG-NJU/VFIMamba at 8df805e): the
model at a given size, loading its released checkpoint unchanged, and midpoint inference
as `Trainer_finetune.Model.inference(img0, img1, local, TTA, timestep, scale=0, fast_TTA)`.

Architecture: `config(F, depth)` gives what the official `init_model_config(F, W, depth)`
feeds the two constructors (only the entries they read). The released `VFIMamba.pkl` is
F=32, depth (2, 2, 2, 3, 3) (FULL); `VFIMamba_S.pkl` is F=16 with the same depths.

Checkpoint (`load_state`, the official `convert` + `load_state_dict(strict=True)`): the
file is a torch-pickled dict saved from a DistributedDataParallel model; only keys that
contain `module.` are kept, every `module.` in them is removed, and keys containing
`attn_mask` or `HW` are dropped; the rest must be exactly the model's tensors.

Inference (`interpolate`): the frame pair is padded (replicate) to multiples of 32 with
the official InputPadder (benchmark/utils/padder.py; half the padding before, the rest
after), run as a batch of the pair and its 180-degree rotation (fast_TTA), the rotated
prediction is rotated back and the two averaged, and the padding is cropped.
"""

import dataclasses
import pathlib
from typing import Dict, Mapping, Tuple

import numpy as np
import torch
from torch.nn import functional as F

from metrics.checkpoints import state_dict
from metrics.interpolation import vfimamba_backbone
from metrics.interpolation import vfimamba_flow

PAD_DIVISOR = 32
CONV_STAGES = 3
LOCAL_NUM = 2


@dataclasses.dataclass(frozen=True)
class VfimambaConfig:
    F: int = 32
    depth: Tuple[int, ...] = (2, 2, 2, 3, 3)

    def backbone_args(self) -> dict:
        return dict(embed_dims=[(2 ** i) * self.F for i in range(len(self.depth))],
                    depths=list(self.depth), conv_stages=CONV_STAGES)

    def flow_args(self) -> dict:
        stages = len(self.depth)
        return dict(embed_dims=[(2 ** i) * self.F for i in range(stages)],
                    scales=[4 * (2 ** i) for i in range(stages - 2)],
                    hidden_dims=[4 * self.F for _ in range(stages - 3)], c=self.F,
                    local_hidden_dims=4 * self.F, local_num=LOCAL_NUM)


FULL = VfimambaConfig()
# Tests only: every stage kept, widths divided by 8, one block per stage.
TINY = VfimambaConfig(F=4, depth=(1, 1, 1, 1, 1))


def build(config: VfimambaConfig = FULL) -> vfimamba_flow.MultiScaleFlow:
    """The network with torch's default initialisation, in eval mode."""
    backbone = vfimamba_backbone.MambaFeature(**config.backbone_args())
    return vfimamba_flow.MultiScaleFlow(backbone, **config.flow_args()).eval()


def official_keys(raw: Mapping) -> Dict[str, torch.Tensor]:
    """The official `convert`: `module.` keys only, `module.` removed, no attn_mask/HW."""
    return {k.replace("module.", ""): v for k, v in raw.items()
            if "module." in k and "attn_mask" not in k and "HW" not in k}


def load_state(model: vfimamba_flow.MultiScaleFlow, path) -> None:
    """Loads a VFIMamba checkpoint file into `model` as the official loader does.

    Raises:
        FileNotFoundError: no such file.
        ValueError: not a dict of tensors, no `module.` keys, or keys/shapes that are not
            this model's (the message names the file and the first offending keys).
    """
    path = pathlib.Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"VFIMamba checkpoint {path} does not exist")
    raw = state_dict.load(path, unreadable="expected a torch-saved VFIMamba state dict")
    if not isinstance(raw, Mapping):
        raise ValueError(f"{path}: expected a dict of tensors, found {type(raw).__name__}")
    state = official_keys(raw)
    if not state:
        raise ValueError(f"{path}: no key contains 'module.' (the official loader keeps only "
                         f"those; found e.g. {list(raw)[:3]})")
    expected = model.state_dict()
    missing = [k for k in expected if k not in state]
    unexpected = [k for k in state if k not in expected]
    wrong = [f"{k} {tuple(state[k].shape)} (needs {tuple(v.shape)})"
             for k, v in expected.items()
             if k in state and (not isinstance(state[k], torch.Tensor)
                                or tuple(state[k].shape) != tuple(v.shape))]
    if missing or unexpected or wrong:
        raise ValueError(f"{path}: not a checkpoint of this VFIMamba config: missing "
                         f"{missing[:5]}, unexpected {unexpected[:5]}, wrong shapes {wrong[:5]}")
    model.load_state_dict(state, strict=True)


def load(path, config: VfimambaConfig = FULL, device="cpu") -> vfimamba_flow.MultiScaleFlow:
    """build(config) with the file's weights, on `device`, eval mode, no gradients."""
    model = build(config)
    load_state(model, path)
    model.requires_grad_(False)
    return model.to(torch.device(device)).eval()


def padding(height: int, width: int, divisor: int = PAD_DIVISOR) -> Tuple[int, int, int, int]:
    """The official InputPadder's (left, right, top, bottom)."""
    pad_h = (((height // divisor) + 1) * divisor - height) % divisor
    pad_w = (((width // divisor) + 1) * divisor - width) % divisor
    return pad_w // 2, pad_w - pad_w // 2, pad_h // 2, pad_h - pad_h // 2


def pad_pair(frame0: torch.Tensor, frame1: torch.Tensor):
    """The (1, 6, H', W') padded pair and the (left, right, top, bottom) padding."""
    pads = padding(*frame0.shape[-2:])
    return torch.cat([F.pad(frame0, list(pads), mode="replicate"),
                      F.pad(frame1, list(pads), mode="replicate")], 1), pads


@torch.no_grad()
def interpolate(model: vfimamba_flow.MultiScaleFlow, frame0: torch.Tensor,
                frame1: torch.Tensor, local: bool = True, timestep: float = 0.5,
                tta: bool = True) -> torch.Tensor:
    """The middle frame of one pair.

    Args:
        model: from load() or build().
        frame0, frame1: (1, 3, H, W) float tensors in [0, 1] (channel order as given; the
            caller decides, the model is channel-order agnostic only in shape).
        local: run the local refinement blocks (the official `local` argument).
        timestep: the official `timestep` (0.5 for the midpoint).
        tta: the official fast_TTA (the pair and its 180-degree rotation in one batch).

    Returns:
        (1, 3, H, W) in [0, 1].
    """
    for name, frame in (("frame0", frame0), ("frame1", frame1)):
        if frame.ndim != 4 or frame.shape[:2] != (1, 3):
            raise ValueError(f"{name} must be (1, 3, H, W), got {tuple(frame.shape)}")
    if frame0.shape != frame1.shape:
        raise ValueError(f"frame shapes differ: {tuple(frame0.shape)} vs {tuple(frame1.shape)}")
    pair, (left, right, top, bottom) = pad_pair(frame0, frame1)
    if tta:
        preds = model(torch.cat([pair, pair.flip(2).flip(3)], 0), local=local, timestep=timestep)
        pred = (preds[0] + preds[1].flip(1).flip(2)).unsqueeze(0) / 2.0
    else:
        pred = model(pair, local=local, timestep=timestep)
    return pred[..., top:pred.shape[-2] - bottom, left:pred.shape[-1] - right]


def parameter_count(model) -> int:
    return sum(p.numel() for p in model.state_dict().values())


def frame_to_tensor(frame: np.ndarray, device="cpu") -> torch.Tensor:
    """(H, W, 3) uint8 -> (1, 3, H, W) float32 / 255 on `device` (torch.tensor(x) / 255.)."""
    return (torch.from_numpy(frame.transpose(2, 0, 1).copy()).to(device) / 255.0).unsqueeze(0)


def tensor_to_frame(pred: torch.Tensor) -> np.ndarray:
    """(1, 3, H, W) in [0, 1] -> (H, W, 3) uint8 by (x * 255).astype(uint8): truncation,
    as the official code, not rounding."""
    return (pred[0].detach().cpu().numpy().transpose(1, 2, 0) * 255.0).astype(np.uint8)

