"""DROID-SLAM's projective geometry in PyTorch (its `geom/projective_ops.py` algorithm).

Frames carry world-to-camera poses `[B, N, 7]` (lietorch storage, see `se3`), inverse depths
`[B, N, H, W]` and pinhole intrinsics `[B, N, 4]` = `(fx, fy, cx, cy)`. A pixel of frame i with
inverse depth d is the homogeneous point `[(u - cx)/fx, (v - cy)/fy, 1, d]`; the relative pose
`G_ij = G_j G_i^-1` moves it into frame j, where it is projected. Edges with `ii == jj` use
DROID's fixed stereo baseline `[-0.1, 0, 0 | identity]`.

Jacobians are of the projected pixel `(u, v)` with respect to a left perturbation of pose j
(`Jj`, `[..., 2, 6]`, tangent `[tau, phi]`), of pose i (`Ji = -Adj_Gij^T Jj`) and of the inverse
depth of pixel i (`Jz`, `[..., 2, 1]`). As in the official code, the projection Jacobian leaves
out the depth row, and points with `Z < MIN_DEPTH / 2` are projected as if `Z = 1`.
"""

import torch

from metrics.slam import se3

MIN_DEPTH = 0.2
STEREO_BASELINE = (-0.1, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0)


def _intrinsics(intrinsics):
    return intrinsics[..., None, None, :].unbind(dim=-1)


def coords_grid(ht, wd, dtype=torch.float32, device=None):
    """`[ht, wd, 2]` pixel coordinates `(x, y)`."""
    y, x = torch.meshgrid(
        torch.arange(ht, dtype=dtype, device=device),
        torch.arange(wd, dtype=dtype, device=device),
        indexing="ij",
    )
    return torch.stack([x, y], dim=-1)


def iproj(disps, intrinsics, jacobian=False):
    """Inverse projection `[B, N, H, W]` -> homogeneous points `[B, N, H, W, 4]` (and d/d disp)."""
    ht, wd = disps.shape[-2:]
    fx, fy, cx, cy = _intrinsics(intrinsics)
    x, y = coords_grid(ht, wd, dtype=disps.dtype, device=disps.device).unbind(-1)
    ones = torch.ones_like(disps)
    pts = torch.stack([(x - cx) / fx, (y - cy) / fy, ones, disps], dim=-1)
    if not jacobian:
        return pts, None
    jz = torch.zeros_like(pts)
    jz[..., -1] = 1.0
    return pts, jz


def proj(points, intrinsics, jacobian=False, return_depth=False):
    """Pinhole projection of homogeneous points `[B, N, H, W, 4]` -> `[..., 2]` (or 3 with depth)."""
    fx, fy, cx, cy = _intrinsics(intrinsics)
    X, Y, Z, D = points.unbind(dim=-1)
    Z = torch.where(Z < 0.5 * MIN_DEPTH, torch.ones_like(Z), Z)
    d = 1.0 / Z
    x = fx * (X * d) + cx
    y = fy * (Y * d) + cy
    coords = torch.stack([x, y, D * d] if return_depth else [x, y], dim=-1)
    if not jacobian:
        return coords, None
    o = torch.zeros_like(d)
    jac = torch.stack(
        [fx * d, o, -fx * X * d * d, o, o, fy * d, -fy * Y * d * d, o], dim=-1
    ).view(d.shape + (2, 4))
    return coords, jac


def actp(gij, points, jacobian=False):
    """Applies `[B, E, 7]` poses to `[B, E, H, W, 4]` points; the Jacobian is `[..., 4, 6]`."""
    moved = se3.act(gij[:, :, None, None], points)
    if not jacobian:
        return moved, None
    return moved, se3.act4_jacobian(moved)


def relative_poses(poses, ii, jj):
    """`G_jj * G_ii^-1` per edge, `[B, E, 7]`, with DROID's stereo baseline where `ii == jj`."""
    gij = se3.mul(poses[:, jj], se3.inv(poses[:, ii]))
    stereo = ii == jj
    if bool(stereo.any()):
        gij = gij.clone()
        gij[:, stereo] = torch.as_tensor(STEREO_BASELINE, dtype=gij.dtype, device=gij.device)
    return gij


def projective_transform(poses, disps, intrinsics, ii, jj, jacobian=False, return_depth=False):
    """Maps every pixel of frames `ii` into frames `jj`.

    Returns `(coords [B, E, H, W, 2|3], valid [B, E, H, W, 1])` and, with `jacobian`, also
    `(Ji, Jj, Jz)` of shapes `[B, E, H, W, 2, 6]`, `[B, E, H, W, 2, 6]`, `[B, E, H, W, 2, 1]`.
    """
    X0, jz = iproj(disps[:, ii], intrinsics[:, ii], jacobian=jacobian)
    gij = relative_poses(poses, ii, jj)
    X1, ja = actp(gij, X0, jacobian=jacobian)
    x1, jp = proj(X1, intrinsics[:, jj], jacobian=jacobian, return_depth=return_depth)
    valid = ((X1[..., 2] > MIN_DEPTH) & (X0[..., 2] > MIN_DEPTH)).to(disps.dtype)[..., None]
    if not jacobian:
        return x1, valid
    jj_jac = jp @ ja
    ji_jac = -se3.adjT(gij[:, :, None, None, None], jj_jac)
    jz = se3.act(gij[:, :, None, None], jz)
    jz = jp @ jz[..., None]
    return x1, valid, (ji_jac, jj_jac, jz)


def induced_flow(poses, disps, intrinsics, ii, jj):
    """Optical flow `[B, E, H, W, 2]` that the camera motion induces, and its validity mask."""
    ht, wd = disps.shape[-2:]
    coords0 = coords_grid(ht, wd, dtype=disps.dtype, device=disps.device)
    coords1, valid = projective_transform(poses, disps, intrinsics, ii, jj)
    return coords1[..., :2] - coords0, valid
