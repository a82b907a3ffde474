"""dynamic_degree: the weight-free rules exactly (spec §5.1, §5.2, §9 quirk 6), and the
RAFT part on random full-size raft-things weights (tiny_raft_things, read by the real
loader; torchvision's RAFT needs padded sides of 128 px or more) against the network called directly with this file's own transcription of the
padding, the top-5 % statistic and the decision."""

import pathlib

import numpy as np
import pytest
import torch

from benchmarks.vbench import dimension
from benchmarks.vbench.motion import dynamic_degree
from metrics.flow import raft_things
from metrics.flow import tiny_raft_things


@pytest.mark.parametrize("fps, interval", [
    (12, 2), (20, 2), (30, 4), (36, 4), (44, 6), (28, 4), (24, 3), (25, 3), (8, 1),
    (4, 1), (0, 1), (29.97, 4), (60, 8)])
def test_frame_interval_rounds_half_to_even(fps, interval):
    assert dynamic_degree.frame_interval(fps) == interval


def test_a_nan_frame_rate_is_an_error():
    with pytest.raises(ValueError, match="frame rate"):
        dynamic_degree.frame_interval(float("nan"))


def test_kept_frames_start_at_the_first():
    rgb = np.arange(7)[:, None, None, None] * np.ones((1, 2, 2, 3), np.uint8)
    assert dynamic_degree.kept_frames(rgb, 24.0)[:, 0, 0, 0].tolist() == [0, 3, 6]
    assert len(dynamic_degree.kept_frames(rgb, 8.0)) == 7


@pytest.mark.parametrize("kept, count_num", [
    (10, 2), (2, 0), (1, 0), (6, 2), (14, 4), (16, 4), (8, 2), (3, 1), (22, 6), (18, 4)])
def test_count_num_rounds_half_to_even(kept, count_num):
    assert dynamic_degree.thresholds(240, 320, kept)[1] == count_num


def test_thres_is_six_per_256_pixels_of_the_short_native_side():
    assert dynamic_degree.thresholds(240, 320, 16)[0] == 6.0 * (240 / 256.0) == 5.625
    assert dynamic_degree.thresholds(512, 300, 16)[0] == 6.0 * (300 / 256.0)


def test_decision_walks_the_pairs_in_order():
    assert dynamic_degree.moves([0.0], thres=5.0, count_num=0)  # count_num 0: True at once
    assert not dynamic_degree.moves([], thres=5.0, count_num=0)  # 1 kept frame: False
    assert dynamic_degree.moves([6, 1, 6], thres=5.0, count_num=2)
    assert not dynamic_degree.moves([6, 1, 5.0], thres=5.0, count_num=2)  # strictly above
    assert not dynamic_degree.moves([9, 9, 9], thres=5.0, count_num=4)


@pytest.fixture(scope="module")
def model(tmp_path_factory):
    path = tmp_path_factory.mktemp("raft") / "raft-things.pth"
    tiny_raft_things.write_official_file(path, seed=5)
    return raft_things.load_raft_things(path, "cpu")


def _reference_score(model, first, second):
    """Centred edge padding to multiples of 8, [-1, 1], the network's last flow, |flow|
    of the padded field, mean of its int(0.05 * Hp * Wp) largest (float32)."""
    height, width = first.shape[:2]
    pad_h, pad_w = -height % 8, -width % 8
    widths = ((pad_h // 2, pad_h - pad_h // 2), (pad_w // 2, pad_w - pad_w // 2), (0, 0))

    def prepared(frame):
        padded = np.pad(frame.astype(np.float32), widths, mode="edge")
        return 2 * (torch.from_numpy(padded).permute(2, 0, 1)[None] / 255.0) - 1.0

    with torch.no_grad():
        flow = model(prepared(first), prepared(second), num_flow_updates=20)[-1][0].numpy()
    speed = np.sqrt(flow[0] ** 2 + flow[1] ** 2).ravel()
    assert speed.size == (height + pad_h) * (width + pad_w)
    top = np.sort(speed)[::-1][:int(speed.size * 0.05)]
    return float(np.mean(top))


def test_compute_on_random_raft_weights_equals_the_transcription(model):
    rng = np.random.default_rng(3)
    base = rng.integers(0, 256, (121, 134, 3))
    rgb = np.stack([np.roll(base, 2 * t, axis=1) for t in range(5)]).astype(np.uint8)
    video = dimension.Video(rgb=rgb, fps=16.0, path=pathlib.Path("v.mp4"))  # interval 2
    kept = rgb[0::2]
    want = [_reference_score(model, a, b) for a, b in zip(kept[:-1], kept[1:])]
    got = dynamic_degree.pair_scores(dynamic_degree.kept_frames(rgb, video.fps), model)
    assert got == pytest.approx(want, rel=1e-6)
    assert min(want) > 0
    thres, count_num = 6.0 * (121 / 256.0), 1  # round(4 * 3 / 16) = round(0.75)
    value = dynamic_degree.compute(video, model)
    assert value.video_results == float(sum(s > thres for s in want) >= count_num)
    assert value.extras == {} and value.pooled is None
    # The threshold scales with the short side: a decision flips when thres crosses the scores.
    for score in want:
        assert dynamic_degree.moves([score], score - 1e-3, 1)
        assert not dynamic_degree.moves([score], score, 1)


def test_one_kept_frame_is_false_and_two_are_true_whatever_the_flow(model):
    still = np.full((2, 128, 128, 3), 128, np.uint8)
    one = dimension.Video(rgb=still[:1], fps=8.0, path=pathlib.Path("one.mp4"))
    assert dynamic_degree.compute(one, model).video_results == 0.0
    two = dimension.Video(rgb=still, fps=8.0, path=pathlib.Path("two.mp4"))
    assert dynamic_degree.compute(two, model).video_results == 1.0  # count_num round(0.5) = 0


def test_an_empty_video_is_an_error(model):
    empty = dimension.Video(rgb=np.zeros((0, 64, 64, 3), np.uint8), fps=8.0,
                            path=pathlib.Path("e.mp4"))
    with pytest.raises(ValueError, match="no decodable frame"):
        dynamic_degree.compute(empty, model)


@pytest.mark.parametrize("height, width, ok", [(121, 121, True), (120, 400, False),
                                               (400, 119, False), (128, 128, True)])
def test_frames_raft_cannot_score_are_an_error(height, width, ok):
    # Upstream's RAFT returns NaN flow under 128 padded px (1/64 correlation level of 1 px).
    if ok:
        dynamic_degree.check_raft_size(height, width)
    else:
        with pytest.raises(ValueError, match="RAFT needs 128"):
            dynamic_degree.check_raft_size(height, width)
        video = dimension.Video(rgb=np.zeros((3, height, width, 3), np.uint8), fps=8.0,
                                path=pathlib.Path("small.mp4"))
        with pytest.raises(ValueError, match="RAFT needs 128"):
            dynamic_degree.compute(video, None)


def test_the_lazy_walk_decides_as_check_move_and_scores_only_what_it_needs():
    """Every list of 0-15 scores and count_num 0-5: the early-stopping walk (with the
    pair count) gives check_move's answer over the full list, and stops at the deciding
    pair: a pair after it is never scored."""
    rng = np.random.default_rng(0)
    for _ in range(3000):
        scores = list(rng.choice([1.0, 9.0], size=int(rng.integers(0, 16))))
        count_num = int(rng.integers(0, 6))
        full = dynamic_degree.moves(scores, 5.0, count_num)  # the official walk, all scored
        asked = []

        def lazy():
            for value in scores:
                asked.append(value)
                yield value

        assert dynamic_degree.moves(lazy(), 5.0, count_num, pairs=len(scores)) == full
        hits = [i for i, v in enumerate(scores) if v > 5.0]
        if full and count_num == 0:
            assert not asked  # decided by the pair count alone: no RAFT call
        elif full:
            assert len(asked) == hits[count_num - 1] + 1
        else:
            assert len(asked) <= len(scores)
