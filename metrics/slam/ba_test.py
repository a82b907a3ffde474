"""Dense BA on a synthetic three-view scene with known poses and depths.

The reference solves the same damped Schur system from a dense Jacobian assembled out of
`projective`'s (independently written) Jacobians.
"""

import pytest
import torch

from metrics.slam import ba, projective, se3

D = torch.float64
H, W = 6, 8
T0, T1 = 1, 3
LM, EP = 1e-4, 0.1
INTR = torch.tensor([20.0, 20.0, 3.5, 2.5], dtype=D)
II = torch.tensor([0, 1, 0, 2, 1, 2])
JJ = torch.tensor([1, 0, 2, 0, 2, 1])


@pytest.fixture(scope="module")
def truth():
    gen = torch.Generator().manual_seed(3)
    xi = torch.zeros(3, 6, dtype=D)
    xi[1:] = 0.1 * torch.randn(2, 6, generator=gen, dtype=D)
    poses = se3.exp(xi)
    disps = 0.4 + 0.4 * torch.rand(3, H, W, generator=gen, dtype=D)
    target, _ = projective.projective_transform(poses[None], disps[None], INTR.expand(1, 3, 4), II, JJ)
    return poses, disps, target[0].permute(0, 3, 1, 2).contiguous()


def _perturbed(truth, scale=1.0):
    poses, disps, target = truth
    gen = torch.Generator().manual_seed(4)
    p = poses.clone()
    p[1:] = se3.retr(p[1:], scale * 0.02 * torch.randn(2, 6, generator=gen, dtype=D))
    d = disps * (1 + scale * 0.05 * torch.randn(3, H, W, generator=gen, dtype=D))
    return p, d


def _run(poses, disps, target, iterations=1, motion_only=False, weights=None, eta=None):
    weights = torch.ones(len(II), 2, H, W, dtype=D) if weights is None else weights
    eta = torch.full((3, H, W), 1e-3, dtype=D) if eta is None else eta
    return ba.ba(poses, disps, INTR, torch.zeros(3, H, W, dtype=D), target, weights, eta, II, JJ,
                 T0, T1, iterations, LM, EP, motion_only)


def _sq_residual(poses, disps, target):
    coords, _ = projective.projective_transform(poses[None], disps[None], INTR.expand(1, 3, 4), II, JJ)
    return float(((coords[0].permute(0, 3, 1, 2) - target) ** 2).sum())


def test_truth_is_a_fixed_point(truth):
    poses, disps, target = truth
    p, d = poses.clone(), disps.clone()
    dx, dz = _run(p, d, target)
    assert float(dx.abs().max()) < 1e-10 and float(dz.abs().max()) < 1e-10
    assert torch.allclose(p, poses, atol=1e-10) and torch.allclose(d, disps, atol=1e-10)


def test_one_step_reduces_the_residual(truth):
    p, d = _perturbed(truth)
    before = _sq_residual(p, d, truth[2])
    _run(p, d, truth[2])
    after = _sq_residual(p, d, truth[2])
    assert after < 0.5 * before, (before, after)
    assert torch.equal(p[0], truth[0][0])  # poses before t0 stay fixed


def _reference(poses, disps, target, eta, skip_first_pose):
    """Damped Schur solve from a dense Jacobian of projective_ops' residuals."""
    coords, _, (ji, jj, jz) = projective.projective_transform(
        poses[None], disps[None], INTR.expand(1, 3, 4), II, JJ, jacobian=True)
    n_pose, n_pix = 6 * (T1 - T0), H * W
    rows = []
    for e in range(len(II)):
        jac = torch.zeros(n_pix, 2, n_pose + 3 * n_pix, dtype=D)
        for frame, block in ((int(II[e]), ji[0, e]), (int(JJ[e]), jj[0, e])):
            if frame >= T0:
                jac[:, :, 6 * (frame - T0):6 * (frame - T0 + 1)] += block.reshape(n_pix, 2, 6)
        cols = n_pose + int(II[e]) * n_pix + torch.arange(n_pix)
        jac[torch.arange(n_pix), :, cols] = jz[0, e].reshape(n_pix, 2)
        rows.append(jac.reshape(-1, jac.shape[-1]))
    jac = torch.cat(rows)
    res = (target.permute(0, 2, 3, 1) - coords[0]).reshape(-1)
    hess = 1e-3 * jac.T @ jac
    grad = 1e-3 * jac.T @ res
    hpp, hpd = hess[:n_pose, :n_pose], hess[:n_pose, n_pose:]
    cdd = torch.diagonal(hess[n_pose:, n_pose:]) + eta.reshape(-1)
    schur = hpp - (hpd / cdd) @ hpd.T
    rhs = grad[:n_pose] - hpd @ (grad[n_pose:] / cdd)
    dx = torch.linalg.solve(schur + torch.diag(EP + LM * torch.diagonal(schur)), rhs)
    back = dx.clone()
    if skip_first_pose:
        back[:6] = 0
    dz = (grad[n_pose:] - hpd.T @ back) / cdd
    return dx.reshape(-1, 6), dz.reshape(3, H * W)


def test_step_matches_dense_schur_reference_with_the_kernels_index_quirk(truth):
    p, d = _perturbed(truth)
    eta = torch.full((3, H, W), 1e-3, dtype=D)
    ref_dx, ref_dz = _reference(p, d, truth[2], eta, skip_first_pose=True)
    _, ref_dz_fixed = _reference(p, d, truth[2], eta, skip_first_pose=False)
    dx, dz = _run(p.clone(), d.clone(), truth[2], eta=eta)
    assert torch.allclose(dx, ref_dx, atol=1e-10, rtol=1e-8)
    assert torch.allclose(dz, ref_dz, atol=1e-10, rtol=1e-8)
    # The official kernel drops dx[0] from the depth update; "fixing" it would change dz.
    assert float((dz - ref_dz_fixed).abs().max()) > 1e-4


def test_motion_only_keeps_depths(truth):
    p, d = _perturbed(truth)
    d0 = d.clone()
    dx, dz = _run(p, d, truth[2], motion_only=True)
    assert dz is None and torch.equal(d, d0)
    assert float(dx.abs().max()) > 0


def test_stereo_edge_has_depth_terms_only(truth):
    poses, disps, target = truth
    ii = torch.tensor([1])
    terms = ba.edge_terms(poses, disps, INTR, target[:1], torch.ones(1, 2, H, W, dtype=D), ii, ii)
    assert float(terms["H"].abs().max()) == 0 and float(terms["Eij"].abs().max()) == 0
    assert float(terms["C"].min()) > 0


def test_pose_retr_keeps_the_kernels_small_angle_rule():
    pose = se3.exp(torch.tensor([[0.3, -0.2, 0.5, 0.4, 0.1, -0.3]], dtype=D))
    big = torch.tensor([[0.1, 0.2, -0.3, 0.05, -0.02, 0.03]], dtype=D)
    assert torch.allclose(ba.pose_retr(pose, big), se3.retr(pose, big), atol=1e-12)
    small = torch.tensor([[1.0, 2.0, 3.0, 5e-5, 0.0, 0.0]], dtype=D)
    got, lie = ba.pose_retr(pose, small), se3.retr(pose, small)
    assert torch.allclose(got, lie, atol=1e-4)
    assert float((got - lie).abs().max()) > 1e-5  # lietorch's exp couples tau and phi here


def test_bad_shapes_are_rejected(truth):
    p, d = _perturbed(truth)
    with pytest.raises(ValueError, match="eta must hold"):
        _run(p, d, truth[2], eta=torch.ones(2, H, W, dtype=D))
    with pytest.raises(ValueError, match="targets must be"):
        _run(p, d, truth[2][:2])


def test_two_view_problem_converges_to_the_truth():
    gen = torch.Generator().manual_seed(9)
    poses = se3.exp(torch.cat([torch.zeros(1, 6, dtype=D), 0.1 * torch.randn(1, 6, generator=gen, dtype=D)]))
    disps = 0.4 + 0.4 * torch.rand(2, H, W, generator=gen, dtype=D)
    ii, jj = torch.tensor([0, 1]), torch.tensor([1, 0])
    target, _ = projective.projective_transform(poses[None], disps[None], INTR.expand(1, 2, 4), ii, jj)
    target = target[0].permute(0, 3, 1, 2).contiguous()
    p = poses.clone()
    p[1] = se3.retr(p[1], 0.01 * torch.randn(6, generator=gen, dtype=D))
    d = disps * (1 + 0.03 * torch.randn(2, H, W, generator=gen, dtype=D))

    def residual():
        coords, _ = projective.projective_transform(p[None], d[None], INTR.expand(1, 2, 4), ii, jj)
        return float(((coords[0].permute(0, 3, 1, 2) - target) ** 2).sum())

    history = [residual()]
    for _ in range(3):
        ba.ba(p, d, INTR, torch.zeros(2, H, W, dtype=D), target, torch.ones(2, 2, H, W, dtype=D),
              torch.full((2, H, W), 1e-4, dtype=D), ii, jj, 1, 2, 1, LM, EP)
        history.append(residual())
    assert history[1] < history[0] and history[3] < 0.05 * history[0], history
