"""DROID-SLAM's frame distance (its CUDA `frame_distance`) in PyTorch.

For each pair `(ii[e], jj[e])` it is the mean pixel displacement that moving frame i's
pixels (with their inverse depths) into frame j induces, mixing two flows per pixel:
`beta` x the full relative motion and `(1 - beta)` x its translation alone (rotation left
out). Pixels whose transformed depth is not above `MIN_DEPTH` = 0.25 do not count; if the
counted weight is below 75% of the total, the distance is 1000 (the kernel's sentinel).
Relative poses follow the kernel: `G_j G_i^-1` unnormalised, no stereo baseline.
"""

import torch

from metrics.slam import ba, se3

MIN_DEPTH = 0.25
FAR = 1000.0
MIN_VALID = 0.75


def frame_distance(poses, disps, intrinsics, ii, jj, beta):
    """poses `[N, 7]`, disps `[N, H, W]`, intrinsics `[4]`, ii / jj `[E]` -> `[E]` distances."""
    ht, wd = disps.shape[-2:]
    fx, fy, cx, cy = intrinsics.unbind(-1)
    tij, qij = ba.relative(poses, ii, jj, stereo_baseline=False)
    v, u = torch.meshgrid(
        torch.arange(ht, dtype=disps.dtype, device=disps.device),
        torch.arange(wd, dtype=disps.dtype, device=disps.device),
        indexing="ij",
    )
    u, v = u.reshape(1, -1), v.reshape(1, -1)
    xi = torch.stack([(u - cx) / fx, (v - cy) / fy, torch.ones_like(u)], dim=-1)
    disp = disps[ii].reshape(len(ii), -1, 1)
    full = se3.quat_rotate(qij[:, None], xi) + tij[:, None] * disp
    trans = xi + tij[:, None] * disp
    accum = torch.zeros(len(ii), dtype=disps.dtype, device=disps.device)
    valid = torch.zeros_like(accum)
    total = 0.0
    for xj, w in ((full, beta), (trans, 1.0 - beta)):
        du = fx * (xj[..., 0] / xj[..., 2]) + cx - u
        dv = fy * (xj[..., 1] / xj[..., 2]) + cy - v
        ok = xj[..., 2] > MIN_DEPTH
        accum = accum + w * torch.where(ok, torch.sqrt(du * du + dv * dv), 0.0).sum(-1)
        valid = valid + w * ok.to(disps.dtype).sum(-1)
        total = total + w * ht * wd
    return torch.where(valid / (total + 1e-8) < MIN_VALID, torch.full_like(accum, FAR), accum / valid)
