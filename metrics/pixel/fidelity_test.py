"""Tests for metrics.pixel.fidelity."""

import cv2
import numpy as np
import pytest

from metrics.pixel import fidelity
from metrics.pixel.psnr import peak_signal_noise_ratio
from metrics.pixel.ssim import structural_similarity_gray


def _frames(count, shape, seed):
    rng = np.random.default_rng(seed)
    return [rng.integers(0, 256, shape, np.uint8) for _ in range(count)]


def _gray(frame):
    return cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)


def test_same_size_pairs():
    gt = _frames(3, (36, 48, 3), seed=1)
    gen = [np.clip(f.astype(int) + 9, 0, 255).astype(np.uint8) for f in gt]
    psnrs, ssims = fidelity.per_pair_pixel_fidelity(gt, gen)
    assert len(psnrs) == len(ssims) == 3
    for i in range(3):
        assert psnrs[i] == peak_signal_noise_ratio(gt[i], gen[i])
        assert ssims[i] == structural_similarity_gray(
            _gray(gt[i]), _gray(gen[i])
        )
    mean_psnr, mean_ssim = fidelity.phase_pixel_fidelity(gt, gen)
    assert type(mean_psnr) is float and type(mean_ssim) is float
    assert mean_psnr == pytest.approx(np.mean(psnrs), abs=1e-12)
    assert mean_ssim == pytest.approx(np.mean(ssims), abs=1e-12)


def test_identical_frames():
    gt = _frames(2, (20, 30, 3), seed=2)
    psnr, ssim = fidelity.phase_pixel_fidelity(gt, [f.copy() for f in gt])
    assert psnr == 99.0
    assert abs(ssim - 1.0) <= 1e-6


def test_gt_resized_to_generated_size():
    gt = _frames(2, (96, 128, 3), seed=3)  # GT larger than generated.
    gen = [cv2.resize(f, (64, 48), interpolation=cv2.INTER_AREA) for f in gt]
    psnrs, ssims = fidelity.per_pair_pixel_fidelity(gt, gen)
    # Resizing GT with INTER_AREA to (w, h) reproduces gen exactly.
    assert psnrs == [99.0, 99.0]
    assert all(abs(s - 1.0) <= 1e-6 for s in ssims)
    noisy = [np.clip(g.astype(int) + 4, 0, 255).astype(np.uint8) for g in gen]
    psnrs, ssims = fidelity.per_pair_pixel_fidelity(gt, noisy)
    for i in range(2):
        assert psnrs[i] == peak_signal_noise_ratio(gen[i], noisy[i])
        assert ssims[i] == structural_similarity_gray(
            _gray(gen[i]), _gray(noisy[i])
        )


def test_resize_is_area_not_crop_or_linear():
    gt = _frames(1, (90, 160, 3), seed=4)
    area = cv2.resize(gt[0], (64, 36), interpolation=cv2.INTER_AREA)
    linear = cv2.resize(gt[0], (64, 36), interpolation=cv2.INTER_LINEAR)
    assert fidelity.per_pair_pixel_fidelity(gt, [area])[0] == [99.0]
    assert fidelity.per_pair_pixel_fidelity(gt, [linear])[0][0] < 99.0
    crop = np.ascontiguousarray(gt[0][:36, :64])
    assert fidelity.per_pair_pixel_fidelity(gt, [crop])[0][0] < 99.0


def test_accepts_stacked_arrays():
    gt = np.stack(_frames(4, (16, 16, 3), seed=5))
    gen = np.stack(_frames(4, (16, 16, 3), seed=6))
    psnr, ssim = fidelity.phase_pixel_fidelity(gt, gen)
    assert np.isfinite(psnr) and -1.0 <= ssim <= 1.0


def test_length_mismatch_and_empty():
    gt = _frames(3, (16, 16, 3), seed=7)
    with pytest.raises(ValueError, match="3 ground-truth vs 2 generated"):
        fidelity.phase_pixel_fidelity(gt, gt[:2])
    with pytest.raises(ValueError, match="mismatch"):
        fidelity.per_pair_pixel_fidelity(gt[:1], gt)
    with pytest.raises(ValueError, match="no frame pairs"):
        fidelity.phase_pixel_fidelity([], [])


def test_bad_frames():
    good = _frames(1, (16, 16, 3), seed=8)
    with pytest.raises(ValueError):
        fidelity.phase_pixel_fidelity(good, [np.zeros((16, 16), np.uint8)])
    with pytest.raises(ValueError):
        fidelity.phase_pixel_fidelity([np.zeros((0, 4, 3), np.uint8)], good)
    with pytest.raises(ValueError):
        fidelity.phase_pixel_fidelity(good, [good[0].astype(np.float32)])


if __name__ == "__main__":
    raise SystemExit(pytest.main([__file__, "-q"]))


def test_workers_do_not_change_values_or_errors():
    gt = _frames(9, (60, 80, 3), seed=4)
    gen = [np.clip(f.astype(int) - 7, 0, 255).astype(np.uint8) for f in _frames(9, (30, 40, 3), 5)]
    want = fidelity.per_pair_pixel_fidelity(gt, gen)
    for workers in (2, 4, 16):
        assert fidelity.per_pair_pixel_fidelity(gt, gen, workers=workers) == want
    bad = list(gen)
    bad[6] = np.zeros((30, 40), np.uint8)
    for workers in (1, 4):
        with pytest.raises(ValueError, match="generated frames must be"):
            fidelity.per_pair_pixel_fidelity(gt, bad, workers=workers)
    for workers in (0, -2, 1.5, True):
        with pytest.raises(ValueError, match="workers"):
            fidelity.per_pair_pixel_fidelity(gt, gen, workers=workers)
