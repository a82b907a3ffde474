"""Tests for benchmarks.memobench.ors.revisit against a numpy transcription of compute_ors.py.

Masks are fixed boolean arrays on a 100x200 frame (20000 pixels), so coverages sit
exactly on the official bounds: 10 px = 0.0005, 10000 px = 0.50, 14000 px = 0.70.
"""

import numpy as np
import pytest

from benchmarks.memobench.ors import revisit

HEIGHT, WIDTH = 100, 200


def _masks(*areas):
    masks = np.zeros((len(areas), HEIGHT, WIDTH), bool)
    for mask, area in zip(masks, areas):
        mask.reshape(-1)[:area] = True
    return masks


def _reference_frame(masks, scores):
    """run_sam3_on_frame, vectorised: coverage pools 0.05%-50%, else 0.05%-70%."""
    if len(masks) == 0:
        return False, 0.0
    coverage = masks.reshape(len(masks), HEIGHT * WIDTH).sum(axis=1) / (WIDTH * HEIGHT)
    for upper in (0.50, 0.70):
        pool = (coverage >= 0.0005) & (coverage <= upper)
        if pool.any():
            return True, float(np.asarray(scores)[pool].max())
    return False, 0.0


def _reference_clip(frames):
    """compute_ors_for_clip: frames are (detected, conf) pairs, or None if unreadable."""
    n_r = len(frames)
    if n_r == 0:
        return 0.0, 0.0, 0.0, 0, 0
    confs = np.array([f[1] for f in frames if f is not None and f[0]], dtype=np.float64)
    rate = confs.size / n_r
    mean = float(confs.mean()) if confs.size else 0.0
    return round(rate * mean, 4), round(rate, 4), round(mean, 4), n_r, int(confs.size)


def _verdict(masks, scores):
    areas = masks.reshape(len(masks), HEIGHT * WIDTH).sum(axis=1)
    return revisit.frame_verdict(areas, np.asarray(scores, np.float32), WIDTH, HEIGHT)


FRAME_CASES = {
    # name: (mask areas, scores)
    "no masks": ((), ()),
    "best of the 50% pool wins over a larger score outside it": (
        (10, 10000, 10001, 5000), (0.2, 0.3, 0.9, 0.1)),
    "lower bound is inclusive, below it is dropped": ((9, 10), (0.8, 0.4)),
    "fallback to 70% when nothing is under 50%": ((10001, 14000, 14001), (0.3, 0.6, 0.95)),
    "nothing in either pool": ((9, 14001, 20000), (0.9, 0.9, 0.9)),
    "empty masks are dropped": ((0, 0), (0.5, 0.7)),
}


@pytest.mark.parametrize("name", sorted(FRAME_CASES))
def test_frame_verdict_matches_transcription(name):
    areas, scores = FRAME_CASES[name]
    masks = _masks(*areas)
    got = _verdict(masks, scores)
    detected, conf = _reference_frame(masks, np.asarray(scores, np.float32))
    assert (got.detected, got.confidence) == (detected, conf)


def test_frame_verdict_known_answers():
    assert _verdict(_masks(10, 10000, 10001), (0.2, 0.3, 0.9)).confidence == pytest.approx(0.3)
    fallback = _verdict(_masks(10001, 14000, 14001), (0.3, 0.6, 0.95))
    assert fallback.detected and fallback.confidence == pytest.approx(0.6)
    assert not _verdict(_masks(9, 14001), (0.9, 0.9)).detected


def test_confidence_is_the_float32_score_as_a_python_float():
    score = np.float32(0.123456789)
    got = _verdict(_masks(500), [score])
    assert got.confidence == float(score) and got.confidence != 0.123456789


def test_frame_verdict_rejects_mismatched_lengths():
    with pytest.raises(ValueError, match="2 masks but 1 scores"):
        revisit.frame_verdict([1, 2], [0.5], WIDTH, HEIGHT)


def test_random_frames_match_transcription():
    rng = np.random.default_rng(0)
    for _ in range(50):
        count = int(rng.integers(0, 6))
        areas = rng.choice([0, 5, 10, 3000, 10000, 12000, 14000, 16000], size=count)
        scores = rng.random(count).astype(np.float32)
        masks = _masks(*areas)
        got = _verdict(masks, scores)
        assert (got.detected, got.confidence) == _reference_frame(masks, scores)


def test_clip_counts_unreadable_frames_in_the_denominator():
    frames = [revisit.FrameVerdict(True, 0.8), None, revisit.FrameVerdict(False, 0.0),
              revisit.FrameVerdict(True, 0.61234)]
    got = revisit.clip_revisit(frames)
    expected = _reference_clip([(True, 0.8), None, (False, 0.0), (True, 0.61234)])
    assert (got.ors, got.detection_rate, got.mean_confidence, got.n_r_frames,
            got.n_detected) == expected
    assert expected == (0.3531, 0.5, 0.7062, 4, 2)
    assert got.frames == tuple(frames)


def test_clip_rounds_the_product_of_unrounded_values():
    # rate 2/3, mean 0.45: ors = 0.3 (the product of the rounded values would be 0.30001).
    got = revisit.clip_revisit([revisit.FrameVerdict(True, 0.4), revisit.FrameVerdict(True, 0.5),
                                revisit.FrameVerdict(False, 0.0)])
    assert (got.ors, got.detection_rate, got.mean_confidence) == (0.3, 0.6667, 0.45)
    assert round(0.6667 * 0.45, 4) == 0.3 and round(2 / 3 * 0.45, 4) == 0.3


def test_clip_with_no_detection_and_empty_r_range():
    none = revisit.clip_revisit([revisit.FrameVerdict(False, 0.0), None])
    assert (none.ors, none.detection_rate, none.mean_confidence, none.n_r_frames,
            none.n_detected) == (0.0, 0.0, 0.0, 2, 0)
    empty = revisit.clip_revisit([])
    assert (empty.ors, empty.detection_rate, empty.mean_confidence, empty.n_r_frames,
            empty.n_detected) == (0.0, 0.0, 0.0, 0, 0)


def test_random_clips_match_transcription():
    rng = np.random.default_rng(1)
    for _ in range(50):
        frames = []
        for _ in range(int(rng.integers(0, 12))):
            kind = rng.random()
            frames.append(None if kind < 0.15 else
                          (bool(kind < 0.7), float(rng.random()) if kind < 0.7 else 0.0))
        verdicts = [None if f is None else revisit.FrameVerdict(*f) for f in frames]
        got = revisit.clip_revisit(verdicts)
        assert (got.ors, got.detection_rate, got.mean_confidence, got.n_r_frames,
                got.n_detected) == _reference_clip(frames)


def test_r_phase_reads_frames_r_to_end_and_keeps_unreadable_ones():
    read, judged = [], []

    def read_frame(i):
        read.append(i)
        return None if i == 6 else np.full((2, 2, 3), i, np.uint8)

    def judge(frame):
        judged.append(int(frame[0, 0, 0]))
        return revisit.FrameVerdict(True, 0.5)

    verdicts = revisit.r_phase_verdicts(read_frame, 8, 5, judge)
    assert read == [5, 6, 7] and judged == [5, 7]
    assert verdicts == [revisit.FrameVerdict(True, 0.5), None, revisit.FrameVerdict(True, 0.5)]
    assert revisit.r_phase_verdicts(read_frame, 4, 5, judge) == []


if __name__ == "__main__":
    raise SystemExit(pytest.main([__file__, "-q"]))
