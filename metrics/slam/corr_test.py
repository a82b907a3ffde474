"""Correlation volume and lookup against direct computations (einsum, grid_sample)."""

import pytest
import torch
import torch.nn.functional as F

from metrics.slam import corr

D = torch.float64


@pytest.fixture(scope="module")
def maps():
    gen = torch.Generator().manual_seed(2)
    f1 = torch.randn(1, 2, 8, 8, 16, generator=gen, dtype=D)
    f2 = torch.randn(1, 2, 8, 8, 16, generator=gen, dtype=D)
    coords = torch.rand(1, 2, 8, 16, 2, generator=gen, dtype=D) * torch.tensor([20.0, 12.0], dtype=D) - 2.0
    return f1, f2, coords


def test_all_pairs_is_dot_product_over_16(maps):
    f1, f2, _ = maps
    expected = torch.einsum("bnchw,bncyx->bnhwyx", f1, f2) / 16.0
    assert torch.allclose(corr.all_pairs(f1, f2), expected)


def _reference_lookup(volume, coords, r):
    """Samples with grid_sample (zero padding, align_corners) at x + dx, y + dy; [n, x, y, h, w]."""
    n, h1, w1, h2, w2 = volume.shape
    vol = volume.reshape(n * h1 * w1, 1, h2, w2)
    xy = coords.permute(0, 2, 3, 1).reshape(n * h1 * w1, 1, 1, 2)
    offs = torch.arange(-r, r + 1, dtype=coords.dtype)
    dx, dy = torch.meshgrid(offs, offs, indexing="ij")
    pts = xy + torch.stack([dx, dy], -1).view(1, 2 * r + 1, 2 * r + 1, 2)
    grid = torch.stack([2 * pts[..., 0] / (w2 - 1) - 1, 2 * pts[..., 1] / (h2 - 1) - 1], -1)
    out = F.grid_sample(vol, grid, mode="bilinear", padding_mode="zeros", align_corners=True)
    return out.view(n, h1, w1, 2 * r + 1, 2 * r + 1).permute(0, 3, 4, 1, 2)


def test_lookup_matches_grid_sample(maps):
    f1, f2, coords = maps
    volume = corr.all_pairs(f1, f2).reshape(2, 8, 16, 8, 16)
    c = coords.reshape(2, 8, 16, 2).permute(0, 3, 1, 2)
    got = corr.lookup(volume, c, 3)
    assert got.shape == (2, 7, 7, 8, 16)
    assert torch.allclose(got, _reference_lookup(volume, c, 3), atol=1e-12)


def test_lookup_window_order_is_x_then_y():
    volume = torch.arange(6 * 7, dtype=D).view(1, 1, 1, 6, 7)
    coords = torch.tensor([3.0, 2.0], dtype=D).view(1, 2, 1, 1)
    got = corr.lookup(volume, coords, 1)[0, :, :, 0, 0]
    # got[i, j] = volume at x = 3 + i - 1, y = 2 + j - 1
    assert got[2, 0] == volume[0, 0, 0, 1, 4]
    assert got[0, 2] == volume[0, 0, 0, 3, 2]


def test_lookup_checks_coords_shape():
    with pytest.raises(ValueError, match="coords must be"):
        corr.lookup(torch.zeros(1, 2, 2, 2, 2), torch.zeros(1, 2, 3, 2), 1)


def test_pyramid_levels_are_pooled_and_concatenated(maps):
    f1, f2, coords = maps
    block = corr.CorrBlock(f1, f2)
    vol = corr.all_pairs(f1, f2).reshape(2 * 8 * 16, 1, 8, 16)
    pooled = F.avg_pool2d(F.avg_pool2d(vol, 2, 2), 2, 2)
    assert torch.allclose(block.pyramid[2], pooled.view(2, 8, 16, 2, 4))
    out = block(coords)
    assert out.shape == (1, 2, 4 * 49, 8, 16)
    c2 = (coords / 4).reshape(2, 8, 16, 2).permute(0, 3, 1, 2)
    level2 = _reference_lookup(block.pyramid[2], c2, 3).reshape(1, 2, 49, 8, 16)
    assert torch.allclose(out[:, :, 98:147], level2, atol=1e-12)


def test_alt_corr_equals_the_volume_block(maps):
    f1, f2, coords = maps
    fmaps = torch.cat([f1[:, :1], f2[:, :1], f1[:, 1:]], dim=1)  # frames 0, 1, 2
    ii, jj = torch.tensor([0, 2]), torch.tensor([1, 0])
    want = corr.CorrBlock(fmaps[:, ii], fmaps[:, jj])(coords)
    got = corr.AltCorrBlock(fmaps)(coords, ii, jj)
    assert got.shape == want.shape
    assert torch.allclose(got, want, atol=1e-10)
