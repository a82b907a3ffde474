"""LPIPS v0.1 with the AlexNet trunk and learned "lin" layers, in plain torch.

Reproduces the arithmetic of the `lpips` package's `LPIPS(net="alex")` (which
the official code uses) so that the same two weight files give the same distances:

1. Inputs are RGB in [-1, 1]; the scaling layer maps x to (x - SHIFT) / SCALE.
2. torchvision's AlexNet `features` run up to the 5th ReLU; the outputs after
   ReLUs 1..5 (slices features[0:2], [2:5], [5:8], [8:10], [10:12]) are kept.
3. Per layer: each feature vector is divided by (its L2 norm over channels +
   EPS), the two images' normalised features are subtracted and squared, a
   1x1 convolution without bias (the "lin" layer; its dropout is the identity
   in eval mode) maps the channels to one, and the map is averaged over space.
4. The five layer values are summed.

Weights: torchvision's ImageNet AlexNet (`features.*` keys) and lpips v0.1's
`alex.pth` (keys `lin0.model.1.weight` .. `lin4.model.1.weight`).
"""

import cv2
import numpy as np
import torch
from torch import nn
import torch.nn.functional as F
import torchvision

from metrics.checkpoints.resolver import CheckpointSpec

ALEXNET_SPEC = CheckpointSpec(
    name="alexnet", filename="alexnet-owt-7be5be79.pth",
    url="https://download.pytorch.org/models/alexnet-owt-7be5be79.pth",
    sha256="7be5be79", license="BSD-3-Clause (torchvision)")
LPIPS_ALEX_SPEC = CheckpointSpec(
    name="lpips_alex_v0.1", filename="alex.pth",
    url="https://github.com/richzhang/PerceptualSimilarity/raw/master/lpips/weights/v0.1/alex.pth",
    license="BSD-2-Clause")

SHIFT = (-0.030, -0.088, -0.188)
SCALE = (0.458, 0.448, 0.450)
EPS = 1e-10
CHANNELS = (64, 192, 384, 256, 256)
LIN_KEYS = tuple(f"lin{i}.model.1.weight" for i in range(len(CHANNELS)))
MIN_SIDE = 31  # The smallest input on which AlexNet's third max-pool has an output.
_SLICES = ((0, 2), (2, 5), (5, 8), (8, 10), (10, 12))


def normalize_channels(features, eps=EPS):
    """Divides each feature vector of (N, C, H, W) by (its L2 norm over C + eps)."""
    norm = torch.sqrt(torch.sum(features ** 2, dim=1, keepdim=True))
    return features / (norm + eps)


def lpips_from_features(features0, features1, lin_weights):
    """The LPIPS distance from the two images' trunk features (the part after the trunk).

    Args:
        features0: Sequence of (N, C_l, H_l, W_l) tensors, one per layer.
        features1: The same for the other images.
        lin_weights: Sequence of (1, C_l, 1, 1) tensors, the lin layers' weights.

    Returns:
        A (N,) tensor: per pair, the sum over layers of the spatial mean of
        lin_l((normalize(f0_l) - normalize(f1_l)) ** 2).

    Raises:
        ValueError: If the three sequences do not have the same length.
    """
    if not len(features0) == len(features1) == len(lin_weights):
        raise ValueError(
            f"expected as many layers in both feature lists as lin weights, got "
            f"{len(features0)}, {len(features1)} and {len(lin_weights)}")
    total = None
    for f0, f1, weight in zip(features0, features1, lin_weights):
        diff = (normalize_channels(f0) - normalize_channels(f1)) ** 2
        layer = F.conv2d(diff, weight).mean(dim=(2, 3))[:, 0]
        total = layer if total is None else total + layer
    return total


class LearnedPerceptualImagePatchSimilarity(nn.Module):
    """LPIPS v0.1, AlexNet trunk; call with two (N, 3, H, W) RGB batches in [-1, 1]."""

    def __init__(self):
        super().__init__()
        self.register_buffer("shift", torch.tensor(SHIFT)[None, :, None, None])
        self.register_buffer("scale", torch.tensor(SCALE)[None, :, None, None])
        # features[12] (the last max-pool) is never run; it has no weights.
        self.features = torchvision.models.alexnet(weights=None).features
        self.lins = nn.ModuleList(nn.Conv2d(c, 1, kernel_size=1, bias=False) for c in CHANNELS)

    def trunk_features(self, images):
        """The outputs of ReLUs 1..5 for (N, 3, H, W) RGB images in [-1, 1]."""
        h = (images - self.shift) / self.scale
        outputs = []
        for start, stop in _SLICES:
            for index in range(start, stop):
                h = self.features[index](h)
            outputs.append(h)
        return outputs

    def forward(self, images0, images1):  # pylint: disable=arguments-differ
        """Per-pair distances, a (N,) tensor."""
        return lpips_from_features(self.trunk_features(images0), self.trunk_features(images1),
                                   [lin.weight for lin in self.lins])


def _read_state_dict(path):
    """torch.load of a weights-only state dict; ValueError naming the file otherwise."""
    try:
        state = torch.load(path, map_location="cpu", weights_only=True)
    except Exception as e:  # pylint: disable=broad-except  (any unreadable file)
        raise ValueError(f"{path}: not a readable torch state dict "
                         f"({type(e).__name__}: {str(e)[:200]})") from e
    if not isinstance(state, dict) or not all(
            isinstance(k, str) and isinstance(v, torch.Tensor) for k, v in state.items()):
        raise ValueError(f"{path}: expected a state dict of tensors, found {type(state).__name__}")
    return state


def _check_state(path, state, expected, ignored_prefix=None):
    """ValueError naming `path` unless `state` has exactly `expected`'s keys and shapes.

    Keys starting with `ignored_prefix` may be present and are not checked.
    """
    kept = {k: v for k, v in state.items()
            if not (ignored_prefix and k.startswith(ignored_prefix))}
    missing = sorted(set(expected) - set(kept))
    unexpected = sorted(set(kept) - set(expected))
    if missing or unexpected:
        raise ValueError(f"{path}: not the expected checkpoint: missing keys {missing}, "
                         f"unexpected keys {unexpected}")
    for key, want in expected.items():
        if tuple(kept[key].shape) != tuple(want.shape):
            raise ValueError(f"{path}: {key} has shape {tuple(kept[key].shape)}, "
                             f"expected {tuple(want.shape)}")


def load_lpips_alex(alexnet_path, lin_path, device="cpu"):
    """Builds LPIPS v0.1 (AlexNet) from torchvision's AlexNet weights and lpips' alex.pth.

    Args:
        alexnet_path: torchvision's `alexnet-owt-7be5be79.pth` (its `classifier.*`
            keys are ignored; every `features.*` key must be there, no other).
        lin_path: lpips v0.1 `alex.pth`, exactly the keys LIN_KEYS.
        device: torch device (or its name) to put the model on.

    Returns:
        A LearnedPerceptualImagePatchSimilarity in eval mode, without gradients.

    Raises:
        ValueError: A file is unreadable, or has missing, unexpected or
            wrongly shaped keys; the message names the file and the keys.
    """
    model = LearnedPerceptualImagePatchSimilarity()
    trunk = {f"features.{key}": tensor for key, tensor in model.features.state_dict().items()}
    alexnet_state = _read_state_dict(alexnet_path)
    _check_state(alexnet_path, alexnet_state, trunk, ignored_prefix="classifier.")
    lin_state = _read_state_dict(lin_path)
    lins = {key: lin.weight for key, lin in zip(LIN_KEYS, model.lins)}
    _check_state(lin_path, lin_state, lins)
    with torch.no_grad():
        for key, target in list(trunk.items()) + list(lins.items()):
            source = alexnet_state[key] if key in alexnet_state else lin_state[key]
            target.copy_(source)
    model.requires_grad_(False)
    return model.to(torch.device(device)).eval()


def _to_tensor(frames):
    """(N, H, W, 3) BGR uint8 -> (N, 3, H, W) RGB float32 in [-1, 1], as the official code does."""
    rgb = np.stack(frames)[..., ::-1].astype(np.float32) / 127.5 - 1.0
    return torch.from_numpy(np.ascontiguousarray(rgb.transpose(0, 3, 1, 2)))


def _check_frame(frame, name):
    if not isinstance(frame, np.ndarray) or frame.ndim != 3 or frame.shape[2] != 3 or (
            frame.dtype != np.uint8):
        raise ValueError(f"{name} frames must be (H, W, 3) uint8 BGR arrays")
    if min(frame.shape[:2]) < MIN_SIDE:
        raise ValueError(f"LPIPS needs frames at least {MIN_SIDE}x{MIN_SIDE} pixels, got a "
                         f"{name} frame of {frame.shape[1]}x{frame.shape[0]}")


def lpips_distance_pairs(model, gt_frames, gen_frames, batch_size=16):
    """LPIPS distance of each (ground truth, generated) frame pair.

    Each GT frame is resized to its generated frame's size with `cv2.INTER_AREA`
    (no crop), both become RGB in [-1, 1], and consecutive pairs go through the
    model `batch_size` at a time (a batch also ends where the frame size changes).

    Args:
        model: A LearnedPerceptualImagePatchSimilarity (see load_lpips_alex).
        gt_frames: Sequence of (H, W, 3) uint8 BGR ground-truth frames.
        gen_frames: Sequence of (h, w, 3) uint8 BGR generated frames, same length.
        batch_size: Pairs per forward pass (the official code: 16).

    Returns:
        A list of Python floats, one per pair.

    Raises:
        ValueError: Empty or unequal sequences, a malformed or too small frame
            (see MIN_SIDE), or batch_size < 1.
    """
    if len(gt_frames) != len(gen_frames):
        raise ValueError(f"frame count mismatch: {len(gt_frames)} ground-truth vs "
                         f"{len(gen_frames)} generated frames")
    if len(gt_frames) == 0:
        raise ValueError("no frame pairs to compare")
    if isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size < 1:
        raise ValueError(f"batch_size must be a positive int, got {batch_size!r}")
    pairs = []
    for gt, gen in zip(gt_frames, gen_frames):
        _check_frame(gen, "generated")
        _check_frame(gt, "ground-truth")
        h, w = gen.shape[:2]
        if gt.shape[:2] != (h, w):
            gt = cv2.resize(gt, (w, h), interpolation=cv2.INTER_AREA)
        pairs.append((gt, gen))
    device = next(model.parameters()).device
    distances = []
    start = 0
    while start < len(pairs):
        stop = start + 1
        while (stop < len(pairs) and stop - start < batch_size
               and pairs[stop][1].shape == pairs[start][1].shape):
            stop += 1
        batch = pairs[start:stop]
        with torch.no_grad():
            values = model(_to_tensor([gt for gt, _ in batch]).to(device),
                           _to_tensor([gen for _, gen in batch]).to(device))
        distances.extend(float(v) for v in values.cpu().tolist())
        start = stop
    return distances

