"""static_scores with a stand-in RAFT whose flow is known: (10 * red of the first padded
image in [-1, 1], 0), so each pair's score names its first frame; the consecutive pairs
then first -> last and last -> first, top 2 % of the padded field, all frames (no fps
subsampling)."""

import numpy as np
import pytest

from benchmarks.vbench.motion import static_filter
from benchmarks.vbench.motion import static_scores
from metrics.flow import fake_flow


def _score(frame):
    """Top int(0.02 * Hp * Wp) of |10 * (2 * red / 255 - 1)| over the centred edge padding."""
    height, width = frame.shape[:2]
    pad_h, pad_w = -height % 8, -width % 8
    red = np.pad(frame[:, :, 0].astype(np.float32),
                 ((pad_h // 2, pad_h - pad_h // 2), (pad_w // 2, pad_w - pad_w // 2)), mode="edge")
    speed = np.abs(10 * (2 * (red / np.float32(255.0)) - np.float32(1.0))).ravel()
    return float(np.mean(np.sort(speed)[::-1][:int(speed.size * 0.02)]))


def test_pairs_are_consecutive_then_first_to_last_then_last_to_first():
    rgb = np.random.default_rng(2).integers(0, 256, (4, 121, 135, 3), dtype=np.uint8)
    rgb[:, :, :, 0] = (np.arange(4) * 60 + 10)[:, None, None] + rgb[:, :, :, 0] // 8
    consecutive, loops = static_scores.pair_scores(rgb, fake_flow.RedChannelRaft())
    assert consecutive == pytest.approx([_score(f) for f in rgb[:3]], rel=1e-6)
    assert loops == pytest.approx([_score(rgb[0]), _score(rgb[3])], rel=1e-6)
    assert len(set(consecutive + loops)) == 4  # frames 0, 1, 2 and 3 differ


def test_is_static_video_uses_all_frames_and_native_thresholds():
    rgb = np.random.default_rng(3).integers(0, 256, (17, 128, 136, 3), dtype=np.uint8)
    consecutive, loops = static_scores.pair_scores(rgb, fake_flow.RedChannelRaft())
    assert len(consecutive) == 16
    thres, count_num = static_filter.thresholds(128, 136, 17)
    assert (thres, count_num) == (1.5, 2)
    assert static_scores.is_static_video(rgb, fake_flow.RedChannelRaft()) == static_filter.is_static(
        consecutive, loops, thres, count_num)
    assert not static_scores.is_static_video(rgb, fake_flow.RedChannelRaft())  # noise moves a lot


def test_no_frame_is_an_error():
    with pytest.raises(ValueError, match="no decodable frame"):
        static_scores.pair_scores(np.zeros((0, 8, 8, 3), np.uint8), fake_flow.RedChannelRaft())


def test_frames_under_128_padded_pixels_are_an_error():
    # Upstream's RAFT gives NaN there, and NaN scores make every video static.
    with pytest.raises(ValueError, match="RAFT needs 128"):
        static_scores.pair_scores(np.zeros((2, 120, 300, 3), np.uint8), fake_flow.RedChannelRaft())
