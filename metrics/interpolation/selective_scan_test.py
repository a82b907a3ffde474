"""The chunked selective scan against a direct step-by-step recurrence in float64, and
against mamba-ssm's CUDA kernel where it imports and a GPU is present."""

import importlib.util

import pytest
import torch
from torch.nn import functional as F

from metrics.interpolation import selective_scan as scan_lib

# One thread: these small models spend more time in thread hand-offs than in arithmetic,
# and much more so on a loaded CI machine.
torch.set_num_threads(1)


def _recurrence(u, delta, A, B, C, D, z, delta_bias, softplus):
    """h_t = exp(dt A) h_{t-1} + dt B_t u_t; y_t = C_t . h_t + D u_t (times silu(z)), one
    step and one channel at a time, in float64."""
    u, delta, A, B, C = (t.double() for t in (u, delta, A, B, C))
    batch, dim, length = u.shape
    per_group = dim // B.shape[1]
    y = torch.zeros_like(u)
    last = torch.zeros(batch, dim, A.shape[1], dtype=torch.float64)
    for b in range(batch):
        for d in range(dim):
            g = d // per_group
            h = torch.zeros(A.shape[1], dtype=torch.float64)
            for t in range(length):
                dt = delta[b, d, t] + (delta_bias[d].double() if delta_bias is not None else 0)
                if softplus:
                    dt = torch.log1p(torch.exp(dt))
                h = torch.exp(dt * A[d]) * h + dt * B[b, g, :, t] * u[b, d, t]
                y[b, d, t] = (C[b, g, :, t] * h).sum()
            last[b, d] = h
    if D is not None:
        y = y + u * D.double()[None, :, None]
    if z is not None:
        y = y * F.silu(z.double())
    return y, last


def _inputs(batch=1, dim=8, groups=4, n=4, length=21, seed=0, dtype=torch.float64):
    g = torch.Generator().manual_seed(seed)
    r = lambda *s: torch.randn(*s, generator=g, dtype=dtype)  # noqa: E731
    return dict(u=r(batch, dim, length), delta=r(batch, dim, length) * 0.5,
                A=-torch.exp(r(dim, n)), B=r(batch, groups, n, length),
                C=r(batch, groups, n, length), D=r(dim), z=r(batch, dim, length),
                delta_bias=r(dim) * 0.3)


@pytest.mark.parametrize("chunk", [1, 8, 64])  # 21 steps: 21 chunks, 3 (one partial), 1
@pytest.mark.parametrize("use_z", [False, True])
def test_equals_the_step_by_step_recurrence_in_float64(chunk, use_z):
    args = _inputs()
    z = args.pop("z")
    z = z if use_z else None
    want, want_last = _recurrence(**args, z=z, softplus=True)
    got, got_last = scan_lib.selective_scan(**args, z=z, delta_softplus=True,
                                            return_last_state=True, chunk=chunk)
    assert got.dtype == torch.float64
    torch.testing.assert_close(got, want, rtol=1e-10, atol=1e-10)
    torch.testing.assert_close(got_last, want_last, rtol=1e-10, atol=1e-10)


def test_without_softplus_bias_and_skip():
    args = _inputs(seed=1)
    args["delta"] = args["delta"].abs()
    want, _ = _recurrence(args["u"], args["delta"], args["A"], args["B"], args["C"], None,
                          None, None, False)
    got = scan_lib.selective_scan(args["u"], args["delta"], args["A"], args["B"], args["C"])
    torch.testing.assert_close(got, want, rtol=1e-10, atol=1e-10)


def test_float32_follows_float64_and_keeps_dtype():
    args = _inputs(batch=2, seed=2, length=300)
    want = scan_lib.selective_scan(**args, delta_softplus=True)
    got = scan_lib.selective_scan(**{k: v.float() for k, v in args.items()},
                                  delta_softplus=True)
    assert got.dtype == torch.float32
    torch.testing.assert_close(got.double(), want, rtol=1e-4, atol=1e-4)


def test_strong_decay_does_not_overflow():
    """Strong decays (exp(delta A) underflowing to 0) stay finite, chunk boundaries included."""
    args = _inputs(seed=3, length=200)
    args["A"] = args["A"] * 50
    got = scan_lib.selective_scan(**{k: v.float() for k, v in args.items()},
                                  delta_softplus=True, chunk=100)
    assert torch.isfinite(got).all()


def test_bad_shapes_raise():
    args = _inputs()
    with pytest.raises(ValueError, match="groups"):
        scan_lib.selective_scan(**{**args, "B": args["B"][:, :3]})
    with pytest.raises(ValueError, match="A must be"):
        scan_lib.selective_scan(**{**args, "A": args["A"][:3]})


_HAS_MAMBA = importlib.util.find_spec("mamba_ssm") is not None


@pytest.mark.skipif(not (_HAS_MAMBA and torch.cuda.is_available()),
                    reason="mamba-ssm's CUDA kernels need the mamba_ssm package (PyPI ships "
                    "only an sdist that compiles against CUDA; it is not in the lock) and a GPU")
def test_equals_mamba_ssm_kernel_within_1e5():  # pragma: no cover (GPU machines only)
    from mamba_ssm.ops.selective_scan_interface import selective_scan_fn  # pylint: disable=import-outside-toplevel
    args = {k: v.float().cuda() for k, v in _inputs(dim=64, length=500, seed=4).items()}
    args["z"] = None
    want = selective_scan_fn(**args, delta_softplus=True)
    got = scan_lib.selective_scan(**args, delta_softplus=True)
    torch.testing.assert_close(got, want, rtol=1e-5, atol=1e-5)
