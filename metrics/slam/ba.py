"""DROID-SLAM's dense bundle adjustment step in PyTorch (the algorithm of its CUDA `ba`).

One iteration linearises the flow residuals `target - proj(G_ij X_i(d_i))` of every edge
`(ii[e], jj[e])`, with weights `0.001 * weight` (zero where the transformed depth is below
`MIN_DEPTH` = 0.25, the kernel's value, not projective_ops' 0.2), builds the normal equations
over the poses `t0 .. t1-1` (earlier poses stay fixed) and the per-pixel inverse depths of
every frame that appears as a source `ii` (or in `t0 .. t1-1`), eliminates the depths with the
Schur complement, solves the damped pose system `(H + ep + lm * diag H) dx = b` (Cholesky in
float64; a failed factorisation gives `dx = 0`, as Eigen's branch does) and back-substitutes
the depth update. Depth damping is `eta` where a frame has no sensor depth; sensor depths
(`disps_sens > 0`) add a prior with weight `alpha = 0.05` instead.

Kept from the official kernel, on purpose (pinned by tests):
- the pose update is the kernel's `retrSE3`: `exp(dx) * G` without normalising the quaternion,
  with a small-angle rule (`theta <= 1e-4`: translation = tau) unlike lietorch's `exp`;
- stereo edges (`ii == jj`) use the fixed baseline `[-0.1, 0, 0]`, feed the depth terms, and
  carry no pose terms;
- in the depth back-substitution the kernel skips the first optimised pose (`EvT6x1` returns
  for index 0), so `dx[0]` does not enter `dz`.

`ba(...)` updates `poses` and `disps` in place and returns `(dx, dz)` like `droid_backends.ba`
(the caller, DROID's DepthVideo, then clamps the disparities at 0.001).
"""

import torch

from metrics.slam import se3

MIN_DEPTH = 0.25
WEIGHT_SCALE = 1e-3
SENSOR_ALPHA = 0.05
STEREO_T = (-0.1, 0.0, 0.0)
KERNEL_SMALL_ANGLE = 1e-4


def _adjT_raw(t, q, a):  # noqa: N802
    qi = se3.quat_conj(q)
    a_tau, a_phi = a[..., :3], a[..., 3:]
    cross = torch.linalg.cross(t.expand_as(a_tau), a_tau, dim=-1)
    return torch.cat([se3.quat_rotate(qi, a_tau), se3.quat_rotate(qi, a_phi - cross)], dim=-1)


def relative(poses, ii, jj, stereo_baseline=True):
    """Kernel `relSE3`: `(t_ij, q_ij)` of `G_j G_i^-1` per edge (no normalisation).

    With `stereo_baseline` (the BA kernel), edges with `ii == jj` get DROID's fixed baseline.
    """
    ti, qi = poses[ii, :3], poses[ii, 3:]
    tj, qj = poses[jj, :3], poses[jj, 3:]
    qij = se3.quat_mul(qj, se3.quat_conj(qi))
    tij = tj - se3.quat_rotate(qij, ti)
    if not stereo_baseline:
        return tij, qij
    stereo = (ii == jj)[:, None]
    tij = torch.where(stereo, torch.tensor(STEREO_T, dtype=poses.dtype, device=poses.device), tij)
    qid = torch.tensor([0.0, 0.0, 0.0, 1.0], dtype=poses.dtype, device=poses.device)
    return tij, torch.where(stereo, qid, qij)


def edge_terms(poses, disps, intrinsics, targets, weights, ii, jj):
    """Per-edge linearisation, the kernel's `projective_transform_kernel`.

    Returns a dict: `H` `[4, E, 6, 6]` (blocks ii-ii, ii-jj, jj-ii, jj-jj), `v` `[2, E, 6]`,
    `Eii`, `Eij` `[E, 6, HW]`, `C` `[E, HW]` (depth Hessian) and `bz` `[E, HW]` (depth gradient),
    and `r` `[E, 2, HW]`, the residuals with zeros where the weight was zeroed.
    """
    num = ii.shape[0]
    ht, wd = disps.shape[-2:]
    fx, fy, cx, cy = intrinsics.unbind(-1)
    tij, qij = relative(poses, ii, jj)
    v, u = torch.meshgrid(
        torch.arange(ht, dtype=disps.dtype, device=disps.device),
        torch.arange(wd, dtype=disps.dtype, device=disps.device),
        indexing="ij",
    )
    xi = torch.stack([(u - cx) / fx, (v - cy) / fy, torch.ones_like(u)], dim=-1).reshape(1, -1, 3)
    h = disps[ii].reshape(num, -1)
    xj = se3.quat_rotate(qij[:, None], xi) + tij[:, None] * h[..., None]
    x, y, z = xj.unbind(-1)
    behind = z < MIN_DEPTH
    d = torch.where(behind, torch.zeros_like(z), 1.0 / torch.where(behind, torch.ones_like(z), z))
    d2 = d * d
    w = torch.where(behind[:, None], 0.0, WEIGHT_SCALE * weights.reshape(num, 2, -1))
    r = targets.reshape(num, 2, -1) - torch.stack([fx * d * x + cx, fy * d * y + cy], dim=1)
    o = torch.zeros_like(x)
    jj_u = torch.stack([h * d, o, -x * h * d2, -x * y * d2, 1 + x * x * d2, -y * d], -1) * fx
    jj_v = torch.stack([o, h * d, -y * h * d2, -1 - y * y * d2, x * y * d2, x * d], -1) * fy
    jz = torch.stack([fx * (tij[:, 0:1] * d - tij[:, 2:3] * x * d2),
                      fy * (tij[:, 1:2] * d - tij[:, 2:3] * y * d2)], dim=1)
    jjac = torch.stack([jj_u, jj_v], dim=1)  # [E, 2, HW, 6]
    ijac = -_adjT_raw(tij[:, None, None], qij[:, None, None], jjac)
    c = (w * jz * jz).sum(1)
    bz = (w * r * jz).sum(1)
    wp = torch.where((ii == jj)[:, None, None], 0.0, w)  # stereo: no pose terms
    jx = torch.cat([ijac, jjac], dim=-1)  # [E, 2, HW, 12]
    h12 = torch.einsum("ekp,ekpa,ekpb->eab", wp, jx, jx)
    v12 = torch.einsum("ekp,ekpa->ea", wp * r, jx)
    e12 = torch.einsum("ekp,ekpa->eap", wp * jz, jx)
    return {
        "H": torch.stack([h12[:, :6, :6], h12[:, :6, 6:], h12[:, 6:, :6], h12[:, 6:, 6:]]),
        "v": torch.stack([v12[:, :6], v12[:, 6:]]),
        "Eii": e12[:, :6], "Eij": e12[:, 6:], "C": c, "bz": bz,
        "r": torch.where(w > 0, r, 0.0),
    }


def accum(data, ix, keys):
    """For each key, the sum of the rows of `data` whose `ix` equals it (kernel `accum_cuda`)."""
    match = (ix[None, :] == keys[:, None]).to(data.dtype)
    return (match @ data.reshape(ix.shape[0], -1)).reshape((keys.shape[0],) + data.shape[1:])


def damped_solve(hess, rhs, lm, ep):
    """`(H + ep + lm * diag H) x = b` by Cholesky in float64; zeros if it is not positive definite."""
    hess, rhs = hess.double(), rhs.double()
    damped = hess + torch.diag(ep + lm * torch.diagonal(hess))
    chol, info = torch.linalg.cholesky_ex(damped)
    if int(info) != 0:
        return torch.zeros_like(rhs)
    return torch.cholesky_solve(rhs[:, None], chol)[:, 0]


def pose_retr(poses, dx):
    """The kernel's `retrSE3`: `exp(dx) * G` on `[P, 7]` poses, unnormalised."""
    tau, phi = dx[:, :3], dx[:, 3:]
    dq = se3.so3_exp(phi, eps=KERNEL_SMALL_ANGLE)
    theta2 = (phi * phi).sum(-1, keepdim=True)
    theta = theta2.sqrt()
    big = theta > KERNEL_SMALL_ANGLE
    safe = torch.where(big, theta, torch.ones_like(theta))
    a = torch.where(big, (1 - torch.cos(safe)) / (safe * safe), 0.0)
    b = torch.where(big, (safe - torch.sin(safe)) / (safe**3), 0.0)
    c1 = torch.linalg.cross(phi, tau, dim=-1)
    dt = tau + a * c1 + b * torch.linalg.cross(phi, c1, dim=-1)
    t, q = poses[:, :3], poses[:, 3:]
    return torch.cat([se3.quat_rotate(dq, t) + dt, se3.quat_mul(dq, q)], dim=-1)


def _add_blocks(hess, rows, cols, blocks):
    """Adds `[..., 6, 6]` blocks at block rows/cols (broadcast) of the flat `[6P, 6P]` matrix."""
    ar = torch.arange(6, device=hess.device)
    r = rows[..., None, None] * 6 + ar[:, None]
    c = cols[..., None, None] * 6 + ar[None, :]
    hess.index_put_((r, c), blocks.double(), accumulate=True)


def _pose_system(terms, ii, jj, t0, p):
    hess = torch.zeros(6 * p, 6 * p, dtype=torch.float64, device=ii.device)
    rhs = torch.zeros(p, 6, dtype=torch.float64, device=ii.device)
    for blk, (a, b) in enumerate(((ii, ii), (ii, jj), (jj, ii), (jj, jj))):
        keep = (a >= t0) & (b >= t0)
        _add_blocks(hess, a[keep] - t0, b[keep] - t0, terms["H"][blk][keep])
    for blk, a in enumerate((ii, jj)):
        keep = a >= t0
        rhs.index_add_(0, a[keep] - t0, terms["v"][blk][keep].double())
    return hess, rhs.reshape(-1)


def _schur(e_ext, q, w, pose_e, kk_e, p):
    """`S = E Q E^T` over extended edges sharing a depth frame, and `E Q w`, per pose."""
    hw = q.shape[1]
    hess = torch.zeros(6 * p, 6 * p, dtype=torch.float64, device=q.device)
    keep = pose_e >= 0
    for k in torch.unique(kk_e[keep]).tolist():
        sel = torch.nonzero(keep & (kk_e == k))[:, 0]
        ek = e_ext[sel].reshape(-1, hw)
        blk = ((ek * q[k]) @ ek.T).reshape(len(sel), 6, len(sel), 6).permute(0, 2, 1, 3)
        pe = pose_e[sel]
        _add_blocks(hess, pe[:, None], pe[None, :], blk)
    vec = torch.einsum("eap,ep->ea", e_ext, (q * w)[kk_e])
    rhs = torch.zeros(p, 6, dtype=torch.float64, device=q.device)
    rhs.index_add_(0, pose_e[keep], vec[keep].double())
    return hess, rhs.reshape(-1)


def _check(poses, disps, targets, weights, eta, ii, jj, t0, t1, n_depth, motion_only=False):
    n, ht, wd = disps.shape
    if poses.shape != (n, 7):
        raise ValueError(f"poses must be [{n}, 7] like disps {tuple(disps.shape)}, got {tuple(poses.shape)}")
    e = ii.shape[0]
    for name, x in (("targets", targets), ("weights", weights)):
        if x.shape != (e, 2, ht, wd):
            raise ValueError(f"{name} must be {(e, 2, ht, wd)}, got {tuple(x.shape)}")
    if not 0 <= t0 < t1 <= n:
        raise ValueError(f"need 0 <= t0 < t1 <= {n}, got t0={t0}, t1={t1}")
    if e and int(torch.maximum(ii.max(), jj.max())) >= t1:
        raise ValueError(f"edge indices must be < t1={t1} (the kernel's pose window)")
    if not motion_only and eta.numel() != n_depth * ht * wd:  # motion-only: eta is unused
        raise ValueError(f"eta must hold [{n_depth}, {ht}, {wd}] (one map per depth frame), got {tuple(eta.shape)}")


def ba(poses, disps, intrinsics, disps_sens, targets, weights, eta, ii, jj,
       t0, t1, iterations, lm, ep, motion_only=False, linearize=None):
    """Runs `iterations` damped Gauss-Newton steps in place; returns the last `(dx, dz)`.

    Shapes: poses `[N, 7]`, disps / disps_sens `[N, H, W]`, intrinsics `[4]`, targets and
    weights `[E, 2, H, W]`, eta `[K, H, W]` for the K sorted unique frames of
    `cat(arange(t0, t1), ii)`, ii / jj `[E]` int64. dz is `None` with `motion_only`.
    `linearize` replaces `edge_terms` (the CUDA kernel of metrics/slam/cuda/backend.py).
    """
    linearize = linearize or edge_terms
    p = t1 - t0
    ts = torch.arange(t0, t1, device=ii.device)
    ii_exp, jj_exp = torch.cat([ts, ii]), torch.cat([ts, jj])
    kx, kk_exp = torch.unique(ii_exp, sorted=True, return_inverse=True)
    _check(poses, disps, targets, weights, eta, ii, jj, t0, t1, kx.shape[0], motion_only)
    hw = disps.shape[1] * disps.shape[2]
    dx = dz = None
    for _ in range(iterations):
        terms = linearize(poses, disps, intrinsics, targets, weights, ii, jj)
        hess, rhs = _pose_system(terms, ii, jj, t0, p)
        if not motion_only:
            m = (disps_sens[kx] > 0).to(disps.dtype).reshape(-1, hw)
            c = accum(terms["C"], ii, kx) + m * SENSOR_ALPHA + (1 - m) * eta.reshape(-1, hw)
            w = accum(terms["bz"], ii, kx) - m * SENSOR_ALPHA * (disps[kx] - disps_sens[kx]).reshape(-1, hw)
            q = 1.0 / c
            e_ext = torch.cat([accum(terms["Eii"], ii, ts), terms["Eij"]])
            pose_e = jj_exp - t0
            s_hess, s_rhs = _schur(e_ext, q, w, pose_e, kk_exp, p)
            hess, rhs = hess - s_hess, rhs - s_rhs
        dx = damped_solve(hess, rhs, lm, ep).reshape(p, 6).to(poses.dtype)
        if not motion_only:
            back = (pose_e > 0) & (pose_e < p)  # the kernel skips index 0
            dw = torch.einsum("eap,ea->ep", e_ext, dx[pose_e.clamp(0, p - 1)]) * back[:, None]
            dz = q * (w - accum(dw, ii_exp, kx))
            disps[kx] += dz.reshape(-1, *disps.shape[1:])
        poses[t0:t1] = pose_retr(poses[t0:t1], dx)
    return dx, dz
