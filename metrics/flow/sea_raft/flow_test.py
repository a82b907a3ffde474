"""SeaRaftFlow (the official inference path) on a tiny seeded model: the x0.5 input /
x2 output scaling against numpy, the odd-size output shape, colour order, bad input."""

import numpy as np
import pytest
import torch

from metrics.flow.sea_raft import config
from metrics.flow.sea_raft import flow as flow_lib
from metrics.flow.sea_raft import model
from metrics.flow.sea_raft import tiny_checkpoint

TINY = config.tiny()


@pytest.fixture(scope="module")
def net():
    m = model.SeaRaft(TINY)
    m.load_state_dict(tiny_checkpoint.seeded_state_dict(TINY, seed=5))
    return m.eval()


def _frames(size=(257, 273), seed=0):
    rng = np.random.default_rng(seed)
    base = rng.integers(0, 256, size=size + (3,), dtype=np.uint8)
    return base, np.roll(base, (3, -2), axis=(0, 1))  # a shifted copy: a real motion


def _numpy_halve(image):
    """Bilinear x0.5, align_corners=False (source 2i + 0.5): 2x2 means, floor size."""
    h, w = image.shape[0] // 2, image.shape[1] // 2
    return image[:2 * h, :2 * w].reshape(h, 2, w, 2, -1).mean(axis=(1, 3))


def _numpy_double(values):
    """Bilinear x2, align_corners=False (source (i + 0.5) / 2 - 0.5, edge-clamped)."""
    for axis in (0, 1):
        n = values.shape[axis]
        prev = np.take(values, np.r_[0, np.arange(n - 1)], axis=axis)
        nxt = np.take(values, np.r_[np.arange(1, n), n - 1], axis=axis)
        even, odd = 0.75 * values + 0.25 * prev, 0.75 * values + 0.25 * nxt
        values = np.stack([even, odd], axis=axis + 1).reshape(
            values.shape[:axis] + (2 * n,) + values.shape[axis + 1:])
    return values


def test_the_official_scaling_around_the_network(net):
    frame_a, frame_b = _frames()
    ours = flow_lib.SeaRaftFlow(net)(frame_a, frame_b)
    assert ours.shape == (256, 272, 2) and ours.dtype == np.float32
    assert flow_lib.output_size(257, 273, TINY.scale) == (256, 272)

    def prepared(frame):
        rgb = _numpy_halve(frame[..., ::-1].astype(np.float64))
        return torch.from_numpy(rgb.astype(np.float32)).permute(2, 0, 1)[None]

    with torch.no_grad():
        inner = net(prepared(frame_a), prepared(frame_b))[0].permute(1, 2, 0).double().numpy()
    assert inner.shape == (128, 136, 2)
    expected = 2 * _numpy_double(inner)
    np.testing.assert_allclose(ours, expected, rtol=1e-5, atol=1e-4 * np.abs(expected).max())
    assert np.abs(ours).max() > 0.1


def test_scale_zero_runs_at_the_frame_size(net):
    unscaled = model.SeaRaft(config.tiny(scale=0))
    unscaled.load_state_dict(net.state_dict())
    frame_a, frame_b = _frames(size=(129, 131))
    ours = flow_lib.SeaRaftFlow(unscaled.eval())(frame_a, frame_b)
    assert ours.shape == (129, 131, 2)
    rgb = [torch.from_numpy(f[..., ::-1].astype(np.float32).copy()).permute(2, 0, 1)[None]
           for f in (frame_a, frame_b)]
    with torch.no_grad():
        expected = unscaled(*rgb)[0].permute(1, 2, 0).numpy()
    np.testing.assert_allclose(ours, expected, rtol=1e-6, atol=1e-6)


def test_frames_are_bgr(net):
    frame_a, frame_b = _frames()
    flow = flow_lib.SeaRaftFlow(net)
    bgr = flow(frame_a, frame_b)
    swapped = flow(frame_a[..., ::-1].copy(), frame_b[..., ::-1].copy())
    assert np.abs(bgr - swapped).max() > 1e-3  # colour order matters to the network
    rgb = flow_lib.to_rgb_tensor(frame_a, "cpu")
    np.testing.assert_array_equal(rgb[0, 0].numpy(), frame_a[..., 2])
    from_rgb = flow_lib.SeaRaftFlow(net, channels="rgb")
    np.testing.assert_array_equal(from_rgb(frame_a[..., ::-1], frame_b[..., ::-1]), bgr)
    with pytest.raises(ValueError, match="channels must be one of"):
        flow_lib.SeaRaftFlow(net, channels="yuv")


def test_bad_frames_are_refused(net):
    flow = flow_lib.SeaRaftFlow(net)
    frame_a, frame_b = _frames()
    with pytest.raises(ValueError, match="different shapes"):
        flow(frame_a, frame_b[:-1])
    with pytest.raises(ValueError, match="BGR uint8"):
        flow(frame_a.astype(np.float32), frame_b.astype(np.float32))
    with pytest.raises(ValueError, match="too small"):
        flow(frame_a[:200], frame_b[:200])
