"""DROID-SLAM's network (Teed & Deng 2021; princeton-vl/DROID-SLAM droid_slam/droid_net.py
and modules/{extractor,gru,clipping}.py), written for worldeval.

Parts, each an nn.Module whose parameter names are the official state-dict keys:

* `fnet`: feature encoder, a 7x7/2 conv then three stages of two residual blocks
  (stride 1, 2, 2; width d, 2d, 4d with d = 32) and a 1x1 conv to 128 channels, instance
  norm without affine parameters: 1/8-resolution matching features.
* `cnet`: the same encoder with no normalisation and 256 outputs, split into the GRU's
  initial hidden state (tanh of the first 128) and its context input (relu of the rest).
* `update`: the update operator. A correlation encoder (1x1 conv of the 4 x 7 x 7 lookup
  to 128, 3x3 conv) and a flow encoder (7x7 then 3x3 convs of the 4 motion channels to
  128 then 64), a ConvGRU over [context, corr, flow] whose gates also see a global,
  sigmoid-gated mean of the hidden state, then heads for the flow revision `delta`
  (2 channels) and its confidence `weight` (sigmoid, 2 channels), and `agg`, which
  averages per-edge features over the edges that share a source frame i and gives the
  damping `eta` (0.01 * softplus) and the 8x8x9 convex-upsampling mask of each frame.

The gradient-clip layers of the official heads are the identity in the forward pass;
they are identity modules here (no parameters, so the keys are unchanged).
Checkpoint format (load_droid_net): the official `droid.pth` as released, a state dict
saved from nn.DataParallel ("module." prefix) whose delta/weight output convs have 3
channels; like the official loader, the prefix is removed and the first 2 output
channels kept. Inputs to `extract_features` are BGR images in 0..255 [B, N, 3, H, W].

Precision: this module computes in the dtype it is given (float32 in the tests, where
it equals the official network to 0.0 on CPU). In the official SLAM loop the encoders
(motion_filter.py) and the update operator (factor_graph.py) run under CUDA autocast
(float16) and the depth video stores fmaps/net/inp as half: a caller that wants the
official numbers on a GPU wraps these calls the same way.
"""

import dataclasses
from collections import OrderedDict
from typing import Optional, Tuple

import torch
from torch import nn
import torch.nn.functional as F

from metrics.checkpoints import state_dict

IMAGENET_MEAN = (0.485, 0.456, 0.406)
IMAGENET_STD = (0.229, 0.224, 0.225)
PREFIX = "module."
HEAD_KEYS = ("update.weight.2.weight", "update.weight.2.bias",
             "update.delta.2.weight", "update.delta.2.bias")
HEAD_CHANNELS = 2


@dataclasses.dataclass(frozen=True)
class DroidNetConfig:
    """Widths of the network; the defaults are droid.pth's."""

    encoder_dim: int = 32       # first encoder stage (stages are d, 2d, 4d)
    feature_dim: int = 128      # fnet output
    hidden_dim: int = 128       # GRU state = context input = half of cnet's output
    flow_dims: Tuple[int, int] = (128, 64)
    corr_levels: int = 4
    corr_radius: int = 3

    @property
    def corr_planes(self) -> int:
        return self.corr_levels * (2 * self.corr_radius + 1) ** 2


def _norm(kind: str, channels: int) -> nn.Module:
    return nn.InstanceNorm2d(channels) if kind == "instance" else nn.Sequential()


class ResidualBlock(nn.Module):
    """Two 3x3 convs (the first with the stride) with norm + relu, and a 1x1 strided
    projection of the input when the stride is not 1; relu of the sum."""

    def __init__(self, cin: int, cout: int, norm: str, stride: int):
        super().__init__()
        self.conv1 = nn.Conv2d(cin, cout, 3, padding=1, stride=stride)
        self.conv2 = nn.Conv2d(cout, cout, 3, padding=1)
        self.norm1, self.norm2 = _norm(norm, cout), _norm(norm, cout)
        self.relu = nn.ReLU(inplace=True)
        self.downsample = None
        if stride != 1:
            self.norm3 = _norm(norm, cout)
            self.downsample = nn.Sequential(nn.Conv2d(cin, cout, 1, stride=stride), self.norm3)

    def forward(self, x):
        y = self.relu(self.norm1(self.conv1(x)))
        y = self.relu(self.norm2(self.conv2(y)))
        return self.relu(y + (x if self.downsample is None else self.downsample(x)))


class Encoder(nn.Module):
    """[B, N, 3, H, W] -> [B, N, out_dim, H/8, W/8]."""

    def __init__(self, out_dim: int, norm: str, dim: int):
        super().__init__()
        self.norm1 = _norm(norm, dim)
        self.conv1 = nn.Conv2d(3, dim, 7, stride=2, padding=3)
        self.relu1 = nn.ReLU(inplace=True)
        widths, strides, cin = (dim, 2 * dim, 4 * dim), (1, 2, 2), dim
        for k, (cout, stride) in enumerate(zip(widths, strides), start=1):
            setattr(self, f"layer{k}", nn.Sequential(ResidualBlock(cin, cout, norm, stride),
                                                     ResidualBlock(cout, cout, norm, 1)))
            cin = cout
        self.conv2 = nn.Conv2d(cin, out_dim, 1)

    def forward(self, x):
        b, n = x.shape[:2]
        x = self.relu1(self.norm1(self.conv1(x.reshape(b * n, *x.shape[2:]))))
        x = self.conv2(self.layer3(self.layer2(self.layer1(x))))
        return x.view(b, n, *x.shape[1:])


class ConvGRU(nn.Module):
    """GRU over 3x3 convs; each gate adds a 1x1 conv of the globally pooled state
    mean(sigmoid(w * h) * h)."""

    def __init__(self, hidden: int, inputs: int):
        super().__init__()
        for gate in "zrq":
            setattr(self, f"conv{gate}", nn.Conv2d(hidden + inputs, hidden, 3, padding=1))
            setattr(self, f"conv{gate}_glo", nn.Conv2d(hidden, hidden, 1))
        self.w = nn.Conv2d(hidden, hidden, 1)

    def forward(self, h, *inputs):
        x = torch.cat(inputs, dim=1)
        hx = torch.cat([h, x], dim=1)
        glo = (torch.sigmoid(self.w(h)) * h).flatten(2).mean(-1)[..., None, None]
        z = torch.sigmoid(self.convz(hx) + self.convz_glo(glo))
        r = torch.sigmoid(self.convr(hx) + self.convr_glo(glo))
        q = torch.tanh(self.convq(torch.cat([r * h, x], dim=1)) + self.convq_glo(glo))
        return (1 - z) * h + z * q


def _head(hidden: int, out: nn.Module) -> nn.Sequential:
    """conv3x3 + relu, conv3x3 to 2 channels, gradient clip (identity), `out`."""
    layers = [nn.Conv2d(hidden, hidden, 3, padding=1), nn.ReLU(inplace=True),
              nn.Conv2d(hidden, HEAD_CHANNELS, 3, padding=1), nn.Identity(), out]
    return nn.Sequential(*layers)


def mean_over_sources(x: torch.Tensor, ii: torch.Tensor) -> torch.Tensor:
    """[B, E, ...] -> [B, U, ...]: the mean over the edges of each unique source index."""
    _, inverse = torch.unique(ii, return_inverse=True)
    groups = int(inverse.max()) + 1
    flat = x.transpose(0, 1).reshape(x.shape[1], -1)
    sums = torch.zeros(groups, flat.shape[1], dtype=x.dtype, device=x.device)
    sums.index_add_(0, inverse, flat)
    counts = torch.bincount(inverse, minlength=groups).clamp(min=1).to(x.dtype)
    out = (sums / counts[:, None]).reshape(groups, x.shape[0], *x.shape[2:])
    return out.transpose(0, 1)


class GraphAgg(nn.Module):
    """Per-frame damping eta and upsampling mask from the edges' hidden states."""

    def __init__(self, hidden: int):
        super().__init__()
        self.conv1 = nn.Conv2d(hidden, hidden, 3, padding=1)
        self.conv2 = nn.Conv2d(hidden, hidden, 3, padding=1)
        self.relu = nn.ReLU(inplace=True)
        self.eta = nn.Sequential(nn.Conv2d(hidden, 1, 3, padding=1), nn.Identity(),
                                 nn.Softplus())
        self.upmask = nn.Sequential(nn.Conv2d(hidden, 8 * 8 * 9, 1))

    def forward(self, net, ii):
        b, e, c, h, w = net.shape
        x = self.relu(self.conv1(net.reshape(b * e, c, h, w))).view(b, e, -1, h, w)
        x = mean_over_sources(x, ii)
        x = self.relu(self.conv2(x.reshape(-1, x.shape[2], h, w)))
        return 0.01 * self.eta(x).view(b, -1, h, w), self.upmask(x).view(b, -1, 8 * 8 * 9, h, w)


class UpdateModule(nn.Module):
    """(net, inp, corr, motion[, ii]) -> (net, delta, weight[, eta, upmask]); tensors
    [B, E, C, h, w], delta and weight returned channels-last [B, E, h, w, 2]."""

    def __init__(self, cfg: DroidNetConfig):
        super().__init__()
        hid, (f1, f2) = cfg.hidden_dim, cfg.flow_dims
        self.corr_encoder = nn.Sequential(
            nn.Conv2d(cfg.corr_planes, hid, 1), nn.ReLU(inplace=True),
            nn.Conv2d(hid, hid, 3, padding=1), nn.ReLU(inplace=True))
        self.flow_encoder = nn.Sequential(
            nn.Conv2d(4, f1, 7, padding=3), nn.ReLU(inplace=True),
            nn.Conv2d(f1, f2, 3, padding=1), nn.ReLU(inplace=True))
        self.weight = _head(hid, nn.Sigmoid())
        self.delta = _head(hid, nn.Identity())
        self.gru = ConvGRU(hid, hid + hid + f2)
        self.agg = GraphAgg(hid)

    def forward(self, net, inp, corr, flow=None, ii=None, jj=None):  # pylint: disable=unused-argument
        b, e, _, h, w = net.shape
        if flow is None:
            flow = torch.zeros(b, e, 4, h, w, device=net.device, dtype=net.dtype)
        flat = lambda t: t.reshape(b * e, -1, h, w)  # noqa: E731
        net = self.gru(flat(net), flat(inp), self.corr_encoder(flat(corr)),
                       self.flow_encoder(flat(flow)))
        delta = self.delta(net).view(b, e, -1, h, w).permute(0, 1, 3, 4, 2).contiguous()
        weight = self.weight(net).view(b, e, -1, h, w).permute(0, 1, 3, 4, 2).contiguous()
        net = net.view(b, e, -1, h, w)
        if ii is None:
            return net, delta, weight
        eta, upmask = self.agg(net, ii.to(net.device))
        return net, delta, weight, eta, upmask


class DroidNet(nn.Module):
    """fnet + cnet + update; full size (droid.pth) by default."""

    def __init__(self, config: Optional[DroidNetConfig] = None):
        super().__init__()
        self.config = cfg = config or DroidNetConfig()
        self.fnet = Encoder(cfg.feature_dim, "instance", cfg.encoder_dim)
        self.cnet = Encoder(2 * cfg.hidden_dim, "none", cfg.encoder_dim)
        self.update = UpdateModule(cfg)

    def extract_features(self, images):
        """BGR 0..255 [B, N, 3, H, W] -> (fmaps, net = tanh, inp = relu) at 1/8 size."""
        x = images[:, :, [2, 1, 0]] / 255.0
        mean = torch.as_tensor(IMAGENET_MEAN, device=x.device)[:, None, None]
        std = torch.as_tensor(IMAGENET_STD, device=x.device)[:, None, None]
        x = (x - mean) / std
        net, inp = self.cnet(x).split([self.config.hidden_dim] * 2, dim=2)
        return self.fnet(x), torch.tanh(net), torch.relu(inp)


def convex_upsample(data: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """[B, h, w, D] field and [B, 576, h, w] mask -> [B, 8h, 8w, D]: each fine pixel a
    softmax-weighted mix of the 3x3 coarse neighbourhood."""
    b, h, w, d = data.shape
    weights = torch.softmax(mask.view(b, 1, 9, 8, 8, h, w), dim=2)
    patches = F.unfold(data.permute(0, 3, 1, 2), [3, 3], padding=1).view(b, d, 9, 1, 1, h, w)
    up = (weights * patches).sum(dim=2)  # [b, d, 8, 8, h, w]
    return up.permute(0, 4, 2, 5, 3, 1).reshape(b, 8 * h, 8 * w, d)


def upsample_disparity(disp: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """[B, N, h, w] disparities and their masks -> [B, N, 8h, 8w]."""
    b, n, h, w = disp.shape
    up = convex_upsample(disp.reshape(b * n, h, w, 1), mask.reshape(b * n, -1, h, w))
    return up.view(b, n, 8 * h, 8 * w)


def from_checkpoint(state: dict, path: str = "droid.pth") -> "OrderedDict[str, torch.Tensor]":
    """The official checkpoint's state dict as DroidNet's: "module." removed, the
    delta/weight output convs cut to their first 2 channels (as the official loader)."""
    if not isinstance(state, dict) or not state:
        raise ValueError(f"{path}: expected a non-empty state dict of tensors, got "
                         f"{type(state).__name__}")
    out = OrderedDict((k[len(PREFIX):] if k.startswith(PREFIX) else k, v)
                      for k, v in state.items())
    missing = [k for k in HEAD_KEYS if k not in out]
    if missing:
        raise ValueError(f"{path}: not a DROID-SLAM checkpoint, missing {', '.join(missing)}")
    for key in HEAD_KEYS:
        out[key] = out[key][:HEAD_CHANNELS]
    return out


def load_droid_net(path, device="cpu", config: Optional[DroidNetConfig] = None) -> DroidNet:
    """DroidNet (eval mode) with the weights of a droid.pth-format file."""
    state = from_checkpoint(state_dict.load(path), str(path))
    net = DroidNet(config)
    try:
        net.load_state_dict(state)
    except RuntimeError as e:
        raise ValueError(f"{path}: does not fit DroidNet({net.config}): {e}") from e
    return net.to(device).eval()
