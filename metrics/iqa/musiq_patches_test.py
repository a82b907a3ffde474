"""metrics.iqa.musiq_patches against numpy transcriptions of MUSIQ's multi-scale sequence.

The hash grid is checked two ways: an exact-integer numpy rule floor(i * G / n) (equal to
torch's float32 "nearest" rule for every n up to 204 at G = 10) and torch's own
F.interpolate(mode="nearest"), which pyiqa calls, where float32 rounding departs from
the exact rule (n = 205, 235, 266, 275 at G = 10).
"""

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from metrics.iqa import musiq_patches


def _numpy_cells(count, grid):
    return np.minimum(np.arange(count) * grid // count, grid - 1)


def _torch_nearest_cells(count, grid):
    table = torch.arange(grid, dtype=torch.float32).reshape(1, 1, grid)
    return F.interpolate(table, size=count, mode="nearest").reshape(-1).long().numpy()


def _numpy_patches(image, patch):
    """[C, H, W] -> [rows * cols, C, patch, patch], zero-padded, image centred (odd pixel last)."""
    c, h, w = image.shape
    rows, cols = -(-h // patch), -(-w // patch)
    canvas = np.zeros((c, rows * patch, cols * patch), image.dtype)
    top, left = (rows * patch - h) // 2, (cols * patch - w) // 2
    canvas[:, top:top + h, left:left + w] = image
    return np.stack([canvas[:, r * patch:(r + 1) * patch, q * patch:(q + 1) * patch]
                     for r in range(rows) for q in range(cols)])


@pytest.mark.parametrize("grid", [10, 7])
def test_grid_cells_are_the_nearest_neighbour_hash(grid):
    for count in range(1, 120):
        np.testing.assert_array_equal(musiq_patches.grid_cells(count, grid),
                                      _numpy_cells(count, grid), err_msg=str(count))
    for count in (205, 235, 266, 275, 1, 5, 10, 20, 64):
        np.testing.assert_array_equal(musiq_patches.grid_cells(count, grid),
                                      _torch_nearest_cells(count, grid), err_msg=str(count))
    assert musiq_patches.grid_cells(205, 10)[41] == 1  # float32: exact floor(410 / 205) is 2


def test_hashed_positions_are_row_major_cells():
    rows, cols = 3, 17
    want = (_numpy_cells(rows, 10)[:, None] * 10 + _numpy_cells(cols, 10)[None, :]).reshape(-1)
    np.testing.assert_array_equal(musiq_patches.hashed_positions(rows, cols, 10).numpy(), want)


def test_split_patches_pads_same_and_orders_row_major():
    image = np.random.default_rng(0).standard_normal((2, 3, 70, 45)).astype(np.float32)
    tiles, rows, cols = musiq_patches.split_patches(torch.from_numpy(image), 32)
    assert (rows, cols) == (3, 2)
    for n in range(2):
        np.testing.assert_array_equal(tiles[n].numpy(), _numpy_patches(image[n], 32))


def test_aspect_size_rounds_half_to_even():
    assert musiq_patches.aspect_size(150, 333, 224) == (101, 224)
    assert musiq_patches.aspect_size(5, 448, 224) == (2, 224)  # 2.5 -> 2
    assert musiq_patches.aspect_size(7, 448, 224) == (4, 224)  # 3.5 -> 4
    assert musiq_patches.aspect_size(200, 300, 384) == (256, 384)  # small images grow


def test_multiscale_sequence_layout():
    images = torch.from_numpy(
        np.random.default_rng(1).uniform(-1, 1, (2, 3, 150, 333)).astype(np.float32))
    seq = musiq_patches.multiscale_sequence(images)
    # 224: 101 x 224 -> 4 x 7 = 28 patches in 49; 384: 173 x 384 -> 6 x 12 = 72 in 144;
    # native 150 x 333 -> 5 x 11 = 55, all kept.
    assert seq.pixels.shape == (2, 49 + 144 + 55, 3, 32, 32)
    valid = [(0, 28, 0, 4, 7), (49, 72, 1, 6, 12), (193, 55, 2, 5, 11)]
    for start, count, scale_id, rows, cols in valid:
        block = slice(start, start + count)
        assert seq.mask[:, block].all() and (seq.scale[:, block] == scale_id).all()
        want = (_numpy_cells(rows, 10)[:, None] * 10 + _numpy_cells(cols, 10)[None, :]).reshape(-1)
        np.testing.assert_array_equal(seq.spatial[0, block].numpy(), want)
    for pad in (slice(28, 49), slice(121, 193)):
        assert not seq.mask[:, pad].any()
        assert (seq.spatial[:, pad] == 0).all() and (seq.scale[:, pad] == 0).all()
        assert (seq.pixels[:, pad] == 0).all()
    for n in range(2):
        np.testing.assert_array_equal(seq.pixels[n, 193:].numpy(),
                                      _numpy_patches(images[n].numpy(), 32))
    resized = F.interpolate(images, size=(173, 384), mode="bicubic", align_corners=False)
    np.testing.assert_array_equal(seq.pixels[1, 49:121].numpy(),
                                  _numpy_patches(resized[1].numpy(), 32))


def test_a_large_image_keeps_every_native_patch_and_fills_the_scales():
    seq = musiq_patches.multiscale_sequence(torch.zeros(1, 3, 288, 512))
    assert seq.mask.sum() == 7 * 4 + 12 * 7 + 9 * 16  # 126 x 224, 216 x 384, 288 x 512
    assert seq.pixels.shape[1] == 49 + 144 + 144


def test_rejects_non_float_batches():
    with pytest.raises(ValueError, match="float"):
        musiq_patches.multiscale_sequence(torch.zeros(1, 3, 8, 8, dtype=torch.uint8))


def test_the_sequence_lives_on_the_images_device():
    """On CUDA the attention mask must be where the scores are; "meta" stands in here."""
    seq = musiq_patches.multiscale_sequence(torch.zeros(1, 3, 40, 70, device="meta"))
    for tensor in (seq.pixels, seq.spatial, seq.scale, seq.mask):
        assert tensor.device.type == "meta"
