"""static_filter's decision and selection, exactly (spec §5.3): lexicographic order, the
cap of 5 per prompt (later videos not even scored), renumbering, the loop pairs and the
thresholds' rounding."""

import json
import logging

import pytest

from benchmarks.vbench.motion import static_filter


@pytest.mark.parametrize("name, prompt", [
    ("a dog running-3.mp4", "a dog running"), ("a dog running.mp4", "a dog running"),
    ("/x/y/a cat-10.mp4", "a cat"), ("a cat-1-2.mp4", "a cat-1"), ("a cat-x.mp4", "a cat-x"),
    ("route-66", "route")])
def test_prompt_of_strips_one_trailing_number(name, prompt):
    assert static_filter.prompt_of(name) == prompt


@pytest.mark.parametrize("frames, count_num", [
    (16, 2), (4, 0), (5, 1), (12, 2), (20, 2), (28, 4), (36, 4), (44, 6), (8, 1), (24, 3)])
def test_count_num_is_round_2t_over_16_half_to_even(frames, count_num):
    assert static_filter.thresholds(256, 256, frames)[1] == count_num


def test_thres_is_three_per_256_pixels_of_the_short_side():
    assert static_filter.thresholds(480, 720, 16)[0] == 3.0 * (480 / 256.0) == 5.625


def test_more_than_count_num_moving_pairs_is_not_static():
    assert static_filter.is_static([9, 9, 1], [0, 0], thres=5.0, count_num=2)
    assert not static_filter.is_static([9, 9, 9], [0, 0], thres=5.0, count_num=2)
    assert static_filter.is_static([5.0, 5.0, 5.0], [0, 0], thres=5.0, count_num=0)  # strictly


def test_a_loop_pair_above_thres_times_count_num_times_two_is_not_static():
    assert static_filter.is_static([1, 1], [20.0, 20.0], thres=5.0, count_num=2)
    assert not static_filter.is_static([1, 1], [20.001, 0], thres=5.0, count_num=2)
    assert not static_filter.is_static([1, 1], [0, 20.001], thres=5.0, count_num=2)
    # count_num 0 (4 frames or fewer): any loop motion at all is not static.
    assert not static_filter.is_static([0.0], [1e-6, 0], thres=5.0, count_num=0)
    assert static_filter.is_static([0.0], [0.0, 0.0], thres=5.0, count_num=0)


def test_selection_is_lexicographic_capped_at_five_and_scores_no_more():
    names = [f"v/a cat-{i}.mp4" for i in range(12)] + ["v/a dog-0.mp4", "v/other-0.mp4"]
    scored = []

    def static(path):
        scored.append(path)
        return path not in ("v/a cat-1.mp4", "v/a cat-2.mp4")

    chosen = static_filter.select(reversed(names), ["a cat", "a dog", "a bird"], static)
    # sorted: -0, -1, -10, -11, -2, -3, ... ; -1 and -2 are not static.
    assert chosen == {"a cat": ["v/a cat-0.mp4", "v/a cat-10.mp4", "v/a cat-11.mp4",
                                "v/a cat-3.mp4", "v/a cat-4.mp4"],
                      "a dog": ["v/a dog-0.mp4"], "a bird": []}
    assert scored == ["v/a cat-0.mp4", "v/a cat-1.mp4", "v/a cat-10.mp4", "v/a cat-11.mp4",
                      "v/a cat-2.mp4", "v/a cat-3.mp4", "v/a cat-4.mp4", "v/a dog-0.mp4"]


def test_copies_renumber_from_zero_per_prompt(tmp_path):
    chosen = {"a cat": ["v/a cat-10.mp4", "v/a cat-3.mp4"], "a dog": ["v/a dog-7.mp4"]}
    assert static_filter.copies(chosen, tmp_path) == [
        ("v/a cat-10.mp4", tmp_path / "a cat-0.mp4"), ("v/a cat-3.mp4", tmp_path / "a cat-1.mp4"),
        ("v/a dog-7.mp4", tmp_path / "a dog-0.mp4")]


def test_video_paths_are_sorted_mp4_files_only(tmp_path):
    for name in ["b-2.mp4", "b-10.mp4", "a.mp4", "c.MP4", ".hidden.mp4", "d.avi"]:
        (tmp_path / name).write_bytes(b"")
    assert [p.rsplit("/", 1)[1] for p in static_filter.video_paths(tmp_path)] == [
        "a.mp4", "b-10.mp4", "b-2.mp4"]


def test_write_outputs_info_file_copies_and_warnings(tmp_path, caplog):
    source = tmp_path / "in"
    source.mkdir()
    for name in ["a cat-10.mp4", "a cat-3.mp4"]:
        (source / name).write_bytes(name.encode())
    chosen = {"a cat": [str(source / "a cat-10.mp4"), str(source / "a cat-3.mp4")], "a dog": []}
    with caplog.at_level(logging.WARNING):
        target = static_filter.write_outputs(chosen, tmp_path / "out")
    assert target == tmp_path / "out" / "filtered_videos"
    assert sorted(p.name for p in target.iterdir()) == ["a cat-0.mp4", "a cat-1.mp4"]
    assert (target / "a cat-0.mp4").read_bytes() == b"a cat-10.mp4"
    info = json.loads((tmp_path / "out" / "filtered_static_video.json").read_text())
    assert info == {"a cat": {"static_count": 2, "static_path": chosen["a cat"]},
                    "a dog": {"static_count": 0, "static_path": []}}
    assert "'a dog' has fewer than 5" in caplog.text and "'a cat' has fewer" in caplog.text
