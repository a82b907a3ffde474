"""Projective ops: a known translation, the stereo edge, and finite-difference Jacobians."""

import pytest
import torch

from metrics.slam import projective, se3

D = torch.float64
H, W = 4, 5


@pytest.fixture(scope="module")
def scene():
    gen = torch.Generator().manual_seed(1)
    xi = 0.2 * torch.randn(1, 3, 6, generator=gen, dtype=D)
    poses = se3.exp(xi)
    disps = 0.5 + 0.5 * torch.rand(1, 3, H, W, generator=gen, dtype=D)
    intr = torch.tensor([[[12.0, 11.0, 2.0, 1.5]]], dtype=D).expand(1, 3, 4)
    ii = torch.tensor([0, 1, 2, 0])
    jj = torch.tensor([1, 2, 0, 2])
    return poses, disps, intr, ii, jj


def test_pure_translation_shifts_by_f_t_disparity():
    poses = se3.identity((1, 2), dtype=D)
    poses[0, 1, 0] = 0.3  # frame 1: x translation of the world-to-camera pose
    disps = torch.full((1, 2, H, W), 0.5, dtype=D)
    intr = torch.tensor([10.0, 10.0, 2.0, 1.5], dtype=D).expand(1, 2, 4)
    flow, valid = projective.induced_flow(poses, disps, intr, torch.tensor([0]), torch.tensor([1]))
    assert torch.allclose(flow[..., 0], torch.full_like(flow[..., 0], 10.0 * 0.3 * 0.5))
    assert torch.allclose(flow[..., 1], torch.zeros_like(flow[..., 1]))
    assert bool((valid == 1).all())


def test_stereo_edge_uses_fixed_baseline():
    poses = se3.exp(torch.randn(1, 1, 6, dtype=D))
    disps = torch.ones(1, 1, H, W, dtype=D)
    intr = torch.tensor([10.0, 10.0, 2.0, 1.5], dtype=D).view(1, 1, 4)
    flow, _ = projective.induced_flow(poses, disps, intr, torch.tensor([0]), torch.tensor([0]))
    assert torch.allclose(flow[..., 0], torch.full_like(flow[..., 0], -1.0))


def test_points_behind_min_depth_are_invalid():
    poses = se3.identity((1, 2), dtype=D)
    poses[0, 1, 2] = -0.9  # moves points with disparity 1 to Z = 0.1
    disps = torch.ones(1, 2, H, W, dtype=D)
    intr = torch.tensor([10.0, 10.0, 2.0, 1.5], dtype=D).expand(1, 2, 4)
    _, valid = projective.projective_transform(poses, disps, intr, torch.tensor([0]), torch.tensor([1]))
    assert bool((valid == 0).all())


def _coords(poses, disps, intr, ii, jj):
    return projective.projective_transform(poses, disps, intr, ii, jj)[0]


def test_jacobians_by_finite_differences(scene):
    poses, disps, intr, ii, jj = scene
    _, _, (ji, jj_jac, jz) = projective.projective_transform(poses, disps, intr, ii, jj, jacobian=True)
    h = 1e-6
    for k in range(6):
        e = torch.zeros(6, dtype=D)
        e[k] = h
        for frames, jac in ((jj, jj_jac), (ii, ji)):
            for edge in range(len(ii)):
                plus, minus = poses.clone(), poses.clone()
                f = int(frames[edge])
                plus[0, f] = se3.retr(poses[0, f], e)
                minus[0, f] = se3.retr(poses[0, f], -e)
                num = (_coords(plus, disps, intr, ii, jj) - _coords(minus, disps, intr, ii, jj))[0, edge] / (2 * h)
                assert torch.allclose(num, jac[0, edge, ..., k], atol=1e-6), (k, edge)
    num = (_coords(poses, disps + h, intr, ii, jj) - _coords(poses, disps - h, intr, ii, jj)) / (2 * h)
    assert torch.allclose(num, jz[..., 0], atol=1e-6)


def test_return_depth_gives_projected_disparity(scene):
    poses, disps, intr, ii, jj = scene
    coords, _ = projective.projective_transform(poses, disps, intr, ii, jj, return_depth=True)
    X0, _ = projective.iproj(disps[:, ii], intr[:, ii])
    X1 = se3.act(projective.relative_poses(poses, ii, jj)[:, :, None, None], X0)
    assert torch.allclose(coords[..., 2], X1[..., 3] / X1[..., 2])
