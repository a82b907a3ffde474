"""princeton-vl RAFT (`raft-things.pth`, `small=False`) run on torchvision's raft_large.

The original RAFT (princeton-vl/RAFT core/raft.py, as vendored by evaluation code that
loads `raft-things.pth` into `torch.nn.DataParallel(RAFT(args))`) and torchvision's
`raft_large` are the same network: feature encoder (instance norm) and context encoder
(batch norm) of 7x7 conv + 3 x 2 residual blocks + 1x1 conv, 4-level all-pairs
correlation of radius 4, motion encoder, separable ConvGRU (1x5 then 5x1), flow head,
and the convex-upsampling mask scaled by 0.25. Only the parameter names differ. The file
is read unchanged (its "module." DataParallel prefix included) and renamed here by
`official_to_torchvision`:

    fnet / cnet                   -> feature_encoder / context_encoder
    <enc>.conv1, .norm1, .conv2   -> <enc>.convnormrelu.0, .convnormrelu.1, .conv
    <block>.conv1/.norm1          -> <block>.convnormrelu1.0/.1 (conv2/norm2 -> ...2)
    <block>.norm3                 -> dropped: the same module as <block>.downsample.1
                                     (registered twice upstream, so saved twice)
    update_block.encoder.convc1/2, convf1/2, conv
                                  -> update_block.motion_encoder.convcorr1/2.0,
                                     convflow1/2.0, conv.0
    update_block.gru.conv{z,r,q}{1,2}
                                  -> update_block.recurrent_block.convgru{1,2}.conv{z,r,q}
    update_block.mask.0 / .2      -> mask_predictor.convrelu.0 / .conv

How the original is called, and what `flow` below reproduces:
* inputs are RGB floats in 0..255; RAFT's forward maps them to 2 * (x / 255) - 1 (here
  done before calling torchvision's model, which expects [-1, 1]);
* `InputPadder(shape)` (its default "sintel" mode) pads H and W to multiples of 8 by
  replication, split as [pad // 2, pad - pad // 2] on both axes (centred, unlike
  metrics.flow.tensors' bottom/right padding);
* `model(i1, i2, iters=20, test_mode=True)` returns the upsampled flow of the last of
  20 updates: torchvision's last prediction with num_flow_updates=20.
"""

import re
from typing import Dict

import torch
import torch.nn.functional as F
from torchvision.models.optical_flow import raft_large

from metrics.checkpoints import state_dict
from metrics.flow import tensors

OFFICIAL_PREFIX = "module."
ITERATIONS = 20
SIZE_MULTIPLE = 8

_ENCODERS = {"fnet": "feature_encoder", "cnet": "context_encoder"}
_ENCODER_TOP = {"conv1": "convnormrelu.0", "norm1": "convnormrelu.1", "conv2": "conv"}
_BLOCK = {"conv1": "convnormrelu1.0", "norm1": "convnormrelu1.1",
          "conv2": "convnormrelu2.0", "norm2": "convnormrelu2.1"}
_MOTION = {"convc1": "convcorr1.0", "convc2": "convcorr2.0", "convf1": "convflow1.0",
           "convf2": "convflow2.0", "conv": "conv.0"}
_MASK = {"0": "mask_predictor.convrelu.0", "2": "mask_predictor.conv"}


def official_key_to_torchvision(key: str):
    """The torchvision raft_large name of one official key (without "module."), or None
    for `norm3` (a duplicate of `downsample.1`).

    Raises:
        ValueError: A key that is not part of RAFT (large).
    """
    m = re.fullmatch(r"([fc]net)\.(conv1|norm1|conv2)\.(\w+)", key)
    if m:
        return f"{_ENCODERS[m[1]]}.{_ENCODER_TOP[m[2]]}.{m[3]}"
    m = re.fullmatch(r"([fc]net)\.(layer[123]\.[01])\.(\w+)\.(.+)", key)
    if m:
        if m[3] == "norm3":
            return None
        if m[3] == "downsample":
            return f"{_ENCODERS[m[1]]}.{m[2]}.downsample.{m[4]}"
        if m[3] in _BLOCK:
            return f"{_ENCODERS[m[1]]}.{m[2]}.{_BLOCK[m[3]]}.{m[4]}"
    m = re.fullmatch(r"update_block\.encoder\.(\w+)\.(weight|bias)", key)
    if m and m[1] in _MOTION:
        return f"update_block.motion_encoder.{_MOTION[m[1]]}.{m[2]}"
    m = re.fullmatch(r"update_block\.gru\.conv([zrq])([12])\.(weight|bias)", key)
    if m:
        return f"update_block.recurrent_block.convgru{m[2]}.conv{m[1]}.{m[3]}"
    m = re.fullmatch(r"update_block\.flow_head\.(conv[12]\.(?:weight|bias))", key)
    if m:
        return f"update_block.flow_head.{m[1]}"
    m = re.fullmatch(r"update_block\.mask\.([02])\.(weight|bias)", key)
    if m:
        return f"{_MASK[m[1]]}.{m[2]}"
    raise ValueError(f"{key!r} is not a parameter of RAFT (small=False)")


def official_to_torchvision(state: Dict[str, torch.Tensor], source="state dict"
                            ) -> Dict[str, torch.Tensor]:
    """Renames an official `raft-things.pth` state dict for torchvision's raft_large.

    Raises:
        ValueError: A key without the "module." prefix or unknown to RAFT, two keys
            mapping to one name, or a `norm3` that differs from its `downsample.1`.
    """
    out = {}
    for full_key, value in state.items():
        if not full_key.startswith(OFFICIAL_PREFIX):
            raise ValueError(f"{source}: key {full_key!r} lacks the {OFFICIAL_PREFIX!r} prefix "
                             "of the official DataParallel checkpoint")
        key = full_key[len(OFFICIAL_PREFIX):]
        name = official_key_to_torchvision(key)
        if name is None:
            twin = state.get(full_key.replace(".norm3.", ".downsample.1."))
            if twin is None or not torch.equal(twin, value):
                raise ValueError(f"{source}: {full_key} does not equal its downsample.1 twin")
            continue
        if name in out:
            raise ValueError(f"{source}: two keys map to {name}")
        out[name] = value
    return out


def load_raft_things(checkpoint_path, device) -> torch.nn.Module:
    """Loads `raft-things.pth` (official keys) into raft_large, strictly, in eval mode.

    Raises:
        ValueError: Not a readable torch state dict, or keys/shapes that do not fit.
    """
    state = state_dict.read_state_dict(checkpoint_path)
    model = raft_large(weights=None, progress=False)
    try:
        model.load_state_dict(official_to_torchvision(state, checkpoint_path), strict=True)
    except RuntimeError as e:
        raise ValueError(f"{checkpoint_path}: does not fit RAFT (large): {e}") from e
    return model.to(device).eval()


def flow(model: torch.nn.Module, image1: torch.Tensor, image2: torch.Tensor,
         iterations: int = ITERATIONS) -> torch.Tensor:
    """The original RAFT's test-mode `flow_up` on InputPadder-padded frames.

    Args:
        model: load_raft_things' model, on the images' device.
        image1, image2: (B, 3, H, W) RGB float tensors in 0..255.
        iterations: Flow updates (the original's `iters`).

    Returns:
        (B, 2, H', W') flow at the PADDED size H' x W' (not unpadded), x then y.
    """
    pad = tensors.centred_padding(*image1.shape[-2:], SIZE_MULTIPLE)
    image1 = 2 * (F.pad(image1, pad, mode="replicate") / 255.0) - 1.0
    image2 = 2 * (F.pad(image2, pad, mode="replicate") / 255.0) - 1.0
    with torch.no_grad():
        return model(image1.contiguous(), image2.contiguous(), num_flow_updates=iterations)[-1]
