"""SE3 against closed forms: the matrix exponential, round trips, group laws, adjoints."""

import math

import pytest
import torch

from metrics.slam import se3

D = torch.float64


def _rand_xi(n, gen, rot=2.0):
    xi = torch.randn(n, 6, generator=gen, dtype=D)
    xi[:, 3:] *= rot / xi[:, 3:].norm(dim=-1, keepdim=True) * torch.rand(n, 1, generator=gen, dtype=D)
    return xi


@pytest.fixture(scope="module")
def gen():
    return torch.Generator().manual_seed(0)


def _twist(xi):
    m = torch.zeros(xi.shape[:-1] + (4, 4), dtype=xi.dtype)
    m[..., :3, :3] = se3.hat(xi[..., 3:])
    m[..., :3, 3] = xi[..., :3]
    return m


def test_storage_and_tangent_order():
    g = se3.exp(torch.tensor([1.0, 2.0, 3.0, 0.0, 0.0, 0.0], dtype=D))
    assert torch.allclose(g, torch.tensor([1.0, 2.0, 3.0, 0, 0, 0, 1], dtype=D))
    th = 0.7
    g = se3.exp(torch.tensor([0, 0, 0, 0, 0, th], dtype=D))
    assert torch.allclose(g, torch.tensor([0, 0, 0, 0, 0, math.sin(th / 2), math.cos(th / 2)], dtype=D))


def test_exp_matches_matrix_exponential(gen):
    xi = _rand_xi(64, gen)
    assert torch.allclose(se3.matrix(se3.exp(xi)), torch.linalg.matrix_exp(_twist(xi)), atol=1e-12)


@pytest.mark.parametrize("scale", [1e-9, 1e-3, 1.0, 3.0])
def test_log_exp_round_trip(gen, scale):
    xi = _rand_xi(32, gen, rot=scale)
    assert torch.allclose(se3.log(se3.exp(xi)), xi, atol=1e-10)


def test_exp_log_round_trip_on_random_elements(gen):
    q = torch.randn(32, 4, generator=gen, dtype=D)
    g = torch.cat([torch.randn(32, 3, generator=gen, dtype=D), q / q.norm(dim=-1, keepdim=True)], -1)
    assert torch.allclose(se3.matrix(se3.exp(se3.log(g))), se3.matrix(g), atol=1e-10)


def test_quaternion_is_normalised_like_lietorch(gen):
    g = se3.exp(_rand_xi(8, gen))
    scaled = torch.cat([g[:, :3], 3.0 * g[:, 3:]], -1)
    for f in (se3.log, se3.inv, se3.matrix):
        assert torch.allclose(f(scaled), f(g), atol=1e-12)


def test_group_laws(gen):
    a, b, c = (se3.exp(_rand_xi(16, gen)) for _ in range(3))
    ma, mb = se3.matrix(a), se3.matrix(b)
    assert torch.allclose(se3.matrix(se3.mul(a, b)), ma @ mb, atol=1e-12)
    left = se3.matrix(se3.mul(se3.mul(a, b), c))
    right = se3.matrix(se3.mul(a, se3.mul(b, c)))
    assert torch.allclose(left, right, atol=1e-12)
    eye = se3.matrix(se3.identity(16, dtype=D))
    assert torch.allclose(se3.matrix(se3.mul(a, se3.inv(a))), eye, atol=1e-12)
    assert torch.allclose(se3.matrix(se3.inv(a)), torch.linalg.inv(ma), atol=1e-12)


def test_adjoint_identity(gen):
    g, xi = se3.exp(_rand_xi(16, gen)), _rand_xi(16, gen, rot=1.0)
    lhs = se3.mul(se3.mul(g, se3.exp(xi)), se3.inv(g))
    assert torch.allclose(se3.matrix(lhs), se3.matrix(se3.exp(se3.adj(g, xi))), atol=1e-10)
    a = torch.randn(16, 6, generator=gen, dtype=D)
    assert torch.allclose((se3.adjT(g, a) * xi).sum(-1), (a * se3.adj(g, xi)).sum(-1), atol=1e-12)
    t, rot = se3.matrix(g)[:, :3, 3], se3.matrix(g)[:, :3, :3]
    expected = torch.zeros(16, 6, 6, dtype=D)
    expected[:, :3, :3] = expected[:, 3:, 3:] = rot
    expected[:, :3, 3:] = se3.hat(t) @ rot
    assert torch.allclose(se3.adj_matrix(g), expected, atol=1e-12)


def test_act_matches_matrix(gen):
    g = se3.exp(_rand_xi(10, gen))
    p = torch.randn(10, 5, 3, generator=gen, dtype=D)
    m = se3.matrix(g)[:, None]
    assert torch.allclose(se3.act(g[:, None], p), (m[..., :3, :3] @ p[..., None])[..., 0] + m[..., :3, 3], atol=1e-12)
    p4 = torch.randn(10, 5, 4, generator=gen, dtype=D)
    assert torch.allclose(se3.act(g[:, None], p4), (m @ p4[..., None])[..., 0], atol=1e-12)
    g3 = g[:3]
    p4b = torch.randn(4, 1, 4, generator=gen, dtype=D)  # broadcasts to [4, 3]
    want = (se3.matrix(g3)[None] @ p4b[..., None])[..., 0]
    assert torch.allclose(se3.act(g3, p4b), want, atol=1e-12)
    with pytest.raises(ValueError, match="size 3 or 4"):
        se3.act(g, torch.zeros(10, 2, dtype=D))


def test_retr_is_left_multiplication(gen):
    g, xi = se3.exp(_rand_xi(8, gen)), _rand_xi(8, gen)
    assert torch.allclose(se3.retr(g, xi), se3.mul(se3.exp(xi), g), atol=1e-12)


def test_act4_jacobian_by_finite_differences(gen):
    g = se3.exp(_rand_xi(4, gen))
    p = torch.randn(4, 4, generator=gen, dtype=D)
    jac = se3.act4_jacobian(se3.act(g, p))
    h = 1e-6
    for k in range(6):
        e = torch.zeros(6, dtype=D)
        e[k] = h
        num = (se3.act(se3.retr(g, e), p) - se3.act(se3.retr(g, -e), p)) / (2 * h)
        assert torch.allclose(num, jac[..., k], atol=1e-8)


def test_exp_is_differentiable_through_small_angle_branch():
    xi = torch.zeros(6, dtype=D, requires_grad=True)
    se3.log(se3.exp(xi)).sum().backward()
    assert torch.isfinite(xi.grad).all()
    assert torch.allclose(xi.grad, torch.ones(6, dtype=D))
