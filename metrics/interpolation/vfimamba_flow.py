"""VFIMamba's flow estimation and refinement: backward warping, the coarse-to-fine flow
heads over the pyramid, the local refinement blocks and the U-Net that predicts the
residual (official names: MCG-NJU/VFIMamba model/flow_estimation.py, refine.py,
warplayer.py). Every resampling is `F.interpolate(..., scale_factor=s)` as upstream, since
a `size=` call maps coordinates differently.
"""

from typing import List, Optional, Sequence, Tuple

import torch
from torch import nn
from torch.nn import functional as F

from metrics.interpolation import vfimamba_backbone


def warp(image: torch.Tensor, flow: torch.Tensor) -> torch.Tensor:
    """Backward warp of (N, C, H, W) by a (N, 2, H, W) pixel flow: bilinear, border
    padding, corners aligned (pixel 0 at -1, pixel W-1 at +1)."""
    n, _, h, w = flow.shape
    xs = torch.linspace(-1.0, 1.0, w, device=flow.device).view(1, 1, 1, w).expand(n, -1, h, -1)
    ys = torch.linspace(-1.0, 1.0, h, device=flow.device).view(1, 1, h, 1).expand(n, -1, -1, w)
    base = torch.cat([xs, ys], 1)
    scaled = torch.cat([flow[:, 0:1] / ((image.shape[3] - 1.0) / 2.0),
                        flow[:, 1:2] / ((image.shape[2] - 1.0) / 2.0)], 1)
    grid = (base + scaled).permute(0, 2, 3, 1)
    return F.grid_sample(image, grid, mode="bilinear", padding_mode="border", align_corners=True)


def _resize(x: torch.Tensor, factor: float) -> torch.Tensor:
    return F.interpolate(x, scale_factor=factor, mode="bilinear", align_corners=False)


def conv(in_planes: int, out_planes: int, kernel_size=3, stride=1, padding=1) -> nn.Sequential:
    """Convolution with bias, then PReLU."""
    return nn.Sequential(nn.Conv2d(in_planes, out_planes, kernel_size, stride, padding, bias=True),
                         nn.PReLU(out_planes))


def deconv(in_planes: int, out_planes: int) -> nn.Sequential:
    """x2 transposed convolution (kernel 4, stride 2, padding 1), then PReLU."""
    return nn.Sequential(nn.ConvTranspose2d(in_planes, out_planes, 4, 2, 1, bias=True),
                         nn.PReLU(out_planes))


class Head(nn.Module):
    """One coarse-to-fine step on pyramid level `scale` (4, 8, 16, ...): 4 flow channels
    (frame 0's then frame 1's) and a mask logit, at full resolution."""

    def __init__(self, in_planes: int, scale: int, c: int, in_else: int):
        super().__init__()
        self.upsample = nn.Sequential(nn.PixelShuffle(2), nn.PixelShuffle(2))
        self.scale = scale
        self.conv = nn.Sequential(conv(in_planes * 2 // 16 + in_else, c), conv(c, c), conv(c, 5))

    def forward(self, motion_feature, x, flow):  # pylint: disable=arguments-differ
        motion_feature = self.upsample(motion_feature)
        if self.scale != 4:
            x = _resize(x, 4.0 / self.scale)
        if flow is not None:
            if self.scale != 4:
                flow = _resize(flow, 4.0 / self.scale) * 4.0 / self.scale
            x = torch.cat((x, flow), 1)
        x = self.conv(torch.cat([motion_feature, x], 1))
        if self.scale != 4:
            x = _resize(x, self.scale // 4)
            return x[:, :4] * (self.scale // 4), x[:, 4:5]
        return x[:, :4], x[:, 4:5]


class IFBlock(nn.Module):
    """A local refinement step at 1/scale resolution: a flow and mask increment."""

    def __init__(self, in_planes: int, c: int, scale: int):
        super().__init__()
        self.conv0 = nn.Sequential(conv(in_planes, c // 2, 3, 2, 1), conv(c // 2, c, 3, 2, 1))
        self.convblock = nn.Sequential(*[conv(c, c) for _ in range(8)])
        self.lastconv = nn.ConvTranspose2d(c, 5, 4, 2, 1)
        self.scale = scale

    def forward(self, x, flow):  # pylint: disable=arguments-differ
        if self.scale != 1:
            x = _resize(x, 1.0 / self.scale)
            flow = _resize(flow, 1.0 / self.scale) * 1.0 / self.scale
        x = self.conv0(torch.cat((x, flow), 1))
        x = self.convblock(x) + x
        out = _resize(self.lastconv(x), self.scale * 2)
        return out[:, :4] * self.scale * 2, out[:, 4:5]


class Conv2(nn.Module):
    def __init__(self, in_planes: int, out_planes: int, stride: int = 2):
        super().__init__()
        self.conv1 = conv(in_planes, out_planes, 3, stride, 1)
        self.conv2 = conv(out_planes, out_planes, 3, 1, 1)

    def forward(self, x):  # pylint: disable=arguments-differ
        return self.conv2(self.conv1(x))


class Unet(nn.Module):
    """The refinement U-Net over the frames, warps, mask, flow and warped features."""

    def __init__(self, c: int, out: int = 3):
        super().__init__()
        self.down0, self.down1 = Conv2(17 + c, 2 * c), Conv2(4 * c, 4 * c)
        self.down2, self.down3 = Conv2(8 * c, 8 * c), Conv2(16 * c, 16 * c)
        self.up0, self.up1 = deconv(32 * c, 8 * c), deconv(16 * c, 4 * c)
        self.up2, self.up3 = deconv(8 * c, 2 * c), deconv(4 * c, c)
        self.conv = nn.Conv2d(c, out, 3, 1, 1)

    def forward(self, img0, img1, warped0, warped1, mask, flow, c0, c1):  # pylint: disable=arguments-differ
        s0 = self.down0(torch.cat((img0, img1, warped0, warped1, mask, flow, c0[0], c1[0]), 1))
        s1 = self.down1(torch.cat((s0, c0[1], c1[1]), 1))
        s2 = self.down2(torch.cat((s1, c0[2], c1[2]), 1))
        s3 = self.down3(torch.cat((s2, c0[3], c1[3]), 1))
        x = self.up0(torch.cat((s3, c0[4], c1[4]), 1))
        x = self.up1(torch.cat((x, s2), 1))
        x = self.up2(torch.cat((x, s1), 1))
        x = self.up3(torch.cat((x, s0), 1))
        return torch.sigmoid(self.conv(x))


class MultiScaleFlow(nn.Module):
    """The whole interpolator: forward((N, 6, H, W) frame pairs in [0, 1]) -> the middle
    frames (N, 3, H, W), H and W multiples of 32."""

    def __init__(self, backbone: vfimamba_backbone.MambaFeature, embed_dims: Sequence[int],
                 scales: Sequence[int], hidden_dims: Sequence[int], c: int,
                 local_hidden_dims: int, local_num: int):
        super().__init__()
        self.flow_num_stage = len(hidden_dims)
        self.local_num = local_num
        self.feature_bone = backbone
        self.block = nn.ModuleList(
            Head(embed_dims[-1 - i], scales[-1 - i], hidden_dims[-1 - i], 7 if i == 0 else 18)
            for i in range(self.flow_num_stage))
        self.local_block = nn.ModuleList(
            IFBlock(17, c=local_hidden_dims, scale=2 - i) for i in range(local_num))
        self.unet = Unet(c * 2)

    def warp_features(self, features: List[torch.Tensor], flow) -> Tuple[list, list]:
        half = features[0].shape[0] // 2
        warped0, warped1 = [], []
        for x in features:
            warped0.append(warp(x[:half], flow[:, 0:2]))
            warped1.append(warp(x[half:], flow[:, 2:4]))
            flow = F.interpolate(flow, scale_factor=0.5, mode="bilinear", align_corners=False,
                                 recompute_scale_factor=False) * 0.5
        return warped0, warped1

    def forward(self, x, local: bool = False, timestep: float = 0.5):  # pylint: disable=arguments-differ
        """The official forward with scale=0 (no down-scaled flow pass)."""
        img0, img1 = x[:, :3], x[:, 3:6]
        n = x.shape[0]
        features = self.feature_bone(img0, img1)
        time = torch.full_like(x[:, :1], float(timestep))
        flow: Optional[torch.Tensor] = None
        warped0, warped1 = img0, img1
        for i in range(self.flow_num_stage):
            motion = torch.cat([features[-1 - i][:n], features[-1 - i][n:]], 1)
            if flow is None:
                flow, mask = self.block[i](motion, torch.cat((img0, img1, time), 1), None)
            else:
                flow_d, mask_d = self.block[i](
                    motion, torch.cat((img0, img1, warped0, warped1, mask, time), 1), flow)
                flow, mask = flow + flow_d, mask + mask_d
            warped0, warped1 = warp(img0, flow[:, :2]), warp(img1, flow[:, 2:4])
        if local:
            for block in self.local_block:
                flow_d, mask_d = block(torch.cat((img0, img1, warped0, warped1, mask), 1), flow)
                flow, mask = flow + flow_d, mask + mask_d
                warped0, warped1 = warp(img0, flow[:, :2]), warp(img1, flow[:, 2:4])
        gate = torch.sigmoid(mask)
        merged = warped0 * gate + warped1 * (1 - gate)
        c0, c1 = self.warp_features(features, flow)
        residual = self.unet(img0, img1, warped0, warped1, mask, flow, c0, c1)[:, :3] * 2 - 1
        return torch.clamp(merged + residual, 0, 1)
