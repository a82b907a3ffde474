"""MemoBench's frame rule (frame_order.py): string order must be time order; a gap is kept,
scored as the official sorted() list scores it, and recorded as the sample's warning."""

import json
import shutil

import cv2
import numpy as np
import pytest

from benchmarks.common.flags import CommonConfig
from benchmarks.memobench import frame_order
from benchmarks.memobench import runner
from benchmarks.memobench.step1 import pixel
from benchmarks.memobench.step1.prepare import Step1Settings
from benchmarks.memobench.vqa import video as vqa_video
from metrics.video import frames as frames_lib
from tools.fixtures import memobench_fixture

CLIP = "Barnyard_002"


def _write(folder, names):
    """Frame k (in `names` order) is flat grey level k % 256."""
    folder.mkdir(parents=True, exist_ok=True)
    for k, name in enumerate(names):
        assert cv2.imwrite(str(folder / name), np.full((8, 12, 3), k % 256, np.uint8))
    return folder


@pytest.mark.parametrize("names", [
    ["1.png", "2.png", "10.png"],
    [f"f{i}.png" for i in (8, 9, 10, 11)],
    [f"frames_{i}.png" for i in range(1, 131)],
])
def test_names_whose_string_order_is_not_their_time_order_are_refused(tmp_path, names):
    folder = _write(tmp_path / "frames", names)
    assert [p.name for p in frames_lib.list_frame_files(folder)] == names  # the library
    with pytest.raises(frames_lib.FrameInputError) as info:                # MemoBench
        frame_order.list_frames(folder)
    message = str(info.value)
    assert "sorts before" in message and "lexicographic" in message and "\n" not in message
    with pytest.raises(frames_lib.FrameInputError, match="sorts before"):
        frame_order.gap_warnings(folder)
    with pytest.raises(frames_lib.FrameInputError, match="sorts before"):
        vqa_video.frames_to_mp4(folder, tmp_path / "judge.mp4")


@pytest.mark.parametrize("names", [
    [f"{i:05d}.png" for i in range(32)],
    [f"NewLevelSequence5.{i:04d}.jpg" for i in range(12)],
    [f"frame_{i:04d}.jpg" for i in range(1, 11)],
    [f"{i}.png" for i in range(10)],
])
def test_the_official_layouts_are_read_in_sorted_order_without_warning(tmp_path, names):
    folder = _write(tmp_path / "frames", names)
    assert [p.name for p in frame_order.list_frames(folder)] == sorted(names)
    assert frame_order.gap_warnings(folder) == []
    assert frame_order.gap_warnings(tmp_path / "clip.mp4") == []  # a video: no folder rule


def test_a_gap_keeps_the_official_sorted_list_and_warns_naming_the_missing_frame(tmp_path):
    names = [f"{i:05d}.png" for i in range(32) if i != 16]
    folder = _write(tmp_path / "frames", names)
    got = frame_order.list_frames(folder)
    assert [p.name for p in got] == sorted(names) and len(got) == 31  # as sorted() reads it
    (warning,) = frame_order.gap_warnings(folder)
    assert warning.startswith(f"{folder}: frame numbering has a gap, 00016.png missing")
    assert "as the official code scores it" in warning


def test_the_library_refusals_still_apply(tmp_path):
    folder = _write(tmp_path / "frames", ["00001.png", "00002.png", "00005 (1).png"])
    with pytest.raises(frames_lib.FrameInputError, match="does not end in a frame number"):
        frame_order.list_frames(folder)


# End to end: Step 1 (weight-free PSNR/SSIM) on the fixture tree.

def _run(tree, out):
    gen = tree / "generated" / memobench_fixture.MODEL_NAME
    config = runner.MemobenchConfig(
        common=CommonConfig(offline=True, metrics=tuple(pixel.PSNR_SSIM_IDS)),
        data_root=tree / "data", output_dir=out, model_name=memobench_fixture.MODEL_NAME,
        generated_synthetic_dir=gen / "Synthetic", generated_real_dir=gen / "Real",
        steps=(runner.STEP1,), step1=Step1Settings(offline=True,
                                                   checkpoint_dir=str(tree / "none")))
    card = runner.run(config)
    assert not card.coverage.internal_error_sample_ids
    rows = [json.loads(line) for line in (out / "per_sample_scores.jsonl").read_text()
            .splitlines() if line]
    return {r["sample_id"]: r for r in rows if r.get("split") == "synthetic"}


@pytest.fixture(scope="module")
def clean(tmp_path_factory):
    tree = tmp_path_factory.mktemp("tree")
    memobench_fixture.build_memobench_fixture(tree)
    return tree


def _frames_dir(tree):
    matches = [p for p in (tree / "generated").rglob("frames") if p.parent.name == CLIP]
    assert len(matches) == 1, matches
    return matches[0]


def _copy(clean, tmp_path):
    tree = tmp_path / "tree"
    shutil.copytree(clean, tree, symlinks=True)
    return tree, _frames_dir(tree)


def _metrics(row):
    return {k: v for k, v in row["metrics"].items() if k.startswith("GT_")}


def test_step1_a_gap_scores_as_the_official_sorted_list_with_a_warning(clean, tmp_path):
    tree, frames = _copy(clean, tmp_path)
    names = sorted(p.name for p in frames.iterdir())
    assert names[16] == "00016.png", names[:20]
    (frames / "00016.png").unlink()
    gap = _run(tree, tmp_path / "gap")[CLIP]
    assert not gap.get("error")
    warnings = gap["diagnostics"].get("input_warnings", "")
    assert "00016.png missing" in warnings and "frame numbering has a gap" in warnings
    assert gap["diagnostics"]["num_frames"] == str(len(names) - 1)
    # What the official sorted() list reads: the later frames one place up. Renaming them
    # to a contiguous numbering gives that list without a gap: the same numbers, no warning.
    for name in names[17:]:
        number = int(name.split(".")[0])
        (frames / name).rename(frames / f"{number - 1:05d}.png")
    closed = _run(tree, tmp_path / "closed")[CLIP]
    assert "frame numbering" not in closed["diagnostics"].get("input_warnings", "")
    assert _metrics(gap) and _metrics(gap) == _metrics(closed)


def test_step1_refuses_unpadded_names_and_a_copy_as_that_clips_error_row(clean, tmp_path):
    tree, frames = _copy(clean, tmp_path)
    for path in sorted(frames.iterdir()):
        path.rename(frames / f"{int(path.stem)}{path.suffix}")
    shutil.copy(frames / "5.png", frames / "5 (1).png")
    rows = _run(tree, tmp_path / "out")
    assert "5 (1).png" in rows[CLIP]["error"]
    assert "does not end in a frame number" in rows[CLIP]["error"]
    (frames / "5 (1).png").unlink()
    rows = _run(tree, tmp_path / "out2")
    assert "sorts before" in rows[CLIP]["error"] and "lexicographic" in rows[CLIP]["error"]
    assert all(not r.get("error") for k, r in rows.items() if k != CLIP)
