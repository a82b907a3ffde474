"""LPIPS v0.1 with the AlexNet trunk: the `lpips` package's own `LPIPS(net="alex")`
(lpips 0.1.4, locked), loaded from worldeval's two weight files, and the frame glue
(resize to the reference, [-1, 1] tensors, batched pairs) a caller configures.

Loading (`load_lpips_alex`): `lpips.LPIPS(net="alex", pnet_rand=True, model_path=<alex.pth>)`
(no torch hub download). The package reads the lin layers with `load_state_dict(...,
strict=False)`, so a wrong file would load nothing, silently: both files are checked
first (exact keys and shapes, the file named in the error), torchvision's
`features.<k>.*` tensors are copied into the package's `net.slice<s>.<k>.*` (the same
modules: slice s holds AlexNet features[k] under the name str(k)), and the lin tensors
the package loaded are compared with the file's.

Frames (`lpips_distance_pairs`): GT resized to the generated size (cv2 INTER_AREA), both
BGR uint8 -> RGB in [-1, 1], pairs in batches of one frame size.

Weights: torchvision's ImageNet AlexNet (`features.*` keys) and lpips v0.1's `alex.pth`
(keys `lin0.model.1.weight` .. `lin4.model.1.weight`).
"""

import warnings
from typing import Optional

import cv2
import numpy as np
import torch
from torch import nn

from metrics.checkpoints.resolver import CheckpointSpec

ALEXNET_SPEC = CheckpointSpec(
    name="alexnet", filename="alexnet-owt-7be5be79.pth",
    url="https://download.pytorch.org/models/alexnet-owt-7be5be79.pth",
    sha256="7be5be79", license="BSD-3-Clause (torchvision)")
LPIPS_ALEX_SPEC = CheckpointSpec(
    name="lpips_alex_v0.1", filename="alex.pth",
    url="https://github.com/richzhang/PerceptualSimilarity/raw/master/lpips/weights/v0.1/alex.pth",
    # The digest of the same file as lpips==0.1.4's wheel packages it (lpips/weights/
    # v0.1/alex.pth, built from that repository), computed from the locked wheel.
    sha256="df73285e35b22355a2df87cdb6b70b343713b667eddbda73e1977e0c860835c0",
    license="BSD-2-Clause")

CHANNELS = (64, 192, 384, 256, 256)
LIN_KEYS = tuple(f"lin{i}.model.1.weight" for i in range(len(CHANNELS)))
MIN_SIDE = 31  # The smallest input on which AlexNet's third max-pool has an output.
# The package's AlexNet slices: features[start:stop] end at ReLUs 1..5.
_SLICES = ((0, 2), (2, 5), (5, 8), (8, 10), (10, 12))
_SLICE_OF = {index: s + 1 for s, (start, stop) in enumerate(_SLICES)
             for index in range(start, stop)}
# torchvision AlexNet `features` keys (conv weights and biases) with their shapes.
_TRUNK_SHAPES = {
    "features.0.weight": (64, 3, 11, 11), "features.0.bias": (64,),
    "features.3.weight": (192, 64, 5, 5), "features.3.bias": (192,),
    "features.6.weight": (384, 192, 3, 3), "features.6.bias": (384,),
    "features.8.weight": (256, 384, 3, 3), "features.8.bias": (256,),
    "features.10.weight": (256, 256, 3, 3), "features.10.bias": (256,),
}
_LIN_SHAPES = {key: (1, channels, 1, 1) for key, channels in zip(LIN_KEYS, CHANNELS)}


def _package():
    """The lpips package (imported late: it pulls in torchvision, scipy and tqdm)."""
    import lpips as lpips_package  # pylint: disable=import-outside-toplevel
    if not hasattr(lpips_package, "LPIPS"):
        raise ImportError(f"`import lpips` found {lpips_package.__file__}, not the lpips "
                          "package (a folder holding metrics/lpips/lpips.py is on sys.path)")
    return lpips_package


def _package_lpips(**kwargs) -> nn.Module:
    """`lpips.LPIPS(net="alex", version="0.1", pnet_rand=True, verbose=False, **kwargs)`,
    without torchvision's deprecation warnings for the package's `alexnet(pretrained=False)`."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", category=UserWarning,
                                module=r"torchvision\.models\._utils")
        return _package().LPIPS(net="alex", version="0.1", pnet_rand=True, verbose=False,
                                **kwargs)


def trunk_key(torchvision_key: str) -> str:
    """`features.3.weight` -> `net.slice2.3.weight` (the package model's name)."""
    _, index, part = torchvision_key.split(".")
    return f"net.slice{_SLICE_OF[int(index)]}.{index}.{part}"


class LearnedPerceptualImagePatchSimilarity(nn.Module):
    """The lpips package's LPIPS v0.1 (AlexNet), called with two (N, 3, H, W) RGB batches
    in [-1, 1]; returns (N,) distances.

    Attributes:
        package_model: The `lpips.LPIPS(net="alex")` that computes everything.
    """

    def __init__(self, package_model: Optional[nn.Module] = None):
        """`package_model` None: the package's architecture with a random trunk and random
        lin layers (no file read), e.g. for cost measurements."""
        super().__init__()
        if package_model is None:
            package_model = _package_lpips(pretrained=False)
        self.package_model = package_model

    @property
    def lins(self) -> nn.ModuleList:
        """The package's five lin layers (NetLinLayer: dropout, identity in eval, then a
        1x1 convolution without bias, `.model[1]`)."""
        return self.package_model.lins

    def trunk_features(self, images):
        """The package's scaling layer, then its AlexNet: the outputs of ReLUs 1..5."""
        return list(self.package_model.net(self.package_model.scaling_layer(images)))

    def forward(self, images0, images1):  # pylint: disable=arguments-differ
        """Per-pair distances, a (N,) tensor."""
        return self.package_model(images0, images1).flatten()


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
    """ValueError naming `path` unless `state` has exactly `expected`'s keys, with the
    shapes it maps them to.

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
        if tuple(kept[key].shape) != tuple(want):
            raise ValueError(f"{path}: {key} has shape {tuple(kept[key].shape)}, "
                             f"expected {tuple(want)}")


def load_lpips_alex(alexnet_path, lin_path, device="cpu"):
    """Builds the lpips package's LPIPS v0.1 (AlexNet) on torchvision's AlexNet weights and
    lpips' alex.pth (see the module docstring).

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
        ModuleNotFoundError: The lpips package is not installed.
    """
    alexnet_state = _read_state_dict(alexnet_path)
    _check_state(alexnet_path, alexnet_state, _TRUNK_SHAPES, ignored_prefix="classifier.")
    lin_state = _read_state_dict(lin_path)
    _check_state(lin_path, lin_state, _LIN_SHAPES)
    model = _package_lpips(pretrained=True, model_path=str(lin_path))
    state = model.state_dict()
    with torch.no_grad():
        for key in _TRUNK_SHAPES:
            state[trunk_key(key)].copy_(alexnet_state[key])
        for key in LIN_KEYS:  # what the package's strict=False load did, checked
            if not torch.equal(state[key], lin_state[key]):
                raise ValueError(f"{lin_path}: {key} was not loaded by lpips.LPIPS")
    model.requires_grad_(False)
    return LearnedPerceptualImagePatchSimilarity(model.eval()).to(torch.device(device)).eval()


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

