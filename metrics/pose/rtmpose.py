"""RTMPose (CSPNeXt + RTMCC SimCC head) top-down keypoints, loading mmpose checkpoints
unchanged.

The head, read in mmpose 1.3 (open-mmlab/mmpose:
models/heads/coord_cls_heads/rtmcc_head.py, models/utils/rtmcc_block.py, models/utils/
transformer.py ScaleNorm): a 7x7 conv to K maps, flattened; ScaleNorm + linear to the
hidden size; one gated attention unit (RTMCCBlock, self-attention, no relative bias, no
rotary encoding, SiLU, residual with a learned per-channel scale); two linear layers to
the x (W * 2) and y (H * 2) SimCC vectors.

Inference as mmpose's inference_topdown + TopdownPoseEstimator.predict with the body8
config: each box is cropped (metrics/pose/topdown.py), BGR -> RGB, normalised by the
config's mean/std, run with flip test (the config's test_cfg flip_test=True), decoded
and mapped back to the image. Instances are independent, so any batching gives the same
numbers.
"""

import dataclasses
import math
from typing import Tuple

import numpy as np
import torch
from torch import nn
from torch.nn import functional as F

from metrics.pose import cspnext
from metrics.pose import mm_checkpoint
from metrics.pose import topdown

MEAN_RGB = (123.675, 116.28, 103.53)
STD_RGB = (58.395, 57.12, 57.375)


@dataclasses.dataclass(frozen=True)
class RtmposeConfig:
    """Defaults: rtmpose-m_8xb256-420e_body8-256x192.py."""

    backbone: cspnext.CSPNeXtConfig = cspnext.CSPNeXtConfig(out_indices=(4,))
    num_keypoints: int = 17
    input_size: Tuple[int, int] = (192, 256)   # (w, h)
    split_ratio: float = 2.0
    final_kernel: int = 7
    hidden_dims: int = 256
    s: int = 128
    expansion_factor: int = 2
    flip_test: bool = True
    flip_indices: Tuple[int, ...] = topdown.COCO17_FLIP_INDICES


class ScaleNorm(nn.Module):
    def __init__(self, dim: int, eps: float = 1e-5):
        super().__init__()
        self.scale, self.eps = dim ** -0.5, eps
        self.g = nn.Parameter(torch.ones(1))

    def forward(self, x):
        norm = torch.norm(x, dim=-1, keepdim=True) * self.scale
        return x / norm.clamp(min=self.eps) * self.g


class _ResScale(nn.Module):
    def __init__(self, dim: int):
        super().__init__()
        self.scale = nn.Parameter(torch.ones(dim))

    def forward(self, x):
        return x * self.scale


class GatedAttentionUnit(nn.Module):
    """RTMCCBlock in self-attention mode without relative bias or rotary encoding."""

    def __init__(self, dims: int, s: int, expansion_factor: int):
        super().__init__()
        self.s, self.e = s, int(dims * expansion_factor)
        self.uv = nn.Linear(dims, 2 * self.e + s, bias=False)
        self.gamma = nn.Parameter(torch.ones(2, s))
        self.beta = nn.Parameter(torch.zeros(2, s))
        self.o = nn.Linear(self.e, dims, bias=False)
        self.ln = ScaleNorm(dims)
        self.res_scale = _ResScale(dims)
        self.sqrt_s = math.sqrt(s)

    def forward(self, x):
        uv = F.silu(self.uv(self.ln(x)))
        u, v, base = torch.split(uv, [self.e, self.e, self.s], dim=2)
        q, k = torch.unbind(base.unsqueeze(2) * self.gamma[None, None] + self.beta, dim=2)
        kernel = torch.square(F.relu(torch.bmm(q, k.permute(0, 2, 1)) / self.sqrt_s))
        return self.res_scale(x) + self.o(u * torch.bmm(kernel, v))


class RTMCCHead(nn.Module):
    def __init__(self, in_channels: int, config: RtmposeConfig):
        super().__init__()
        w, h = config.input_size
        flat = (w // 32) * (h // 32)
        k = config.final_kernel
        self.final_layer = nn.Conv2d(in_channels, config.num_keypoints, k, 1, k // 2)
        self.mlp = nn.Sequential(ScaleNorm(flat), nn.Linear(flat, config.hidden_dims,
                                                             bias=False))
        self.gau = GatedAttentionUnit(config.hidden_dims, config.s, config.expansion_factor)
        self.cls_x = nn.Linear(config.hidden_dims, int(w * config.split_ratio), bias=False)
        self.cls_y = nn.Linear(config.hidden_dims, int(h * config.split_ratio), bias=False)

    def forward(self, feature):
        x = self.gau(self.mlp(torch.flatten(self.final_layer(feature), 2)))
        return self.cls_x(x), self.cls_y(x)


class TopdownRTMPose(nn.Module):
    """`backbone.*` and `head.*`, as TopdownPoseEstimator names them."""

    def __init__(self, config: RtmposeConfig):
        super().__init__()
        self.backbone = cspnext.CSPNeXt(config.backbone)
        self.head = RTMCCHead(config.backbone.stage_channels()[-1], config)

    def forward(self, images):
        return self.head(self.backbone(images)[-1])


class PoseEstimator:
    """keypoints(image_bgr, boxes_xyxy) -> (keypoints (N, K, 2) float64, scores (N, K))."""

    def __init__(self, model: TopdownRTMPose, config: RtmposeConfig, device):
        self.model, self.config, self.device = model.eval(), config, torch.device(device)
        self.mean = torch.tensor(MEAN_RGB, device=self.device).view(1, 3, 1, 1)
        self.std = torch.tensor(STD_RGB, device=self.device).view(1, 3, 1, 1)

    def simcc(self, crops_bgr: np.ndarray) -> Tuple[np.ndarray, np.ndarray]:
        """Raw (flip-averaged when configured) SimCC vectors of (N, h, w, 3) BGR crops."""
        batch = torch.from_numpy(np.ascontiguousarray(crops_bgr)).to(self.device)
        batch = batch.permute(0, 3, 1, 2)[:, [2, 1, 0]].float()
        batch = (batch - self.mean) / self.std
        with torch.no_grad():
            x, y = (t.float().cpu().numpy() for t in self.model(batch))
            if not self.config.flip_test:
                return x, y
            fx, fy = (t.float().cpu().numpy() for t in self.model(batch.flip(-1)))
        return topdown.flip_average(x, y, fx, fy, self.config.flip_indices)

    def keypoints(self, crops):
        """[(image_bgr, box_xyxy)] -> (keypoints (N, K, 2) float64, scores (N, K))."""
        size = self.config.input_size
        if not crops:
            k = self.config.num_keypoints
            return np.zeros((0, k, 2)), np.zeros((0, k), np.float32)
        cropped = [topdown.crop(image, box, size) for image, box in crops]
        x, y = self.simcc(np.stack([c[0] for c in cropped]))
        points, scores = topdown.decode_simcc(x, y, self.config.split_ratio)
        points = np.stack([topdown.to_image(p, c[1], c[2], size)
                           for p, c in zip(points, cropped)])
        return points, scores


def load_rtmpose(path, device: str = "cpu", config: RtmposeConfig = RtmposeConfig()
                 ) -> PoseEstimator:
    """The estimator with the mmpose checkpoint at `path` (keys `backbone.*`, `head.*`)."""
    model = TopdownRTMPose(config)
    mm_checkpoint.load_strict(model, mm_checkpoint.read_state_dict(path, "RTMPose"), path)
    return PoseEstimator(model.to(device), config, device)
