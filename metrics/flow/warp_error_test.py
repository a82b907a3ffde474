"""Tests for metrics.flow.warp_error against a numpy transcription of the spec.

The transcription below re-derives grid_sample(bilinear, border,
align_corners=True): normalised coordinates map back to pixels by
(g + 1) / 2 * (size - 1), are clamped to the image, and are interpolated
from the four neighbours.
"""

import math

import numpy as np
import pytest
import torch

from metrics.flow import fake_flow
from metrics.flow import tensors
from metrics.flow import warp_error


def _numpy_warp_error(img1, img2, flow):
    """Spec §4.1 for one pair in float64: img1, img2 (3, H, W); flow (2, H, W)."""
    img1, img2, flow = (np.asarray(x, np.float64) for x in (img1, img2, flow))
    _, height, width = img1.shape
    ys, xs = np.mgrid[0:height, 0:width].astype(np.float64)
    gx = (xs + flow[0]) / (width - 1) * 2 - 1
    gy = (ys + flow[1]) / (height - 1) * 2 - 1
    px = np.clip((gx + 1) / 2 * (width - 1), 0, width - 1)
    py = np.clip((gy + 1) / 2 * (height - 1), 0, height - 1)
    x0 = np.floor(px).astype(int)
    y0 = np.floor(py).astype(int)
    x1 = np.minimum(x0 + 1, width - 1)
    y1 = np.minimum(y0 + 1, height - 1)
    fx, fy = px - x0, py - y0
    warped = (img1[:, y0, x0] * (1 - fx) * (1 - fy) + img1[:, y0, x1] * fx * (1 - fy)
              + img1[:, y1, x0] * (1 - fx) * fy + img1[:, y1, x1] * fx * fy)
    return float(np.mean(np.abs(warped - img2)))


def _random_frames(count, height, width, seed):
    return np.random.default_rng(seed).integers(0, 256, (count, height, width, 3), np.uint8)


def _texture(height, width, seed=0):
    rng = np.random.default_rng(seed)
    coarse = rng.uniform(0, 255, (height // 4 + 2, width // 4 + 2, 3))
    return np.kron(coarse, np.ones((4, 4, 1)))[:height, :width].astype(np.uint8)


def test_warp_errors_match_the_numpy_transcription():
    frames1 = _random_frames(3, 17, 23, seed=1)
    frames2 = _random_frames(3, 17, 23, seed=2)
    rng = np.random.default_rng(3)
    flows = rng.normal(0, 4, (3, 2, 17, 23)).astype(np.float32)
    flows[2, 0, :5] += 40.0  # Far outside the frame: border padding.
    flows[1, 1, :, :3] -= 30.0
    got = warp_error.warp_errors(tensors.to_unit_rgb(frames1), tensors.to_unit_rgb(frames2),
                                 torch.from_numpy(flows))
    for i in range(3):
        img1 = frames1[i][..., ::-1].transpose(2, 0, 1) / 255.0
        img2 = frames2[i][..., ::-1].transpose(2, 0, 1) / 255.0
        assert got[i] == pytest.approx(_numpy_warp_error(img1, img2, flows[i]), abs=1e-5)


def test_warp_samples_img1_with_the_img1_to_img2_flow():
    """Official quirk: a textbook backward warp would sample img2 (error ~0 here)."""
    a = _texture(32, 40)
    b = np.empty_like(a)
    b[:, 3:] = a[:, :-3]  # Pixel x of a moves to x + 3 in b.
    b[:, :3] = a[:, :1]
    flow = np.zeros((1, 2, 32, 40), np.float32)
    flow[:, 0] = 3.0
    got = warp_error.warp_errors(tensors.to_unit_rgb(a[None]), tensors.to_unit_rgb(b[None]),
                                 torch.from_numpy(flow))[0]
    columns = np.minimum(np.arange(40) + 3, 39)
    official = np.abs(a[:, columns].astype(np.float64) - b) / 255
    textbook = np.abs(b[:, columns].astype(np.float64) - a) / 255
    assert got == pytest.approx(float(official.mean()), abs=1e-6)
    assert float(textbook[:, :-3].mean()) == 0.0
    assert got > 0.05


def test_zero_flow_on_identical_frames_scores_one():
    frames = np.repeat(_random_frames(1, 16, 20, seed=4), 9, axis=0)
    phase = warp_error.span_smoothness(frames, "V", 0, 8, 4, fake_flow.ZeroFlow())
    assert phase.indices == (0, 4, 8)
    # Not exactly 0: x -> (x/(W-1)*2-1) -> pixel loses ~1e-7 in float32.
    assert max(phase.pair_errors) <= 1e-6
    assert phase.score == pytest.approx(1.0, abs=1e-5)


_PAIR_SCORE = fake_flow.RAMP_PAIR_SCORE


def test_span_smoothness_formula_and_pairs():
    flow_fn = fake_flow.ZeroFlow()
    phase = warp_error.span_smoothness(fake_flow.ramp_clip(20), "R", 10, 19, 4, flow_fn)
    assert phase.indices == (10, 14, 18)
    assert [(a[0, 0, 0], b[0, 0, 0]) for a, b in flow_fn.calls[0]] == [(100, 140), (140, 180)]
    assert phase.pair_errors == pytest.approx((40 / 255, 40 / 255), abs=1e-7)
    assert phase.score == pytest.approx(_PAIR_SCORE, abs=1e-7)


def test_flow_warp_smoothness_is_the_plain_mean_of_its_spans():
    flow_fn = fake_flow.ZeroFlow()
    spans = [("a", 0, 4), ("b", 10, 19), ("c", 3, 3)]
    result = warp_error.flow_warp_smoothness(fake_flow.ramp_clip(20), spans, 4, flow_fn)
    assert [(s.name, s.indices) for s in result.spans] == [
        ("a", (0, 4)), ("b", (10, 14, 18)), ("c", (3,))]
    # Spans with < 3 sampled frames score 0.0 and are still averaged in; no rounding.
    assert result.mean == pytest.approx(_PAIR_SCORE / 3, abs=1e-7)
    assert len(flow_fn.calls) == 1
    assert warp_error.flow_warp_smoothness(fake_flow.ramp_clip(5), [], 4, flow_fn) == (
        warp_error.WarpSmoothnessResult(0.0, ()))


def test_warp_batch_and_flow_type_do_not_change_errors():
    frames = _random_frames(13, 12, 14, seed=5)
    flows = np.random.default_rng(6).normal(0, 2, (6, 2, 12, 14)).astype(np.float32)
    as_numpy = warp_error.span_smoothness(frames, "V", 0, 12, 2, lambda pairs: flows)
    as_torch = warp_error.span_smoothness(frames, "V", 0, 12, 2,
                                          lambda pairs: torch.from_numpy(flows), warp_batch=1)
    assert len(as_numpy.pair_errors) == 6
    assert as_numpy.pair_errors == pytest.approx(as_torch.pair_errors, abs=1e-7)
    mean = float(np.mean(as_numpy.pair_errors))
    assert as_numpy.score == pytest.approx(math.exp(-mean / 0.15), rel=1e-12)


def test_bad_inputs():
    frames = fake_flow.ramp_clip(9)
    wrong = lambda pairs: np.zeros((len(pairs), 2, 3, 3), np.float32)  # noqa: E731
    with pytest.raises(ValueError, match="flow function returned shape"):
        warp_error.span_smoothness(frames, "V", 0, 8, 4, wrong)
    with pytest.raises(ValueError, match="step must be positive"):
        warp_error.flow_warp_smoothness(frames, [], 0, fake_flow.ZeroFlow())
    with pytest.raises(ValueError, match="at least one frame"):
        warp_error.flow_warp_smoothness(frames[:0], [("V", 0, 2)], 4, fake_flow.ZeroFlow())
    images = torch.zeros(1, 3, 4, 5)
    with pytest.raises(ValueError, match="expected flows of shape"):
        warp_error.warp_errors(images, images, torch.zeros(1, 2, 5, 4))


if __name__ == "__main__":
    raise SystemExit(pytest.main([__file__, "-q"]))
