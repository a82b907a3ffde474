"""MiraBench frame folders as calculate_score.py writes and reads them (spec §1):
`ffmpeg -i <video> <frame_dir>/<video_idx>/frames_%d.png` (1-based, unpadded), then
frames_1.png ... frames_N.png read by number, N = the folder's entries; a file the
official loop would miss (a gap, an entry that is not a frame) is that video's error
row, and so is an image OpenCV refuses (a header claiming 100000x100000 pixels)."""

import json

import cv2
import numpy as np
import pytest

from benchmarks.common.errors import InputError
from benchmarks.common.flags import CommonConfig
from benchmarks.mirabench import layout
from benchmarks.mirabench import runner
from benchmarks.mirabench import sample as sample_lib
from metrics.testing import damaged_png
from tools.fixtures import mirabench_clips

H, W = 16, 24


def _frame(k: int) -> np.ndarray:
    """Frame k (1-based) carries its number in its pixels: B = k % 256, G = k // 256."""
    image = np.full((H, W, 3), 7, np.uint8)
    image[..., 0], image[..., 1] = k % 256, k // 256
    return image


def _number(frame: np.ndarray) -> int:
    return int(frame[0, 0, 0]) + 256 * int(frame[0, 0, 1])


def _official_folder(folder, count, skip=()):
    """frames_1.png ... frames_<count>.png, as ffmpeg's frames_%d.png names them."""
    folder.mkdir(parents=True)
    for k in range(1, count + 1):
        if k not in skip:
            assert cv2.imwrite(str(folder / f"frames_{k}.png"), _frame(k))
    return folder


def _row(generated, meta, index):
    rows = layout.rows(meta, generated)
    return next(r for r in rows if r.video_idx == str(index))


@pytest.mark.parametrize("count", [96, 130])
def test_the_official_layout_is_read_by_number(tmp_path, count):
    generated = tmp_path / "generated"
    folder = _official_folder(generated / "1", count)
    assert sorted(p.name for p in folder.iterdir())[:2] == [
        "frames_1.png", "frames_10.png"]  # string order is not time order
    paths = layout.frame_files(folder)
    assert [p.name for p in paths] == [f"frames_{k}.png" for k in range(1, count + 1)]
    meta = mirabench_clips.write_meta(tmp_path / "meta.csv", {1: "generated/1.mp4"})
    row = _row(generated, meta, 1)
    assert row.source == folder
    loaded = sample_lib.load(row)
    assert loaded.frames.shape == (count, H, W, 3)
    assert [_number(f) for f in loaded.frames] == list(range(1, count + 1))
    assert sample_lib.digest(row) == loaded.digest


def test_a_gap_names_the_first_missing_frame_as_the_official_loop_fails_on_it(tmp_path):
    folder = _official_folder(tmp_path / "3", 20, skip=(7,))
    with pytest.raises(InputError) as info:
        layout.frame_files(folder)
    assert info.value.path == str(folder / "frames_7.png")
    assert "no frames_7.png" in str(info.value) and "a gap" in str(info.value)
    assert "frames_1.png ... frames_19.png" in str(info.value)  # N = the 19 entries


@pytest.mark.parametrize("extra, missing", [
    ("notes.txt", "frames_21.png"),        # N counts it: the official loop wants 21 frames
    ("frames_5 (1).png", "frames_21.png"),
])
def test_an_entry_that_is_not_a_frame_is_named(tmp_path, extra, missing):
    folder = _official_folder(tmp_path / "v", 20)
    (folder / extra).write_bytes(b"x")
    with pytest.raises(InputError) as info:
        layout.frame_files(folder)
    assert info.value.path == str(folder / missing) and extra in str(info.value)


@pytest.mark.parametrize("names, missing", [
    ([f"frames_{k:02d}.png" for k in range(1, 12)], "frames_1.png"),   # padded
    ([f"{k:05d}.png" for k in range(1, 5)], "frames_1.png"),           # another layout
    ([f"frames_{k}.png" for k in range(0, 5)], "frames_5.png"),        # from 0, not 1
])
def test_names_the_official_loop_does_not_read_are_refused(tmp_path, names, missing):
    folder = tmp_path / "v"
    folder.mkdir()
    for name in names:
        cv2.imwrite(str(folder / name), _frame(1))
    with pytest.raises(InputError) as info:
        layout.frame_files(folder)
    assert info.value.path == str(folder / missing)


def test_the_runner_scores_official_folders_and_gives_bad_ones_error_rows(tmp_path):
    generated = tmp_path / "generated"
    _official_folder(generated / "1", 130)
    _official_folder(generated / "2", 96)
    _official_folder(generated / "3", 20, skip=(7,))
    huge = _official_folder(generated / "4", 12) / "frames_3.png"
    huge.write_bytes(damaged_png.png_claiming(100000, 100000))
    (_official_folder(generated / "5", 12) / "notes.txt").write_text("x")
    meta = mirabench_clips.write_meta(tmp_path / "meta.csv",
                                      {k: f"generated/{k}.mp4" for k in range(1, 6)})
    out = tmp_path / "out"
    card = runner.run(runner.MiraBenchConfig(
        common=CommonConfig(metrics=("dynamic_degree",), offline=True), meta_csv=meta,
        generated_dir=generated, output_dir=out, model_name="m"))
    rows = {r["sample_id"]: r for r in map(json.loads, (out / "per_sample_scores.jsonl")
                                           .read_text().splitlines())}
    assert not card.coverage.internal_error_sample_ids
    assert (card.coverage.evaluated, card.coverage.failed) == (2, 3)
    assert [rows[i]["diagnostics"]["num_frames"] for i in ("1", "2")] == ["130", "96"]
    assert not rows["1"].get("error") and not rows["2"].get("error")
    assert "frames_7.png" in rows["3"]["error"] and "a gap" in rows["3"]["error"]
    assert "frames_3.png" in rows["4"]["error"]
    assert "header claims 100000x100000 pixels" in rows["4"]["error"]
    assert "internal error" not in rows["4"]["error"]
    assert "notes.txt" in rows["5"]["error"] and "frames_13.png" in rows["5"]["error"]
