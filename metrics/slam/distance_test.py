"""Frame distance: a known translation, the beta mix against induced flow, the 1000 sentinel."""

import torch

from metrics.slam import distance, projective, se3

D = torch.float64
H, W = 5, 6
INTR = torch.tensor([10.0, 12.0, 2.5, 2.0], dtype=D)


def test_pure_translation_moves_every_pixel_by_f_t_d():
    poses = se3.identity(2, dtype=D)
    poses[1, 0] = 0.2
    disps = torch.full((2, H, W), 0.5, dtype=D)
    d = distance.frame_distance(poses, disps, INTR, torch.tensor([0, 1]), torch.tensor([1, 1]), 0.7)
    assert torch.allclose(d, torch.tensor([10.0 * 0.2 * 0.5, 0.0], dtype=D))


def test_beta_mixes_full_and_translation_only_flow():
    gen = torch.Generator().manual_seed(8)
    poses = se3.exp(0.1 * torch.randn(2, 6, generator=gen, dtype=D))
    disps = 0.2 + 0.3 * torch.rand(2, H, W, generator=gen, dtype=D)
    ii, jj = torch.tensor([0]), torch.tensor([1])
    intr = INTR.expand(1, 2, 4)
    full, _ = projective.induced_flow(poses[None], disps[None], intr, ii, jj)
    gij = projective.relative_poses(poses[None], ii, jj)
    trans_only = se3.identity((1, 2), dtype=D)
    trans_only[0, 1, :3] = gij[0, 0, :3]  # frame 0 at identity: G_10 = (t, I)
    trans, _ = projective.induced_flow(trans_only, disps[None], intr, ii, jj)
    beta = 0.3
    want = beta * full.norm(dim=-1).mean() + (1 - beta) * trans.norm(dim=-1).mean()
    got = distance.frame_distance(poses, disps, INTR, ii, jj, beta)
    assert torch.allclose(got, want.view(1))


def test_mostly_invalid_pairs_are_far():
    poses = se3.identity(2, dtype=D)
    poses[1, 2] = -1.0  # pushes points with disparity >= 1 behind the camera
    disps = torch.full((2, H, W), 0.5, dtype=D)
    disps[0, :2] = 2.0  # 12 of 30 pixels invalid: 60% valid < 75%
    d = distance.frame_distance(poses, disps, INTR, torch.tensor([0]), torch.tensor([1]), 0.5)
    assert float(d) == 1000.0
    disps[0, :1] = 0.5  # 6 of 30 invalid: 80% valid
    d = distance.frame_distance(poses, disps, INTR, torch.tensor([0]), torch.tensor([1]), 0.5)
    assert float(d) < 1000.0
