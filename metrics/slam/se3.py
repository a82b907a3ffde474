"""SE(3) in pure PyTorch with lietorch's conventions (princeton-vl/lietorch, `SE3`).

Storage: a group element is a `[..., 7]` tensor `[tx, ty, tz, qx, qy, qz, qw]` (translation,
then a unit quaternion with the real part last). A tangent vector is `[..., 6]`
`[tau, phi]`: translational part first, rotational part second. Like lietorch, every
operation normalises the stored quaternion before using it, and `retr(g, xi)` multiplies on
the LEFT: `exp(xi) * g`.

Every function broadcasts over leading dimensions and works in the input's dtype. Gradients
flow through the 7-vector storage by ordinary autograd (lietorch instead back-propagates in
the tangent space; DROID-SLAM's inference path does not differentiate through these ops).
The small-angle branches use lietorch's threshold `EPS` and its Taylor coefficients.
"""

import torch

EPS = 1e-6  # lietorch include/common.h


def _split(g):
    t, q = g[..., :3], g[..., 3:]
    return t, q / q.norm(dim=-1, keepdim=True)


def _cross(a, b):
    a, b = torch.broadcast_tensors(a, b)
    return torch.linalg.cross(a, b, dim=-1)


def quat_mul(a, b):
    """Hamilton product of `[..., 4]` quaternions stored `[x, y, z, w]` (no normalisation)."""
    av, aw = a[..., :3], a[..., 3:]
    bv, bw = b[..., :3], b[..., 3:]
    v = aw * bv + bw * av + _cross(av, bv)
    w = aw * bw - (av * bv).sum(-1, keepdim=True)
    return torch.cat([v, w], dim=-1)


def quat_rotate(q, p):
    """Rotates `[..., 3]` points by `[..., 4]` quaternions as Eigen does (q assumed unit)."""
    qv, qw = q[..., :3], q[..., 3:]
    uv = 2.0 * _cross(qv, p)
    return p + qw * uv + _cross(qv, uv)


def quat_conj(q):
    return torch.cat([-q[..., :3], q[..., 3:]], dim=-1)


def hat(v):
    """`[..., 3]` -> `[..., 3, 3]` skew-symmetric matrices with hat(a) @ b == a x b."""
    x, y, z = v.unbind(-1)
    o = torch.zeros_like(x)
    return torch.stack([o, -z, y, z, o, -x, -y, x, o], dim=-1).view(v.shape + (3,))


def _sqrt(x):
    # Clamped so that the gradient at 0 stays finite (the small-angle branches use x itself).
    return x.clamp_min(torch.finfo(x.dtype).tiny).sqrt()


def _theta(phi):
    theta2 = (phi * phi).sum(-1, keepdim=True)
    return theta2, _sqrt(theta2)


def so3_exp(phi, eps=EPS):
    """`[..., 3]` rotation vectors -> `[..., 4]` quaternions `[x, y, z, w]`."""
    theta2, theta = _theta(phi)
    small = theta < eps
    safe = torch.where(small, torch.ones_like(theta), theta)
    theta4 = theta2 * theta2
    imag = torch.where(small, 0.5 - theta2 / 48.0 + theta4 / 3840.0, torch.sin(0.5 * safe) / safe)
    real = torch.where(small, 1.0 - theta2 / 8.0 + theta4 / 384.0, torch.cos(0.5 * safe))
    return torch.cat([imag * phi, real], dim=-1)


def so3_log(q):
    """`[..., 4]` unit quaternions -> `[..., 3]` rotation vectors (lietorch's atan form)."""
    v, w = q[..., :3], q[..., 3:]
    n2 = (v * v).sum(-1, keepdim=True)
    n = _sqrt(n2)
    tiny_n = n2 < EPS * EPS
    tiny_w = w.abs() < EPS
    safe_n = torch.where(tiny_n, torch.ones_like(n), n)
    safe_w = torch.where(tiny_w | (w == 0), torch.ones_like(w), w)
    near_identity = 2.0 / safe_w - (2.0 / 3.0) * n2 / (safe_w * safe_w * safe_w)
    half_turn = torch.where(w > 0, torch.pi / safe_n, -torch.pi / safe_n)
    general = 2.0 * torch.atan(n / safe_w) / safe_n
    factor = torch.where(tiny_n, near_identity, torch.where(tiny_w, half_turn, general))
    return factor * v


def left_jacobian(phi):
    """SO(3) left Jacobian `[..., 3, 3]` of lietorch (`I + c1 Phi + c2 Phi^2`)."""
    theta2, theta = _theta(phi)
    small = theta < EPS
    safe = torch.where(small, torch.ones_like(theta), theta)
    c1 = torch.where(small, 0.5 - theta2 / 24.0, (1.0 - torch.cos(safe)) / (safe * safe))
    c2 = torch.where(small, 1.0 / 6.0 - theta2 / 120.0, (safe - torch.sin(safe)) / (safe**3))
    Phi = hat(phi)
    eye = torch.eye(3, dtype=phi.dtype, device=phi.device)
    return eye + c1[..., None] * Phi + c2[..., None] * (Phi @ Phi)


def left_jacobian_inverse(phi):
    """Inverse of `left_jacobian` as lietorch writes it (`I - Phi/2 + c2 Phi^2`)."""
    _, theta = _theta(phi)
    small = theta < EPS
    safe = torch.where(small, torch.ones_like(theta), theta)
    half = 0.5 * safe
    c2 = torch.where(
        small,
        torch.full_like(theta, 1.0 / 12.0),
        (1.0 - safe * torch.cos(half) / (2.0 * torch.sin(half))) / (safe * safe),
    )
    Phi = hat(phi)
    eye = torch.eye(3, dtype=phi.dtype, device=phi.device)
    return eye - 0.5 * Phi + c2[..., None] * (Phi @ Phi)


def identity(shape, dtype=torch.float32, device=None):
    """Identity elements of shape `shape + (7,)`."""
    shape = (shape,) if isinstance(shape, int) else tuple(shape)
    g = torch.zeros(shape + (7,), dtype=dtype, device=device)
    g[..., 6] = 1.0
    return g


def exp(xi):
    """Tangent `[..., 6]` = `[tau, phi]` -> group `[..., 7]`: (Exp(phi), J_l(phi) tau)."""
    tau, phi = xi[..., :3], xi[..., 3:]
    t = (left_jacobian(phi) @ tau[..., None])[..., 0]
    return torch.cat([t, so3_exp(phi)], dim=-1)


def log(g):
    """Group `[..., 7]` -> tangent `[..., 6]`, the inverse of `exp`."""
    t, q = _split(g)
    phi = so3_log(q)
    tau = (left_jacobian_inverse(phi) @ t[..., None])[..., 0]
    return torch.cat([tau, phi], dim=-1)


def inv(g):
    t, q = _split(g)
    qi = quat_conj(q)
    return torch.cat([-quat_rotate(qi, t), qi], dim=-1)


def mul(a, b):
    """Composition `a * b` (apply b first), broadcasting."""
    ta, qa = _split(a)
    tb, qb = _split(b)
    q = quat_mul(qa, qb)
    q = q / q.norm(dim=-1, keepdim=True)
    return torch.cat([ta + quat_rotate(qa, tb), q], dim=-1)


def act(g, p):
    """Acts on `[..., 3]` points (`R p + t`) or `[..., 4]` homogeneous points (`[R X + t W, W]`)."""
    t, q = _split(g)
    if p.shape[-1] == 3:
        return quat_rotate(q, p) + t
    if p.shape[-1] == 4:
        xyz, w = p[..., :3], p[..., 3:]
        moved = quat_rotate(q, xyz) + t * w
        return torch.cat([moved, w.expand(moved.shape[:-1] + (1,))], dim=-1)
    raise ValueError(f"act expects points of size 3 or 4 in the last dim, got {tuple(p.shape)}")


def adj(g, xi):
    """`Adj_g xi` with `Adj_g = [[R, hat(t) R], [0, R]]` (so `g exp(xi) g^-1 = exp(Adj_g xi)`)."""
    t, q = _split(g)
    r_tau = quat_rotate(q, xi[..., :3])
    r_phi = quat_rotate(q, xi[..., 3:])
    return torch.cat([r_tau + _cross(t, r_phi), r_phi], dim=-1)


def adjT(g, a):  # noqa: N802 (lietorch's name)
    """`Adj_g^T a`, the dual adjoint DROID uses to move a Jacobian from frame j to frame i."""
    t, q = _split(g)
    qi = quat_conj(q)
    a_tau, a_phi = a[..., :3], a[..., 3:]
    return torch.cat([quat_rotate(qi, a_tau), quat_rotate(qi, a_phi - _cross(t, a_tau))], dim=-1)


def adj_matrix(g):
    """The `[..., 6, 6]` adjoint matrix of g."""
    eye = torch.eye(6, dtype=g.dtype, device=g.device)
    cols = adj(g[..., None, :], eye.expand(g.shape[:-1] + (6, 6)))
    return cols.transpose(-1, -2)


def matrix(g):
    """`[..., 4, 4]` homogeneous matrices `[[R, t], [0, 1]]`."""
    eye = torch.eye(4, dtype=g.dtype, device=g.device).expand(g.shape[:-1] + (4, 4))
    return act(g[..., None, :], eye).transpose(-1, -2)


def retr(g, xi):
    """lietorch's retraction: `exp(xi) * g`."""
    return mul(exp(xi), g)


def act4_jacobian(p):
    """d(exp(xi) * p)/d xi at xi = 0 for homogeneous `[..., 4]` points: `[..., 4, 6]`."""
    xyz, w = p[..., :3], p[..., 3:]
    top = torch.cat([w[..., None] * torch.eye(3, dtype=p.dtype, device=p.device), hat(-xyz)], dim=-1)
    bottom = torch.zeros(p.shape[:-1] + (1, 6), dtype=p.dtype, device=p.device)
    return torch.cat([top, bottom], dim=-2)
