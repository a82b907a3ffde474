"""Tests for benchmarks.memobench.step1.gt_revisit: pair indices, clipping, mean, and the real
tower path (moved from metrics.clip.revisit, values unchanged).

Pair indices are checked against a numpy transcription of run_eval's formulas;
similarities against the in-memory tower run once per image (the official
per-pair way) on PIL/numpy pixels.
"""

import dataclasses

import numpy as np
import pytest

from benchmarks.memobench.step1 import gt_revisit as revisit
from metrics.checkpoints import resolver
from metrics.clip import frame_similarity
from metrics.clip import tiny_clip
from metrics.clip import reference_transform
from metrics.clip import vision
from metrics.testing.isolation import no_real_caches  # noqa: F401  (autouse fixture)


@pytest.fixture(scope="module")
def tower(tmp_path_factory):
    """(in-memory tower, loaded ClipVision) via the resolver, B/32-sized projection."""
    root = tmp_path_factory.mktemp("ckpt")
    model = tiny_clip.write_vision_snapshot(root / frame_similarity.CLIP_VIT_B32.name,
                                                projection_dim=512, seed=11)
    spec = dataclasses.replace(frame_similarity.CLIP_VIT_B32, hf_repo="example/not-on-the-hub")
    found = resolver.resolve(spec, checkpoint_dir=str(root), offline=True)
    return model, vision.load_clip_vision(found.path, "cpu", activation="quick_gelu")


def _numpy_pairs(r, r_gt, num_frames, gt_total):
    k = np.arange(3, dtype=np.float64)
    gt = np.trunc(r_gt + k * ((gt_total - 1) - r_gt) / 2).astype(int)
    gen = np.trunc(r + k * ((num_frames - 1) - r) / 2).astype(int)
    return list(zip(gt.tolist(), gen.tolist()))


@pytest.mark.parametrize("r,r_gt,num_frames,gt_total", [
    (54, 180, 81, 300),   # gt 180 + 119/2 = 239.5 -> 239 (round would give 240).
    (55, 181, 81, 300),   # gen 55 + 25/2 = 67.5 -> 67 (round: 68).
    (80, 299, 81, 300),   # Keyframes at the last frame: three identical pairs.
    (0, 0, 2, 1),
    (29, 101, 33, 150),
])
def test_pairs_match_numpy_transcription(r, r_gt, num_frames, gt_total):
    pairs = revisit.revisit_pairs(r, r_gt, num_frames, gt_total)
    assert pairs == _numpy_pairs(r, r_gt, num_frames, gt_total)
    assert all(isinstance(i, int) for pair in pairs for i in pair)


def test_pairs_truncate_not_round():
    assert revisit.revisit_pairs(54, 180, 81, 300) == [(180, 54), (239, 67), (299, 80)]


@pytest.mark.parametrize("r,r_gt,num_frames,gt_total,match", [
    (81, 10, 81, 300, "r <= N-1"),
    (-1, 10, 81, 300, "r <= N-1"),
    (10, 300, 81, 300, "r_gt <= gt_total-1"),
    (10, 0, 81, 0, "r_gt <= gt_total-1"),
])
def test_pairs_reject_out_of_range(r, r_gt, num_frames, gt_total, match):
    with pytest.raises(ValueError, match=match):
        revisit.revisit_pairs(r, r_gt, num_frames, gt_total)


def test_similarity_matches_per_pair_reference(tower):
    model, loaded = tower
    gen = np.stack([reference_transform.smooth_frame(48, 64, seed=i) for i in range(9)])
    gt_video = [reference_transform.smooth_frame(90, 120, seed=100 + i) for i in range(20)]
    calls = []

    def gt_frames_at(indices):
        calls.append(list(indices))
        return [gt_video[i] for i in indices]

    result = revisit.revisit_details(gen, gt_frames_at, 3, 7, 20, loaded)
    assert calls == [[7, 13, 19]]
    assert result.pairs == [(7, 3), (13, 5), (19, 8)]
    expected = [float(np.clip(np.dot(tiny_clip.reference_embedding(model, gt_video[g]),
                                     tiny_clip.reference_embedding(model, gen[n])), 0.0, 1.0))
                for g, n in result.pairs]
    np.testing.assert_allclose(result.similarities, expected, rtol=1e-5, atol=1e-6)
    assert result.score == round(float(np.mean(result.similarities)), 4)
    assert abs(result.score - float(np.mean(expected))) < 1e-4
    assert revisit.gt_revisit_similarity(gen, gt_frames_at, 3, 7, 20, loaded) == result.score


def test_negative_cosines_are_clipped_to_zero():
    fake = tiny_clip.mean_colour_tower()
    dark, bright = tiny_clip.flat_frame((0, 0, 0)), tiny_clip.flat_frame((255, 255, 255))
    gen = np.stack([dark, bright, bright])   # Generated frames 0, 1, 2.
    gt = {0: bright, 1: bright, 2: dark}      # GT frames 0, 1, 2.
    result = revisit.revisit_details(gen, lambda idx: [gt[i] for i in idx], 0, 0, 3, fake)
    assert result.pairs == [(0, 0), (1, 1), (2, 2)]
    # dark vs bright normalises to opposite directions: cos -1 -> 0; bright vs bright: 1.
    assert result.similarities[0] == 0.0 and result.similarities[2] == 0.0
    assert result.similarities[1] == pytest.approx(1.0, abs=1e-6)
    assert result.score == round(float(np.mean(result.similarities)), 4) == 0.3333


def test_gt_reader_must_return_three_frames(tower):
    _, loaded = tower
    gen = np.stack([tiny_clip.flat_frame((10, 20, 30))] * 4)
    with pytest.raises(ValueError, match="returned 2 frames for 3 indices"):
        revisit.revisit_details(gen, lambda idx: [gen[0], gen[1]], 1, 1, 4, loaded)


if __name__ == "__main__":
    raise SystemExit(pytest.main([__file__, "-q"]))
