"""Ground truth is found in the current and the legacy MemoBench layouts."""

import json

import cv2
import numpy as np
import pandas as pd
import pytest

from benchmarks.common.errors import InputError
from benchmarks.memobench import dataset
from benchmarks.memobench.phase_sheets import PhaseRow

ROW = PhaseRow(h_gt=3, r_gt=6, prompt="it sees a fox(subject)")


def _frames(n, h=16, w=20):
    return [np.full((h, w, 3), 10 * i, np.uint8) for i in range(n)]


def _write_video(path, frames, fps=30.0):
    path.parent.mkdir(parents=True, exist_ok=True)
    h, w = frames[0].shape[:2]
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"mp4v"), fps, (w, h))
    for f in frames:
        writer.write(f)
    writer.release()


def _intrinsics(path, n):
    path.parent.mkdir(parents=True, exist_ok=True)
    np.save(path, np.tile([[500.123, 501.987, 10.0, 8.0]], (n, 1)))


def test_current_synthetic_layout(tmp_path):
    clip = tmp_path / "Synthetic_processed" / "Middle_Age" / "Middle_Age_008"
    for i, f in enumerate(_frames(9)):
        (clip / "RGB8").mkdir(parents=True, exist_ok=True)
        cv2.imwrite(str(clip / "RGB8" / f"NewLevelSequence8.{i:04d}.jpg"), f)
    _intrinsics(clip / "8" / "intrinsics.npy", 9)
    gt = dataset.synthetic_ground_truth(tmp_path, "Middle_Age_008", ROW)
    assert (gt.layout, gt.gt_total, gt.scene, gt.source.name) == ("current", 9, "Middle_Age", "RGB8")
    assert (gt.fx, gt.fy, gt.h_gt, gt.r_gt) == (500.123, 501.987, 3, 6)
    assert gt.prompt == ROW.prompt


def test_legacy_synthetic_layout_uses_the_scene_video(tmp_path):
    clip = tmp_path / "Synthetic_processed" / "Japanese_Street" / "Japanese_Street_003"
    _intrinsics(clip / "intrinsics.npy", 12)
    _write_video(tmp_path / "Synthetic_videos" / "JapaneseStreet3.mp4", _frames(12))
    gt = dataset.synthetic_ground_truth(tmp_path, "Japanese_Street_003", ROW)
    assert (gt.layout, gt.gt_total, gt.source.name) == ("legacy", 12, "JapaneseStreet3.mp4")


def test_missing_synthetic_gt_names_both_layouts(tmp_path):
    with pytest.raises(InputError, match=r"Barnyard_001: expected GT frames RGB1/.*legacy"):
        dataset.synthetic_ground_truth(tmp_path, "Barnyard_001", ROW)


def test_current_real_layout(tmp_path):
    clip = tmp_path / "Real_Raw" / "007"
    _write_video(clip / "007.mp4", _frames(11))
    (clip / "raw").mkdir(parents=True)
    np.savez(clip / "raw" / "007_mapanything.npz", cam_c2w=np.tile(np.eye(4), (11, 1, 1)),
             intrinsic=np.array([[400.0, 0, 10], [0, 401.0, 8], [0, 0, 1]]))
    gt = dataset.real_ground_truth(tmp_path, "007", ROW)
    assert (gt.layout, gt.gt_total, gt.fx, gt.fy, gt.scene) == ("current", 11, 400.0, 401.0, "real")
    assert gt.prompt == ""  # real sheets carry no prompt


def test_legacy_real_layout_counts_timestamps(tmp_path):
    clip = tmp_path / "Real_Raw" / "012"
    _write_video(clip / "012.mp4", _frames(11))
    (clip / "012-intrinsics.json").write_text(json.dumps({"camera": {"fx": 1.5, "fy": 2.5,
                                                                     "cx": 0, "cy": 0}}))
    (clip / "timestamps.txt").write_text("0.0\n0.1\n\n0.2\n")
    gt = dataset.real_ground_truth(tmp_path, "012", ROW)
    assert (gt.layout, gt.gt_total, gt.fx, gt.fy) == ("legacy", 3, 1.5, 2.5)


def test_data_root_accepts_the_checkout(tmp_path):
    (tmp_path / "data" / "Real_Raw").mkdir(parents=True)
    assert dataset.resolve_data_root(tmp_path) == tmp_path / "data"
    with pytest.raises(InputError, match="Synthetic_processed/ or Real_Raw/"):
        dataset.resolve_data_root(tmp_path / "data" / "Real_Raw")


def test_sheets_and_real_selection(tmp_path):
    (tmp_path / "Synthetic_processed").mkdir()
    (tmp_path / "Real_Raw").mkdir()
    pd.DataFrame({"video_folder": ["A_001"], "exits": [1], "re-enter": [2]}).to_excel(
        tmp_path / "Synthetic_processed" / "Synthetic_ExitReenter.xlsx", index=False)
    pd.DataFrame({"id": [1, 2], "exit": [1, 1], "reenter": [2, 2]}).to_csv(
        tmp_path / "Real_Raw" / "Real_ExitReenter.csv", index=False)
    syn, real, _ = dataset.load_sheets(tmp_path)
    assert list(syn) == ["A_001"] and sorted(real) == ["001", "002"]
    pd.DataFrame({"ID": [2], "Availability": ["yes"]}).to_csv(tmp_path / "Real_Selected.csv",
                                                             index=False)
    assert list(dataset.load_sheets(tmp_path)[1]) == ["002"]


def _synthetic(tmp_path, n=6):
    clip = tmp_path / "Synthetic_processed" / "Barnyard" / "Barnyard_001"
    (clip / "RGB1").mkdir(parents=True)
    for i, f in enumerate(_frames(n)):
        cv2.imwrite(str(clip / "RGB1" / f"NewLevelSequence1.{i:04d}.jpg"), f)
    _intrinsics(clip / "1" / "intrinsics.npy", n)
    np.save(clip / "1" / "poses.npy", np.tile(np.eye(4), (n, 1, 1)))
    return clip


@pytest.mark.parametrize("values,found", [
    ([np.nan, 500.0, 10.0, 8.0], "fx=nan"),
    ([500.0, 0.0, 10.0, 8.0], "fy=0.0"),
    ([500.0, 500.0, np.inf, 8.0], "cx=inf"),
])
def test_nan_or_zero_intrinsics_are_refused_naming_the_file(tmp_path, values, found):
    clip = _synthetic(tmp_path)
    np.save(clip / "1" / "intrinsics.npy", np.tile([values], (6, 1)))
    with pytest.raises(InputError, match=r"1/intrinsics\.npy: expected camera intrinsics "
                       r"with finite fx, fy > 0.*" + found):
        dataset.synthetic_ground_truth(tmp_path, "Barnyard_001", ROW)


@pytest.mark.parametrize("content,found", [
    (b"not numpy at all", "not a readable numpy file"),
    (None, "pickled Python objects, not a numeric array"),
])
def test_npy_errors_name_the_file_and_never_advise_allow_pickle(tmp_path, content, found):
    clip = _synthetic(tmp_path)
    path = clip / "1" / "intrinsics.npy"
    if content is None:
        np.save(path, np.array([{"fx": 1}], dtype=object), allow_pickle=True)
    else:
        path.write_bytes(content)
    with pytest.raises(InputError) as e:
        dataset.synthetic_ground_truth(tmp_path, "Barnyard_001", ROW)
    assert str(path) in str(e.value) and found in str(e.value)
    assert "allow_pickle" not in str(e.value)


def test_a_truncated_npz_names_the_file(tmp_path):
    clip = tmp_path / "Real_Raw" / "001"
    _write_video(clip / "001.mp4", _frames(8))
    npz = clip / "raw" / "001_mapanything.npz"
    npz.parent.mkdir(parents=True)
    np.savez(npz, intrinsic=np.eye(3) * 500, cam_c2w=np.tile(np.eye(4), (8, 1, 1)))
    npz.write_bytes(npz.read_bytes()[:100])
    with pytest.raises(InputError, match=r"001_mapanything\.npz: expected an \.npz with a "
                       r"numeric 'intrinsic' array"):
        dataset.real_ground_truth(tmp_path, "001", ROW)


def test_the_reference_digest_changes_with_a_gt_file_its_row_or_its_root(tmp_path):
    clip = _synthetic(tmp_path / "a")
    digest = lambda root, row=ROW: dataset.reference_digest(  # noqa: E731
        dataset.synthetic_ground_truth(root, "Barnyard_001", row))
    before = digest(tmp_path / "a")
    assert digest(tmp_path / "a") == before  # nothing touched: the same
    assert digest(tmp_path / "a", PhaseRow(3, 7, ROW.prompt)) != before
    import shutil  # pylint: disable=import-outside-toplevel
    shutil.copytree(tmp_path / "a", tmp_path / "b")
    assert digest(tmp_path / "b") != before  # another data root
    frame = clip / "RGB1" / "NewLevelSequence1.0002.jpg"
    cv2.imwrite(str(frame), np.full((16, 20, 3), 99, np.uint8))
    assert digest(tmp_path / "a") != before
    after_frame = digest(tmp_path / "a")
    # Another size (float32): the stat digest does not rest on mtime granularity here.
    np.save(clip / "1" / "poses.npy", np.tile(np.eye(4, dtype=np.float32), (6, 1, 1)))
    assert digest(tmp_path / "a") != after_frame  # the pose file the camera metric reads

