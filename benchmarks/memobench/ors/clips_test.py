"""Tests for benchmarks.memobench.ors.clips: ORS's GT counts, r_start, frames, clip list."""

import pathlib

import numpy as np
import pytest

from benchmarks.memobench import dataset
from benchmarks.memobench import keyframes
from benchmarks.memobench import phase_sheets
from benchmarks.memobench.generated import GeneratedClip
from benchmarks.memobench.ors import clips
from benchmarks.memobench.ors.metadata import MetadataRow


def _touch(folder: pathlib.Path, names):
    folder.mkdir(parents=True, exist_ok=True)
    for name in names:
        (folder / name).write_bytes(b"x")


@pytest.fixture
def data_root(tmp_path):
    syn = tmp_path / "Synthetic_processed" / "Park"
    (syn / "Park_007" / "7").mkdir(parents=True)
    np.save(syn / "Park_007" / "7" / "intrinsics.npy", np.ones((30, 4)))
    _touch(syn / "Park_007" / "RGB7", [f"NewLevelSequence7.{i:04d}.jpg" for i in range(28)])
    _touch(syn / "Park_008" / "RGB8", ["a.JPG", "b.jpeg", "c.png", "notes.txt"])
    (syn / "Park_009").mkdir()
    np.save(syn / "Park_009" / "intrinsics.npy", np.ones((12, 4)))
    _touch(tmp_path / "Real_Raw" / "012" / "FRAMES", [f"frame_{i:04d}.jpg" for i in range(1, 10)])
    (tmp_path / "Real_Raw" / "013").mkdir()
    return tmp_path


def test_gt_count_is_ors_own_not_step1s(data_root):
    assert clips.gt_frame_count(data_root, "synthetic", "Park_007") == 30   # intrinsics rows
    row = phase_sheets.PhaseRow(5, 20)
    step1 = dataset.synthetic_ground_truth(data_root, "Park_007", row)
    assert step1.gt_total == 28                                             # RGB7 images
    assert clips.gt_frame_count(data_root, "synthetic", "Park_008") == 3    # RGB8 images
    assert clips.gt_frame_count(data_root, "synthetic", "Park_009") == 12   # legacy intrinsics
    assert clips.gt_frame_count(data_root, "synthetic", "Park_010") is None
    assert clips.gt_frame_count(data_root, "real", "012") == 9              # FRAMES images
    assert clips.gt_frame_count(data_root, "real", "013") is None


def _reference_r(h_gt, r_gt, gt_total, n):
    """compute_ors.map_keyframes, no minimum length."""
    h = max(2, min(round(h_gt / gt_total * n), n - 4))
    return max(h + 2, min(round(r_gt / gt_total * n), n - 1))


@pytest.mark.parametrize("h_gt,r_gt,gt_total,n", [
    (100, 200, 300, 81), (5, 290, 300, 81), (100, 101, 300, 81), (9, 38, 48, 33),
    (8, 32, 40, 25), (10, 20, 30, 5), (10, 20, 30, 3), (10, 20, 30, 0), (1, 2, 10, 6),
])
def test_r_start_matches_upstream(h_gt, r_gt, gt_total, n):
    row = phase_sheets.PhaseRow(h_gt, r_gt)
    assert clips.r_start(row, gt_total, n) == _reference_r(h_gt, r_gt, gt_total, n)
    if n >= keyframes.MIN_GENERATED_FRAMES:
        assert clips.r_start(row, gt_total, n) == keyframes.map_keyframes(h_gt, r_gt, gt_total, n)[1]


def test_r_start_known_answers():
    assert clips.r_start(phase_sheets.PhaseRow(100, 200), 300, 81) == 54
    assert clips.r_start(phase_sheets.PhaseRow(10, 20), 30, 3) == 4   # empty R range
    assert clips.r_start(phase_sheets.PhaseRow(10, 20), 30, 0) == 4


def _clip(source, cid="Park_001", split="synthetic"):
    return GeneratedClip(cid, split, "Park" if split == "synthetic" else "real", source, "test")


def test_pngs_are_preferred_to_a_video(tmp_path):
    folder = tmp_path / "Park" / "Park_001"
    _touch(folder, ["video.mp4"])
    assert clips.frames_source(_clip(folder / "video.mp4")) == folder / "video.mp4"
    _touch(folder / "frames", ["00000.jpg"])        # compute_ors globs *.png only
    assert clips.frames_source(_clip(folder / "video.mp4")) == folder / "video.mp4"
    _touch(folder, ["00000.png"])
    assert clips.frames_source(_clip(folder / "video.mp4")) == folder
    _touch(folder / "samples-rgb", ["00000.png"])
    assert clips.frames_source(_clip(folder / "video.mp4")) == folder / "samples-rgb"
    _touch(tmp_path, ["Park_002.mp4"])
    assert clips.frames_source(_clip(tmp_path / "Park_002.mp4")) == tmp_path / "Park_002.mp4"
    _touch(tmp_path / "Park_002" / "frames", ["00001.png"])
    assert clips.frames_source(_clip(tmp_path / "Park_002.mp4")) == tmp_path / "Park_002" / "frames"
    assert clips.frames_source(_clip(folder / "frames")) == folder / "frames"


def test_sheets_ignore_the_real_selection(tmp_path):
    (tmp_path / "Real_Raw").mkdir()
    (tmp_path / "Real_Raw" / "Real_ExitReenter.csv").write_text("id,exit,reenter\n12,3,7\n")
    (tmp_path / "Real_Selected.csv").write_text("ID,Availability\n12,no\n")
    assert dataset.load_sheets(tmp_path)[1] == {}          # Step 1 drops it
    paths = clips.sheet_paths(tmp_path)
    assert paths == {"synthetic": None, "real": tmp_path / "Real_Raw" / "Real_ExitReenter.csv"}
    sheets = clips.load_sheets(paths)
    assert sheets == {"synthetic": {}, "real": {"012": phase_sheets.PhaseRow(3, 7)}}


def test_plan_order_expected_and_problems(data_root):
    meta = {
        ("real", "012"): MetadataRow("012", "real", "real", "a cup", ""),
        ("synthetic", "Park_009"): MetadataRow("Park_009", "synthetic", "Park", "fox", ""),
        ("synthetic", "Park_007"): MetadataRow("Park_007", "synthetic", "Park", "fox", ""),
        ("synthetic", "Park_008"): MetadataRow("Park_008", "synthetic", "Park", "fox", ""),
    }
    sheets = {"synthetic": {"Park_007": phase_sheets.PhaseRow(5, 20),
                            "Park_009": phase_sheets.PhaseRow(2, 8)},
              "real": {"012": phase_sheets.PhaseRow(2, 6)}}
    generated = [_clip(data_root / "r", "012", "real"), _clip(data_root / "x", "Park_099"),
                 _clip(data_root / "a", "Park_007"), _clip(data_root / "b", "Park_008")]
    work, expected = clips.plan(generated, meta, sheets, data_root)
    assert expected == ["synthetic/Park_007", "synthetic/Park_009", "real/012"]
    assert [w.clip.clip_id for w in work] == ["Park_007", "Park_008", "012", "Park_099"]
    assert [w.problem() for w in work[:1] + work[2:3]] == ["", ""]
    assert "phase sheet" in work[1].problem()
    assert "synthetic_metadata.csv" in work[3].problem()
    assert (work[0].gt_frames, work[2].gt_frames) == (30, 9)


if __name__ == "__main__":
    raise SystemExit(pytest.main([__file__, "-q"]))


def test_a_clip_discovery_refused_is_not_scorable(tmp_path):
    """Discovery's error (two sources of one clip) is the clip's problem, said as is."""
    clip = GeneratedClip("007", "real", "real", tmp_path / "7.mp4", "{NNN}.mp4",
                         error="2: a, b", expected="one source of generated clip 007")
    meta = MetadataRow("007", "real", "real", "a ball", "")
    item = clips.OrsClip(clip, meta, phase_sheets.PhaseRow(5, 20), 30,
                         clip.source)
    assert item.problem() == "one source of generated clip 007, found 2: a, b"
