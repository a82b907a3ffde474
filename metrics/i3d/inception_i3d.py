"""Inception-v1 I3D (Carreira & Zisserman 2017) as piergiaj/pytorch-i3d builds it, loading its
state dict unchanged (e.g. the VideoGPT / StyleGAN-V FVD file `i3d_pretrained_400.pt`).

The network: Conv3d_1a_7x7 (stride 2) - MaxPool3d_2a_3x3 (1x3x3, stride 1,2,2) -
Conv3d_2b_1x1 - Conv3d_2c_3x3 - MaxPool3d_3a_3x3 - Mixed_3b, 3c - MaxPool3d_4a_3x3
(3x3x3, stride 2) - Mixed_4b..4f - MaxPool3d_5a_2x2 (2x2x2, stride 2) - Mixed_5b, 5c -
AvgPool3d([2, 7, 7], stride 1) - dropout (identity in eval) - `logits` (1x1x1 conv with
bias, no norm, no ReLU); the output is squeezed spatially and AVERAGED OVER TIME:
(B, num_classes) logits. Every conv unit is conv3d (no bias) + BatchNorm3d(eps 1e-5) +
ReLU, and every conv and max-pool pads its input TensorFlow-"SAME"-style at run time:
per axis pad = max(k - (s if n % s == 0 else n % s), 0), split [pad // 2, pad - pad // 2],
with zeros (the `padding=` arguments of the upstream constructors are ignored upstream).
An Inception block concatenates 1x1 | 1x1-3x3 | 1x1-3x3 | maxpool3-1x1 branches
(b0 | b1a-b1b | b2a-b2b | b3a-b3b).

`width_divisor` shrinks every channel count (tests only); 1 is the official network.
"""

from typing import Sequence, Tuple

import torch
import torch.nn.functional as F
from torch import nn

from metrics.checkpoints import state_dict

# (name, b0, b1a, b1b, b2a, b2b, b3b) output channels, in order.
_MIXED = {
    "Mixed_3b": (64, 96, 128, 16, 32, 32), "Mixed_3c": (128, 128, 192, 32, 96, 64),
    "Mixed_4b": (192, 96, 208, 16, 48, 64), "Mixed_4c": (160, 112, 224, 24, 64, 64),
    "Mixed_4d": (128, 128, 256, 24, 64, 64), "Mixed_4e": (112, 144, 288, 32, 64, 64),
    "Mixed_4f": (256, 160, 320, 32, 128, 128), "Mixed_5b": (256, 160, 320, 32, 128, 128),
    "Mixed_5c": (384, 192, 384, 48, 128, 128),
}
_POOLS = {"MaxPool3d_2a_3x3": ((1, 3, 3), (1, 2, 2)), "MaxPool3d_3a_3x3": ((1, 3, 3), (1, 2, 2)),
          "MaxPool3d_4a_3x3": ((3, 3, 3), (2, 2, 2)), "MaxPool3d_5a_2x2": ((2, 2, 2), (2, 2, 2))}
_ORDER = ("Conv3d_1a_7x7", "MaxPool3d_2a_3x3", "Conv3d_2b_1x1", "Conv3d_2c_3x3",
          "MaxPool3d_3a_3x3", "Mixed_3b", "Mixed_3c", "MaxPool3d_4a_3x3", "Mixed_4b", "Mixed_4c",
          "Mixed_4d", "Mixed_4e", "Mixed_4f", "MaxPool3d_5a_2x2", "Mixed_5b", "Mixed_5c")


def same_padding(sizes: Sequence[int], kernel: Sequence[int], stride: Sequence[int]) -> Tuple[int, ...]:
    """F.pad arguments (last axis first) for TF-"SAME" padding of (T, H, W) inputs."""
    out = []
    for n, k, s in reversed(list(zip(sizes, kernel, stride))):
        pad = max(k - (s if n % s == 0 else n % s), 0)
        out += [pad // 2, pad - pad // 2]
    return tuple(out)


class Unit3D(nn.Module):
    """SAME-padded conv3d, optional BatchNorm3d and ReLU (upstream's Unit3D)."""

    def __init__(self, cin, cout, kernel=(1, 1, 1), stride=(1, 1, 1), norm=True, bias=False,
                 relu=True):
        super().__init__()
        self.kernel, self.stride, self.relu = tuple(kernel), tuple(stride), relu
        self.conv3d = nn.Conv3d(cin, cout, self.kernel, self.stride, padding=0, bias=bias)
        self.bn = nn.BatchNorm3d(cout, eps=1e-5, momentum=0.001) if norm else None

    def forward(self, x):
        x = self.conv3d(F.pad(x, same_padding(x.shape[2:], self.kernel, self.stride)))
        if self.bn is not None:
            x = self.bn(x)
        return F.relu(x) if self.relu else x


class SamePool(nn.Module):
    """Zero-padded (SAME) 3-D max pooling (upstream's MaxPool3dSamePadding)."""

    def __init__(self, kernel, stride):
        super().__init__()
        self.kernel, self.stride = tuple(kernel), tuple(stride)

    def forward(self, x):
        return F.max_pool3d(F.pad(x, same_padding(x.shape[2:], self.kernel, self.stride)),
                            self.kernel, self.stride)


class Mixed(nn.Module):
    """An Inception block of four concatenated branches."""

    def __init__(self, cin, widths):
        super().__init__()
        self.b0 = Unit3D(cin, widths[0])
        self.b1a, self.b1b = Unit3D(cin, widths[1]), Unit3D(widths[1], widths[2], (3, 3, 3))
        self.b2a, self.b2b = Unit3D(cin, widths[3]), Unit3D(widths[3], widths[4], (3, 3, 3))
        self.b3a, self.b3b = SamePool((3, 3, 3), (1, 1, 1)), Unit3D(cin, widths[5])

    def forward(self, x):
        return torch.cat([self.b0(x), self.b1b(self.b1a(x)), self.b2b(self.b2a(x)),
                          self.b3b(self.b3a(x))], dim=1)


class InceptionI3d(nn.Module):
    """forward((B, 3, T, H, W) in [-1, 1]) -> (B, num_classes) time-averaged logits."""

    def __init__(self, num_classes: int = 400, width_divisor: int = 1):
        super().__init__()

        def w(c):
            return max(1, c // width_divisor)

        self.Conv3d_1a_7x7 = Unit3D(3, w(64), (7, 7, 7), (2, 2, 2))
        self.Conv3d_2b_1x1 = Unit3D(w(64), w(64))
        self.Conv3d_2c_3x3 = Unit3D(w(64), w(192), (3, 3, 3))
        cin = w(192)
        for name, widths in _MIXED.items():
            widths = tuple(w(c) for c in widths)
            setattr(self, name, Mixed(cin, widths))
            cin = widths[0] + widths[2] + widths[4] + widths[5]
        for name, (kernel, stride) in _POOLS.items():
            setattr(self, name, SamePool(kernel, stride))
        self.logits = Unit3D(cin, num_classes, norm=False, bias=True, relu=False)

    def forward(self, x):
        for name in _ORDER:
            x = getattr(self, name)(x)
        x = self.logits(F.avg_pool3d(x, (2, 7, 7), stride=1))
        return x.squeeze(3).squeeze(3).mean(dim=2)


def load_i3d(checkpoint_path, device, num_classes: int = 400, width_divisor: int = 1) -> InceptionI3d:
    """Loads a pytorch-i3d state dict strictly, in eval mode.

    Raises:
        ValueError: Not a readable torch state dict, or tensors that do not fit.
    """
    state = state_dict.read_state_dict(checkpoint_path)
    model = InceptionI3d(num_classes, width_divisor)
    try:
        model.load_state_dict(state, strict=True)
    except RuntimeError as e:
        raise ValueError(f"{checkpoint_path}: does not fit InceptionI3d({num_classes}): {e}") from e
    return model.to(device).eval()
