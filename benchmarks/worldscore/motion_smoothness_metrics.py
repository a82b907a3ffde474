"""The three per-midpoint numbers of motion smoothness (spec §4.10), as WorldScore's
third_party/motion_smoothness_metrics.py computes them (haoyi-duan/WorldScore@344983c):

* MSE: `np.mean((mid - gt) ** 2)` on the two uint8 (H, W, 3) arrays, so the difference
  and the square wrap modulo 256 (-1 becomes 255, 16**2 becomes 0). The spec's empirical
  range (max 82.4014) was calibrated with it, so it is the official number;
  `mse_float` is the arithmetic it meant, a named variant that is NOT official.
* SSIM: torchmetrics `StructuralSimilarityIndexMeasure()` with every default, on
  ToTensor (x / 255, BGR order kept) of both frames: Gaussian window of
  int(3.5 sigma + 0.5) * 2 + 1 = 11 taps, sigma 1.5, k1 0.01, k2 0.03, reflect padding
  of 5 pixels on each side (so the map has the frame's size and is not cropped), the
  variances clamped at 0, the mean over channels and pixels; data_range None, so
  inferred from the data as max(preds.max() - preds.min(), target.max() - target.min())
  (transcribed from torchmetrics 1.9.0 functional/image/ssim.py; WorldScore pins no
  torchmetrics version).
* LPIPS: torchmetrics `LearnedPerceptualImagePatchSimilarity(net_type="alex")` with
  normalize=False, fed the same [0, 1] BGR tensors: the official code does NOT map them to
  [-1, 1] (a quirk, kept). torchmetrics' LPIPS is lpips v0.1 with the same AlexNet and
  lin weights (its bundled alex.pth has the same sha256 as the lpips package's), except
  that each feature vector is divided by sqrt(1e-8 + |f|^2) (lpips: |f| + 1e-10); that
  is what `lpips_torchmetrics` computes, on the lpips package's scaling layer, AlexNet
  trunk and lin layers (as metrics/lpips loads them).
"""

import numpy as np
import torch
from torch.nn import functional as F

SSIM_SIGMA = 1.5
SSIM_K1, SSIM_K2 = 0.01, 0.03
TORCHMETRICS_LPIPS_EPS = 1e-8


def check_pair(mid: np.ndarray, gt: np.ndarray, what: str = "midpoint") -> None:
    for name, frame in (("interpolated", mid), ("real", gt)):
        if not isinstance(frame, np.ndarray) or frame.dtype != np.uint8 or frame.ndim != 3 \
                or frame.shape[2] != 3:
            raise ValueError(f"{what}: the {name} frame must be an (H, W, 3) uint8 array, got "
                             f"{getattr(frame, 'dtype', type(frame))} "
                             f"{getattr(frame, 'shape', '')}")
    if mid.shape != gt.shape:
        raise ValueError(f"{what}: frame sizes differ: {mid.shape} vs {gt.shape}")


def mse_uint8_wraparound(mid: np.ndarray, gt: np.ndarray) -> float:
    """The official MSE: uint8 subtraction and square, both modulo 256."""
    check_pair(mid, gt)
    return float(np.mean((mid - gt) ** 2))


def mse_float(mid: np.ndarray, gt: np.ndarray) -> float:
    """The MSE without wraparound (not official: moves the score off its calibration)."""
    check_pair(mid, gt)
    return float(np.mean((mid.astype(np.float64) - gt.astype(np.float64)) ** 2))


def to_tensor(frame: np.ndarray) -> torch.Tensor:
    """torchvision ToTensor of an (H, W, 3) uint8 array, batched: (1, 3, H, W) / 255."""
    return torch.from_numpy(np.ascontiguousarray(frame.transpose(2, 0, 1))).float().div(255)[None]


def _gaussian_window(channels: int, sigma: float, dtype, device) -> torch.Tensor:
    taps = int(3.5 * sigma + 0.5) * 2 + 1
    offsets = torch.arange((1 - taps) / 2, (1 + taps) / 2, 1, dtype=dtype, device=device)
    weights = torch.exp(-torch.pow(offsets / sigma, 2) / 2)
    weights = (weights / weights.sum())[None]  # (1, taps)
    return torch.matmul(weights.t(), weights).expand(channels, 1, taps, taps)


def ssim_torchmetrics(preds: torch.Tensor, target: torch.Tensor) -> float:
    """torchmetrics' default SSIM of two (1, C, H, W) float tensors (see the docstring)."""
    if preds.shape != target.shape or preds.ndim != 4:
        raise ValueError(f"SSIM needs two equal (N, C, H, W) tensors, got "
                         f"{tuple(preds.shape)} and {tuple(target.shape)}")
    target = target.to(preds.dtype)
    data_range = max(preds.max() - preds.min(), target.max() - target.min())
    c1, c2 = pow(SSIM_K1 * data_range, 2), pow(SSIM_K2 * data_range, 2)
    channels = preds.shape[1]
    window = _gaussian_window(channels, SSIM_SIGMA, preds.dtype, preds.device)
    pad = (window.shape[-1] - 1) // 2
    preds = F.pad(preds, (pad, pad, pad, pad), mode="reflect")
    target = F.pad(target, (pad, pad, pad, pad), mode="reflect")
    stacked = torch.cat((preds, target, preds * preds, target * target, preds * target))
    mu_p, mu_t, e_pp, e_tt, e_pt = F.conv2d(stacked, window, groups=channels).split(
        preds.shape[0])
    mu_p2, mu_t2, mu_pt = mu_p.pow(2), mu_t.pow(2), mu_p * mu_t
    var_p = torch.clamp(e_pp - mu_p2, min=0.0)
    var_t = torch.clamp(e_tt - mu_t2, min=0.0)
    cov = e_pt - mu_pt
    upper = 2 * cov + c2
    lower = var_p + var_t + c2
    index = ((2 * mu_pt + c1) * upper) / ((mu_p2 + mu_t2 + c1) * lower)
    return float(index.reshape(index.shape[0], -1).mean(-1).mean())


def lpips_torchmetrics(model, preds: torch.Tensor, target: torch.Tensor) -> float:
    """torchmetrics' LPIPS (normalize=False) with `model` a metrics.lpips
    LearnedPerceptualImagePatchSimilarity: the lpips package's scaling layer and trunk
    (`trunk_features`) and lin layers (`lins`), with torchmetrics' normalisation."""
    if preds.min() < -1 or target.min() < -1:
        raise ValueError("LPIPS inputs below -1 (torchmetrics refuses them)")
    device = next(model.parameters()).device
    with torch.no_grad():
        total = 0
        for f0, f1, lin in zip(model.trunk_features(preds.to(device)),
                               model.trunk_features(target.to(device)), model.lins):
            n0 = f0 / torch.sqrt(TORCHMETRICS_LPIPS_EPS + torch.sum(f0 ** 2, dim=1, keepdim=True))
            n1 = f1 / torch.sqrt(TORCHMETRICS_LPIPS_EPS + torch.sum(f1 ** 2, dim=1, keepdim=True))
            total = total + lin((n0 - n1) ** 2).mean([2, 3], keepdim=True)
    return float(total.squeeze().mean())
