"""SEA-RAFT's network pieces: the full-size names and shapes against the official
model's, and known answers for the weight-free parts (padding, convex upsampling, the
correlation pyramid lookup) against direct numpy computations."""

import json
import pathlib

import numpy as np
import pytest
import torch

from metrics.flow.sea_raft import config
from metrics.flow.sea_raft import corr
from metrics.flow.sea_raft import model

# Generated from the official RAFT(config/eval/spring-M.json) @f41d0a7 (state_dict()).
SHAPES = pathlib.Path(__file__).parent / "testdata" / "spring_m_state_dict_shapes.json"


def test_full_size_names_and_shapes_equal_the_official_model():
    official = json.loads(SHAPES.read_text())
    with torch.device("meta"):
        net = model.SeaRaft(config.SPRING_M)
    ours = {k: list(v.shape) for k, v in net.state_dict().items()}
    assert list(ours) == list(official)  # same names, same order
    assert ours == official
    assert len(official) == 472
    # The shortcut BatchNorm is saved twice in the official file (bn3 and downsample.1).
    assert official["fnet.layer2.0.bn3.weight"] == official["fnet.layer2.0.downsample.1.weight"]
    assert sum(int(np.prod(s)) for k, s in official.items()
               if not k.endswith(("running_mean", "running_var", "num_batches_tracked"))
               and ".bn3." not in k) == 19_663_876


@pytest.mark.parametrize("size, pads", [
    ((64, 64), [0, 0, 0, 0]),
    ((61, 67), [2, 3, 1, 2]),    # pad 3 rows: 1 on top, 2 at the bottom; 5 columns: 2 | 3
    ((57, 63), [0, 1, 3, 4]),
    ((1, 8), [0, 0, 3, 4]),
])
def test_padding_splits_like_the_official_sintel_mode(size, pads):
    assert model.padding(*size) == pads


def test_pad_replicates_and_unpad_inverts():
    image = torch.arange(2 * 5 * 6, dtype=torch.float32).reshape(1, 2, 5, 6)
    pads = model.padding(5, 6)
    padded = model.pad(image, pads)
    assert padded.shape == (1, 2, 8, 8)
    expected = np.pad(image.numpy(), ((0, 0), (0, 0), (1, 2), (1, 1)), mode="edge")
    np.testing.assert_array_equal(padded.numpy(), expected)
    np.testing.assert_array_equal(model.unpad(padded, pads).numpy(), image.numpy())


def test_coords_grid_is_x_then_y():
    grid = model.coords_grid(2, 3, 4, "cpu")
    assert grid.shape == (2, 2, 3, 4)
    np.testing.assert_array_equal(grid[1, 0].numpy(), np.tile(np.arange(4), (3, 1)))
    np.testing.assert_array_equal(grid[1, 1].numpy(), np.tile(np.arange(3)[:, None], (1, 4)))


def _numpy_convex_upsample(flow, weights):
    _, channels, height, width = flow.shape
    out = np.zeros((channels, 8 * height, 8 * width))
    padded = np.pad(8 * flow[0].astype(np.float64), ((0, 0), (1, 1), (1, 1)))
    logits = weights[0].astype(np.float64)
    for y in range(height):
        for x in range(width):
            for a in range(8):
                for b in range(8):
                    z = logits[[k * 64 + a * 8 + b for k in range(9)], y, x]
                    w = np.exp(z - z.max())
                    w /= w.sum()
                    for k in range(9):
                        out[:, 8 * y + a, 8 * x + b] += w[k] * padded[:, y + k // 3, x + k % 3]
    return out


def test_convex_upsample_equals_a_direct_computation():
    rng = np.random.default_rng(0)
    flow = rng.normal(size=(1, 2, 3, 4)).astype(np.float32)
    weights = rng.normal(scale=2.0, size=(1, 576, 3, 4)).astype(np.float32)
    ours = model.convex_upsample(torch.from_numpy(flow), torch.from_numpy(weights))
    assert ours.shape == (1, 2, 24, 32)
    np.testing.assert_allclose(ours[0].numpy(), _numpy_convex_upsample(flow, weights),
                               rtol=1e-5, atol=1e-5)


def test_convex_upsample_of_a_constant_flow_is_eight_times_it_inside():
    flow = torch.full((1, 2, 4, 4), 0.5)
    out = model.convex_upsample(flow, torch.randn(1, 576, 4, 4))
    np.testing.assert_allclose(out[0, :, 8:24, 8:24].numpy(), 4.0, rtol=1e-6)


def _numpy_bilinear_zeros(image, x, y):
    """Bilinear sample of a (h, w) array at pixel (x, y); zero outside (align_corners)."""
    height, width = image.shape
    x0, y0 = int(np.floor(x)), int(np.floor(y))
    total = 0.0
    for yy, wy in ((y0, 1 - (y - y0)), (y0 + 1, y - y0)):
        for xx, wx in ((x0, 1 - (x - x0)), (x0 + 1, x - x0)):
            if 0 <= yy < height and 0 <= xx < width:
                total += wy * wx * image[yy, xx]
    return total


def _numpy_lookup(f1, f2, coords, radius, levels=4):
    """Direct evaluation of the lookup for batch 1: (levels*(2r+1)^2, h1, w1)."""
    channels, h1, w1 = f1.shape
    maps = [f2]
    for _ in range(levels - 1):  # bilinear halving, align_corners=False = 2x2 means
        m = maps[-1]
        h, w = m.shape[1] // 2, m.shape[2] // 2
        maps.append(m[:, :2 * h, :2 * w].reshape(channels, h, 2, w, 2).mean(axis=(2, 4)))
    side = 2 * radius + 1
    out = np.zeros((levels * side * side, h1, w1))
    for level, f2l in enumerate(maps):
        for py in range(h1):
            for px in range(w1):
                corr_map = np.tensordot(f1[:, py, px], f2l, axes=1) / np.sqrt(channels)
                cx, cy = coords[:, py, px] / 2 ** level
                for i in range(side):
                    for j in range(side):
                        out[level * side * side + i * side + j, py, px] = _numpy_bilinear_zeros(
                            corr_map, cx + i - radius, cy + j - radius)
    return out


def test_correlation_lookup_equals_a_direct_computation():
    rng = np.random.default_rng(1)
    f1 = rng.normal(size=(1, 5, 3, 4)).astype(np.float32)
    f2 = rng.normal(size=(1, 5, 16, 18)).astype(np.float32)
    # Fractional positions, some near or past the border (zero padding there).
    coords = np.stack([rng.uniform(-3, 21, size=(3, 4)), rng.uniform(-3, 19, size=(3, 4))])
    coords = coords[None].astype(np.float32)
    pyramid = corr.CorrPyramid(torch.from_numpy(f1), torch.from_numpy(f2), radius=2)
    ours = pyramid(torch.from_numpy(coords))
    assert ours.shape == (1, 4 * 25, 3, 4) and ours.dtype == torch.float32
    expected = _numpy_lookup(f1[0].astype(np.float64), f2[0].astype(np.float64),
                             coords[0].astype(np.float64), radius=2)
    np.testing.assert_allclose(ours[0].numpy(), expected, rtol=1e-4, atol=1e-5)


def test_the_window_first_axis_moves_x():
    """Pins the official channel order: a transposed window fails this test."""
    f1 = torch.ones(1, 1, 1, 1)
    f2 = torch.zeros(1, 1, 16, 16)
    f2[0, 0, 5, 9] = 1.0  # y = 5, x = 9
    pyramid = corr.CorrPyramid(f1, f2, radius=1)
    out = pyramid(torch.tensor([[[[8.0]], [[5.0]]]]))  # centre x = 8, y = 5
    level0 = out[0, :9, 0, 0].reshape(3, 3)
    expected = torch.zeros(3, 3)
    expected[2, 1] = 1.0  # i = +1 (x), j = 0 (y)
    torch.testing.assert_close(level0, expected)


def test_too_small_feature_maps_are_refused():
    with pytest.raises(ValueError, match="too small for 4 correlation levels"):
        corr.CorrPyramid(torch.ones(1, 2, 4, 4), torch.ones(1, 2, 15, 40), radius=1)


def test_official_json_config(tmp_path):
    fields = {"name": "spring-M", "dataset": "spring", "use_var": True, "var_min": 0,
              "var_max": 10, "pretrain": "resnet34", "initial_dim": 64,
              "block_dims": [64, 128, 256], "radius": 4, "dim": 128, "num_blocks": 2,
              "iters": 4, "image_size": [540, 960], "scale": -1, "lr": 4e-4}
    path = tmp_path / "spring-M.json"
    path.write_text(json.dumps(fields))
    assert config.from_official_json(path) == config.SPRING_M
    del fields["radius"]
    path.write_text(json.dumps(fields))
    with pytest.raises(ValueError, match="spring-M.json: expected an official SEA-RAFT"):
        config.from_official_json(path)
