"""Mamba's selective scan (S6) in plain PyTorch, chunked so that long sequences fit.

The function computes what `mamba_ssm.ops.selective_scan_interface.selective_scan_fn`
(mamba-ssm 2.x) computes in its CUDA kernel, for the arguments a 2-D visual Mamba block
passes (real A, input-dependent B and C in groups):

    delta_t = softplus(delta_t + delta_bias)          (softplus only if delta_softplus)
    h_t     = exp(delta_t * A) * h_{t-1} + delta_t * B_t * u_t      h_0 = 0, per (d, n)
    y_t     = sum_n C_t[n] h_t[n] + D * u_t
    y_t     = y_t * silu(z_t)                          (only if z is given)

Shapes: u, delta, z (batch, dim, L); A (dim, n); B, C (batch, groups, n, L), each group
serving dim // groups consecutive channels; D, delta_bias (dim,). The arithmetic is in
float32 (float64 if u is float64), as the kernel's; the result has u's dtype.

The recurrence runs step by step (each step one fused multiply-add over
(batch, dim, n), so the result is the recurrence's, not a reassociated closed form);
exp(delta A) and delta B u are formed `chunk` steps at a time, so memory stays at
batch * dim * n * chunk instead of the reference's batch * dim * L * n.
"""

from typing import Optional

import torch
from torch.nn import functional as F

DEFAULT_CHUNK = 64


def _expand_groups(x: torch.Tensor, dim: int, name: str) -> torch.Tensor:
    """(batch, groups, n, L) -> (batch, dim, n, L), group g covering its dim//groups rows."""
    if x.ndim != 4:
        raise ValueError(f"{name} must be (batch, groups, n, L), got shape {tuple(x.shape)}")
    groups = x.shape[1]
    if dim % groups:
        raise ValueError(f"{name} has {groups} groups, which do not divide dim {dim}")
    return x.repeat_interleave(dim // groups, dim=1)


def selective_scan(u: torch.Tensor, delta: torch.Tensor, A: torch.Tensor, B: torch.Tensor,
                   C: torch.Tensor, D: Optional[torch.Tensor] = None,
                   z: Optional[torch.Tensor] = None, delta_bias: Optional[torch.Tensor] = None,
                   delta_softplus: bool = False, return_last_state: bool = False,
                   chunk: int = DEFAULT_CHUNK):
    """The selective scan; see the module docstring for the formula and shapes.

    Returns:
        y (batch, dim, L) in u's dtype, and with return_last_state also h_L
        (batch, dim, n) in the compute dtype.

    Raises:
        ValueError: on inconsistent shapes or a complex A (not supported).
    """
    if u.ndim != 3 or delta.shape != u.shape:
        raise ValueError(f"u and delta must be equal (batch, dim, L) shapes, got "
                         f"{tuple(u.shape)} and {tuple(delta.shape)}")
    batch, dim, length = u.shape
    if A.is_complex() or A.ndim != 2 or A.shape[0] != dim:
        raise ValueError(f"A must be a real (dim={dim}, n) tensor, got {tuple(A.shape)} "
                         f"{A.dtype}")
    if chunk < 1:
        raise ValueError(f"chunk must be positive, got {chunk}")
    work = torch.float64 if u.dtype == torch.float64 else torch.float32
    n = A.shape[1]
    u_w, delta_w, A_w = u.to(work), delta.to(work), A.to(work)
    if delta_bias is not None:
        delta_w = delta_w + delta_bias.to(work)[None, :, None]
    if delta_softplus:
        delta_w = F.softplus(delta_w)  # torch's threshold 20, as the kernel's
    B_w = _expand_groups(B.to(work), dim, "B")
    C_w = _expand_groups(C.to(work), dim, "C")
    if B_w.shape != (batch, dim, n, length) or C_w.shape != (batch, dim, n, length):
        raise ValueError(f"B and C must be (batch={batch}, groups, n={n}, L={length}), got "
                         f"{tuple(B.shape)} and {tuple(C.shape)}")
    state = u_w.new_zeros((batch, dim, n))
    outputs = []
    for start in range(0, length, chunk):
        stop = min(start + chunk, length)
        state, y = _chunk(state, u_w[..., start:stop], delta_w[..., start:stop], A_w,
                          B_w[..., start:stop], C_w[..., start:stop])
        outputs.append(y)
    y = torch.cat(outputs, dim=-1)
    if D is not None:
        y = y + u_w * D.to(work)[None, :, None]
    if z is not None:
        y = y * F.silu(z.to(work))
    y = y.to(u.dtype)
    return (y, state) if return_last_state else y


def _chunk(state, u, delta, A, B, C):
    """One chunk: the state after it and its outputs (batch, dim, T)."""
    decay = torch.exp(delta[..., None] * A[None, :, None, :])  # (b, d, T, n)
    inputs = (delta * u)[..., None] * B.transpose(2, 3)  # (b, d, T, n)
    states = torch.empty_like(decay)
    for t in range(u.shape[-1]):
        state = torch.addcmul(inputs[:, :, t], decay[:, :, t], state)
        states[:, :, t] = state
    return state, torch.einsum("bdtn,bdnt->bdt", states, C)
