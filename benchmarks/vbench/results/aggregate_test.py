"""Each dimension's aggregate against a transcription of upstream's loop (written from
vbench/<dimension>.py at 45e79ec), and the single-GPU vs torchrun difference (spec §6)."""

import random

import numpy as np
import pytest

from benchmarks.vbench import metric_specs
from benchmarks.vbench.results import aggregate as agg


def _row(name, d, value, num=None, den=None, **extras):
    columns = {d: value}
    if num is not None:
        columns[f"{d}:num"], columns[f"{d}:den"] = num, den
    return agg.VideoRow(f"videos/{name}", columns, {d: extras})


def _loop_sum(values):
    total = 0.0
    for v in values:
        total += v
    return total


def test_one_declaration_per_dimension():
    assert tuple(agg.DECLARATIONS) == metric_specs.DIMENSIONS
    assert {d for d, x in agg.DECLARATIONS.items() if x.video_type is bool} == {
        "dynamic_degree", "human_action"}


def _subject_rows(pair_lists):
    return [_row(f"v{i}.mp4", "subject_consistency", _loop_sum(p) / len(p),
                 _loop_sum(p), len(p)) for i, p in enumerate(pair_lists)]


def test_subject_is_weighted_by_frame_pairs_and_torchrun_by_videos():
    # Upstream (subject_consistency.py:56-68): video_sim summed pair by pair, sim += it,
    # cnt += 1 per pair; sim / cnt. Torchrun (:79-81): mean of the video values.
    pairs = [[0.9, 0.9, 0.9], [0.5]]
    rows = _subject_rows(pairs)
    sim, cnt = 0.0, 0
    for p in pairs:
        video_sim = 0.0
        for s in p:
            video_sim += s
            cnt += 1
        sim += video_sim
    assert agg.aggregate("subject_consistency", rows) == sim / cnt
    assert agg.aggregate("subject_consistency", rows) == pytest.approx(0.8)
    assert agg.distributed_aggregate("subject_consistency", rows) == pytest.approx(0.7)
    # equal lengths: both agree
    same = _subject_rows([[0.9, 0.7], [0.5, 0.3]])
    assert agg.aggregate("subject_consistency", same) == pytest.approx(
        agg.distributed_aggregate("subject_consistency", same))


def _appearance_rows(frames):
    return [_row(f"v{i}.mp4", "appearance_style", float(np.mean(f)), _loop_sum(f), len(f),
                 frame_results=f, cur_sim=f[-1]) for i, f in enumerate(frames)]


def test_appearance_all_frames_vs_torchrun_last_frames():
    frames = [[0.2, 0.25, 0.3], [0.1]]
    rows = _appearance_rows(frames)
    assert agg.aggregate("appearance_style", rows) == pytest.approx(0.85 / 4)
    assert agg.distributed_aggregate("appearance_style", rows) == pytest.approx(0.2)
    video_mean = np.mean([r.value("appearance_style") for r in rows])
    assert video_mean == pytest.approx(0.175)   # neither: the mean of the videos


def test_appearance_adds_every_frame_in_one_running_sum():
    # appearance_style.py:64-73: `sim += cur_sim` never resets between videos; a sum of
    # per-video sums rounds differently. Data chosen so the two differ.
    rng = random.Random(7)
    frames = [[rng.uniform(0.1, 0.3) for _ in range(rng.randint(3, 9))] for _ in range(40)]
    rows = _appearance_rows(frames)
    sim, cnt = 0.0, 0
    for f in frames:
        for v in f:
            sim += v
            cnt += 1
    of_video_sums = _loop_sum([_loop_sum(f) for f in frames]) / cnt
    assert agg.aggregate("appearance_style", rows) == sim / cnt
    assert sim / cnt != of_video_sums


def _values(n, seed=3):
    rng = random.Random(seed)
    return [rng.uniform(0.6, 0.99) for _ in range(n)]


@pytest.mark.parametrize("d", ["temporal_flickering", "motion_smoothness", "temporal_style",
                               "overall_consistency"])
def test_np_mean_dimensions_use_pairwise_summation(d):
    values = _values(101)
    rows = [_row(f"v{i}.mp4", d, v) for i, v in enumerate(values)]
    assert agg.aggregate(d, rows) == np.mean(values)
    assert np.mean(values) != _loop_sum(values) / len(values)   # the data tells them apart


def test_aesthetic_is_a_running_sum():
    # aesthetic_quality.py:68-72: aesthetic_avg += cur_avg; /= num.
    values = _values(101)
    rows = [_row(f"v{i}.mp4", "aesthetic_quality", v) for i, v in enumerate(values)]
    assert agg.aggregate("aesthetic_quality", rows) == _loop_sum(values) / len(values)
    assert agg.aggregate("aesthetic_quality", rows) != np.mean(values)


def test_imaging_is_the_mean_of_0_100_values_over_100():
    values = [v * 100 for v in _values(33)]
    rows = [_row(f"v{i}.mp4", "imaging_quality", v) for i, v in enumerate(values)]
    assert agg.aggregate("imaging_quality", rows) == sum(values) / len(values) / 100.
    assert 0.6 < agg.aggregate("imaging_quality", rows) < 1


def test_dynamic_degree_and_human_action_are_shares_of_true():
    flags = [True, False, True, True]
    dyn = [_row(f"v{i}.mp4", "dynamic_degree", float(f)) for i, f in enumerate(flags)]
    assert agg.aggregate("dynamic_degree", dyn) == np.mean(flags) == 0.75
    act = [_row(f"v{i}.mp4", "human_action", float(f), cor_num_per_video=int(f))
           for i, f in enumerate(flags)]
    assert agg.aggregate("human_action", act) == 3 / 4


@pytest.mark.parametrize("d", ["object_class", "multiple_objects", "scene"])
def test_success_frames_pooled_not_mean_of_rates(d):
    counts = [(16, 16), (1, 4)]   # rates 1.0 and 0.25: their mean 0.625, pooled 17/20
    rows = [_row(f"v{i}.mp4", d, s / n, success_frame_count=s, frame_count=n)
            for i, (s, n) in enumerate(counts)]
    assert agg.aggregate(d, rows) == 17 / 20


def test_spatial_pools_frames_with_np_mean():
    frames = [[0, 1, 0.5, 0.1 / 0.3] + [0] * 12, [1] * 16]
    rows = [_row(f"v{i}.mp4", "spatial_relationship", float(np.mean(f)), frame_results=f)
            for i, f in enumerate(frames)]
    assert agg.aggregate("spatial_relationship", rows) == np.mean(frames[0] + frames[1])


def test_color_averages_the_kept_videos():
    # A video without the object has no entry (color.py:81-88): rows without the value
    # are not in the list.
    rows = [_row("a.mp4", "color", 0.5, cur_success_frame_rate=0.5),
            agg.VideoRow("videos/b.mp4", {}, {}),
            _row("c.mp4", "color", 1.0, cur_success_frame_rate=1.0)]
    assert agg.aggregate("color", rows) == 0.75


def test_background_pools_pairs():
    rows = [_row("a.mp4", "background_consistency", 0.9, 2.7, 3, video_sim=2.7,
                 cnt_per_video=3),
            _row("b.mp4", "background_consistency", 0.5, 0.5, 1, video_sim=0.5,
                 cnt_per_video=1)]
    assert agg.aggregate("background_consistency", rows) == (2.7 + 0.5) / 4
    with pytest.raises(ValueError, match="only subject_consistency, appearance_style"):
        agg.distributed_aggregate("background_consistency", rows)


def test_no_video_is_a_reason_not_a_number():
    with pytest.raises(agg.NoVideos, match="color: no video"):
        agg.aggregate("color", [agg.VideoRow("x.mp4", {}, {})])


def test_missing_extra_is_named():
    with pytest.raises(ValueError, match="x.mp4: scene has no 'success_frame_count'"):
        agg.aggregate("scene", [agg.VideoRow("x.mp4", {"scene": 1.0}, {"scene": {}})])
