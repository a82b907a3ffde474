"""Tiny random RTMDet / RTMPose checkpoints in the official mmengine file format (tests).

The files look like OpenMMLab's releases: {"meta": {... numpy arrays ...}, "state_dict":
{backbone.*, neck.*, bbox_head.* | head.*}}, with random weights and BatchNorm statistics.
"""

import numpy as np
import torch

from metrics.pose import cspnext
from metrics.pose import rtmdet
from metrics.pose import rtmpose

_TINY_BACKBONE = dict(deepen_factor=0.33, widen_factor=0.125)
TINY_RTMDET = rtmdet.RtmdetConfig(backbone=cspnext.CSPNeXtConfig(**_TINY_BACKBONE),
                                  neck_out=16, neck_blocks=1, feat_channels=16)
TINY_RTMPOSE = rtmpose.RtmposeConfig(
    backbone=cspnext.CSPNeXtConfig(out_indices=(4,), **_TINY_BACKBONE), hidden_dims=32, s=16)


def randomise(model: torch.nn.Module, seed: int, cls_bias: float = 0.0,
              cls_weight_scale: float = 30.0) -> None:
    """Seeded random weights and BatchNorm statistics with unit-scale activations; the
    detector's class logits scaled so that scores spread over (0, 1)."""
    gen = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for name, tensor in model.state_dict().items():
            if name.endswith("num_batches_tracked"):
                continue
            if name.endswith("running_var"):
                tensor.copy_(torch.rand(tensor.shape, generator=gen) + 0.5)
            elif name.endswith(("bn.weight", ".g", "res_scale.scale", "gamma")):
                tensor.copy_(torch.rand(tensor.shape, generator=gen) + 0.5)
            elif tensor.dim() >= 2:  # conv / linear weights: unit-variance outputs
                fan_in = tensor[0].numel()
                tensor.copy_(torch.randn(tensor.shape, generator=gen) / fan_in ** 0.5)
            else:
                tensor.copy_(torch.randn(tensor.shape, generator=gen) * 0.2)
        for name, tensor in model.state_dict().items():  # boxes of 1-4 strides, varied scores
            if name.startswith(("bbox_head.rtm_cls", "bbox_head.rtm_reg")) \
                    and name.endswith("weight"):
                tensor.mul_(cls_weight_scale if "rtm_cls" in name else 0.3)
            elif name.startswith("bbox_head.rtm_cls"):
                tensor.fill_(cls_bias)
            elif name.startswith("bbox_head.rtm_reg"):
                tensor.copy_(torch.rand(tensor.shape, generator=gen) * 1.2)  # exp: 1-3.3 strides


def _save(model: torch.nn.Module, path) -> None:
    meta = {"dataset_meta": {"sigmas": np.linspace(0.025, 0.089, 17, dtype=np.float32)},
            "mmengine_version": "0.10.3"}
    torch.save({"meta": meta, "state_dict": model.state_dict()}, str(path))


def save_tiny_rtmdet(path, seed: int = 0, cls_bias: float = 0.0,
                     config: rtmdet.RtmdetConfig = TINY_RTMDET) -> rtmdet.RTMDet:
    model = rtmdet.RTMDet(config).eval()
    randomise(model, seed, cls_bias)
    _save(model, path)
    return model


def save_tiny_rtmpose(path, seed: int = 0,
                      config: rtmpose.RtmposeConfig = TINY_RTMPOSE) -> rtmpose.TopdownRTMPose:
    model = rtmpose.TopdownRTMPose(config).eval()
    randomise(model, seed)
    _save(model, path)
    return model
