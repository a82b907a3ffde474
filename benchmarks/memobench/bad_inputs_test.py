"""MemoBench in the engine's shared bad-inputs suite (benchmarks/common/bad_inputs.py).

Each defect of issue 10 is built on a copy of the fixture tree by
tools/fixtures/memobench_broken_inputs.py; the suite checks the exit code, the message
(it names the file and what was expected), and that every other clip's Step 1 numbers
equal the clean run's. Step 1 runs on the weight-free PSNR/SSIM columns (fast); the
ground-truth and sheet defects act before any family runs, so they hold for all.
"""

import os
import pathlib

import pytest

from benchmarks.common import bad_import_values
from benchmarks.common import bad_inputs
from benchmarks.common import engine
from benchmarks.common.errors import InputError
from benchmarks.common.flags import CommonConfig
from benchmarks.memobench import importer
from benchmarks.memobench import leaderboard_fixture
from benchmarks.memobench import metric_specs
from benchmarks.memobench import runner
from benchmarks.memobench.step1 import pixel
from benchmarks.memobench.step1.prepare import Step1Settings
from metrics.video.frames import FrameInputError
from tools.fixtures import memobench_broken_inputs as broken
from tools.fixtures import memobench_fixture
from tools.testing import non_root_reads

B1, B2 = ("synthetic", "Barnyard_001"), ("synthetic", "Barnyard_002")
C1, R1 = ("synthetic", "CityPark_001"), ("real", "001")
D = bad_inputs.Defect
SHEET = "Synthetic_ExitReenter.xlsx"


# --- issue 33's damage (kept here: tools/fixtures/memobench_broken_inputs.py has the rest)

def _several_sources(tree, clip="Barnyard_002"):
    """frames/ (kept), plus video.mp4 and <clip>.mp4 with other content in the folder."""
    frames = broken._frames_of(tree, clip)
    folder = broken.generated(tree, clip)
    (folder / "video.mp4").write_bytes(broken._mjpeg_avi(frames[::-1]))
    (folder / f"{clip}.mp4").write_bytes(broken._mjpeg_avi(frames[1:]))


def _renamed_clip_folder(name, clip="Barnyard_002"):
    def mutate(tree):
        folder = broken.generated(tree, clip)
        folder.rename(folder.parent / name)
    return mutate


def _clip_folder_copied_to_the_root(tree, clip="Barnyard_002"):
    folder = broken.generated(tree, clip)
    folder.rename(folder.parent.parent / f"{clip} copy")


def _real_clip_also_as_an_unpadded_video(tree, clip="001"):
    """Real/1.mp4 beside Real/001/: run_eval.py evaluates both as clip 001."""
    folder = broken.generated(tree, clip)
    (folder.parent / f"{int(clip)}.mp4").write_bytes(broken._mjpeg_avi(broken._frames_of(
        tree, clip)[1:]))


def _synthetic_clip_also_as_a_respelt_video(tree, clip="Barnyard_002"):
    """Synthetic/Barnyard_2.mp4 beside Barnyard/Barnyard_002/: run_eval.py reads only
    the sheet's spelling (the folder)."""
    scene, number = clip.rsplit("_", 1)
    root = broken.generated(tree, clip).parent.parent
    (root / f"{scene}_{int(number)}.mp4").write_bytes(broken._mjpeg_avi(broken._frames_of(
        tree, clip)[::-1]))


def _invoke(tree: pathlib.Path, out: pathlib.Path, resume: bool) -> bad_inputs.Run:
    gen = tree / "generated" / memobench_fixture.MODEL_NAME
    config = runner.MemobenchConfig(
        common=CommonConfig(offline=True, resume=resume, metrics=tuple(pixel.PSNR_SSIM_IDS)),
        data_root=tree / "data", output_dir=out, model_name=memobench_fixture.MODEL_NAME,
        generated_synthetic_dir=gen / "Synthetic", generated_real_dir=gen / "Real",
        steps=(runner.STEP1,), step1=Step1Settings(offline=True,
                                                   checkpoint_dir=str(tree / "none")))
    try:
        card = runner.run(config)
    except (InputError, FrameInputError) as e:  # what app_main turns into exit 2
        return bad_inputs.Run(2, f"error: {e}")
    recomputed = engine.recomputed_keys(card.notes)
    return bad_inputs.Run(1 if card.coverage.internal_error_sample_ids else 0, "", recomputed)


DEFECTS = [
    # Already handled before this suite; kept here because they are cheap.
    D("garbage_generated_png", broken.garbage_frame, (B2,),
      fragments=("00016.png", "expected a readable PNG/JPEG image")),
    D("dangling_frame_link", broken.dangling_frame_link, (B2,),
      fragments=("00099.png", "a link to nothing")),
    D("directory_named_like_a_frame", broken.directory_named_like_a_frame, (B2,),
      fragments=("00099.png", "a directory")),
    D("no_generated_real_root", broken.no_generated_real_root, exit_code=2,
      fragments=("Real", "--mode=synthetic")),
    # Discovery: one clip's folder is broken, the run goes on.
    D("no_frames_folder", broken.no_frames_folder, (B2,),
      fragments=("Barnyard_002/frames", "expected a frame folder or a .mp4", "found nothing")),
    D("frames_symlink_loop", broken.frames_symlink_loop, (B2,),
      fragments=("Barnyard_002/frames", "symlink loop")),
    D("unreadable_frames_folder", broken.unreadable_frames_folder, (B2,),
      fragments=("Barnyard_002/frames", "Permission"), skip_if=bad_inputs.root_reason),
    D("unreadable_frame_file", broken.unreadable_frame_file, (B2,),
      fragments=("00004.png", "expected a readable PNG/JPEG image"),
      skip_if=bad_inputs.root_reason),
    # The clips inside cannot be named: the folder is the error row, CityPark_001 absent.
    D("unreadable_scene_folder", broken.unreadable_scene_folder, (("synthetic", "CityPark"),),
      absent=(C1,), fragments=("CityPark", "a readable folder of generated clips", "Permission"),
      skip_if=bad_inputs.root_reason),
    D("truncated_npz", broken.truncated_npz, (R1,),
      fragments=("001_mapanything.npz", "expected an .npz with a numeric 'intrinsic'")),
    # Partial decodes: scored as upstream scores them, recorded with the file.
    D("truncated_gt_jpeg", broken.truncated_gt_jpeg, (B1,), where="warning",
      fragments=("NewLevelSequence1.0010.jpg", "cut short", "grey fill")),
    D("truncated_generated_jpeg", broken.truncated_generated_jpeg, (B2,), where="warning",
      fragments=("00010.jpg", "cut short", "grey fill")),
    D("video_shorter_than_its_container", broken.video_shorter_than_its_container, (B2,),
      fragments=("video.mp4", "the 41 frames its container declares", "only 33")),
    # Messages that name the file.
    D("one_frame_video", broken.one_frame_video, (B2,),
      fragments=("Barnyard_002/video.mp4", "at least 6 frames", "found 1 frames")),
    D("nan_intrinsics", broken.nan_intrinsics, (B1,),
      fragments=("1/intrinsics.npy", "finite fx, fy > 0", "fx=nan")),
    D("zero_intrinsics", broken.zero_intrinsics, (C1,),
      fragments=("1/intrinsics.npy", "fy=0.0")),
    D("pickled_intrinsics", broken.pickled_intrinsics, (B1,),
      fragments=("1/intrinsics.npy", "pickled Python objects, not a numeric array")),
    # Phase sheets.
    D("exits_after_reenter", broken.exits_after_reenter, (C1,), where="warning",
      fragments=("Synthetic_ExitReenter.xlsx row 5 (CityPark_001)", "exits 30 > re-enter 10")),
    D("duplicate_row", broken.duplicate_row, (C1,), where="warning",
      fragments=("Synthetic_ExitReenter.xlsx rows 5 and 6 are both CityPark_001",
                 "row 6 (the last) is used")),
    D("non_numeric_row", broken.non_numeric_row, (C1,),
      fragments=("Synthetic_ExitReenter.xlsx", "row 5 (CityPark_001)",
                 "exits 'soon' not a number")),
    D("header_only_sheet", broken.header_only_sheet, exit_code=2,
      fragments=("Synthetic_ExitReenter.xlsx", "a header and no rows", "--mode=real")),
    # A boundary that is not a whole number: used as run_eval.py's int(float(x)) reads it,
    # and said; a negative one is the clip's error naming the sheet, row and value (not
    # a GT frame the ground truth is "too short" for).
    D("fractional_boundary", lambda tree: broken.set_sheet_cells(tree, exits=9.7), (C1,),
      where="warning", fragments=(f"{SHEET} row 5 (CityPark_001)", "exits 9.7 not a whole "
                                  "number", "used as exits 9")),
    D("negative_boundary", lambda tree: broken.set_sheet_cells(tree, exits=-5), (C1,),
      fragments=(SHEET, "row 5 (CityPark_001)", "exits -5 is negative")),
    # Several sources in one clip folder: video.mp4 is scored (as before); the others named.
    D("several_sources_in_a_clip_folder", _several_sources, (B2,), where="warning",
      fragments=("Barnyard_002: read video.mp4", "not read: frames/, Barnyard_002.mp4")),
    # Two sources of one clip: one clip, never two of the same id. Which one run_eval.py
    # reads cannot be told (it evaluates both): the clip's error names both; it can (the
    # sheet's spelling): that one is read and the other named.
    D("real_clip_as_a_video_and_a_folder", _real_clip_also_as_an_unpadded_video, (R1,),
      fragments=("Real/1.mp4", "Real/001", "one source of generated clip 001",
                 "cannot be told")),
    D("synthetic_clip_spelt_two_ways", _synthetic_clip_also_as_a_respelt_video, (B2,),
      where="warning", fragments=("Synthetic/Barnyard_2.mp4",
                                  "another source of clip Barnyard_002, not read")),
    # Folders not taken as clips: Barnyard_002 is then absent, and a note names the folder
    # (test_folders_not_taken_as_clips_are_named).
    D("dash_clip_folder", _renamed_clip_folder("-Barnyard_002"), (), absent=(B2,)),
    D("copy_clip_folder", _renamed_clip_folder("Barnyard_002 copy"), (), absent=(B2,)),
    D("copy_clip_folder_at_the_root", _clip_folder_copied_to_the_root, (), absent=(B2,)),
    # Resume keyed on inputs: exactly the changed clips are recomputed.
    D("resume_changed_gt_frame", broken.change_gt_frame, (B1,), resume=True),
    D("resume_changed_sheet_row", broken.shift_sheet_row, (C1,), resume=True),
    D("resume_changed_generated_frame", broken.change_generated_frame, (B2,), resume=True),
    D("resume_moved_data_root", lambda tree: None, None, resume=True, moved=True),
] + bad_inputs.computed_value_defects(  # the runner's own SSIM of Barnyard_001
    B1, "GT_ALL_SSIM", metric_specs.BY_ID["GT_ALL_SSIM"].official_range)


@pytest.fixture(scope="module")
def harness(tmp_path_factory):
    suite = bad_inputs.Suite(
        build_clean=lambda tree: memobench_fixture.build_memobench_fixture(tree),
        invoke=_invoke, defects=DEFECTS)
    return bad_inputs.Harness(suite, tmp_path_factory.mktemp("bad_inputs"))


# chmod 000 damage: root reads through it, so as root these run with reads_as_non_root.
PERMISSION_DEFECTS = ("unreadable_frames_folder", "unreadable_frame_file",
                      "unreadable_scene_folder")


@pytest.mark.parametrize("name", [d.name for d in DEFECTS])
def test_defect(harness, name):
    defect = harness.defect(name)
    if name in PERMISSION_DEFECTS and os.geteuid() == 0:  # CI runs as root
        with non_root_reads.reads_as_non_root() as refused:
            harness.check(defect)
        assert refused, f"{name}: nothing was refused: the damage was not reached"
        return
    reason = defect.skip_if()
    if reason:
        pytest.skip(reason)
    harness.check(defect)


def test_npy_errors_never_advise_allow_pickle(harness):
    harness.check(harness.defect("pickled_intrinsics"))
    samples = bad_inputs.read_samples(harness.workdir / "pickled_intrinsics" / "out")
    assert "allow_pickle" not in samples[B1]["error"]


def test_sheet_problems_and_partial_reads_reach_the_scorecard(harness):
    import json  # pylint: disable=import-outside-toplevel
    for name, fragment in (("duplicate_row", "phase sheet: "),
                           ("truncated_gt_jpeg", "input warning")):
        if not (harness.workdir / name / "out" / "scorecard.json").exists():
            harness.check(harness.defect(name))
        card = json.loads((harness.workdir / name / "out" / "scorecard.json").read_text())
        assert any(n.startswith(fragment) for n in card["notes"]), (name, card["notes"])


@pytest.mark.parametrize("name, folder", [
    ("dash_clip_folder", "Synthetic/Barnyard/-Barnyard_002"),
    ("copy_clip_folder", "Synthetic/Barnyard/Barnyard_002 copy"),
    ("copy_clip_folder_at_the_root", "Synthetic/Barnyard_002 copy")])
def test_folders_not_taken_as_clips_are_named(harness, name, folder):
    import json  # pylint: disable=import-outside-toplevel
    harness.check(harness.defect(name))
    card = json.loads((harness.workdir / name / "out" / "scorecard.json").read_text())
    named = [n for n in card["notes"] if n.startswith(runner.SKIPPED_NOTE)]
    assert len(named) == 1 and f"{folder}: not evaluated" in named[0], card["notes"]
    assert "{Scene}_{NNN}" in named[0]
    assert "synthetic/Barnyard_002" in card["coverage"]["missing_sample_ids"]


def test_the_harness_can_fail(harness):
    """A defect whose expectation is wrong is caught (the suite is not vacuous)."""
    wrong = D("wrong_expectation", broken.garbage_frame, (C1,), fragments=("00016.png",))
    with pytest.raises(AssertionError):
        harness.check(wrong)


def test_a_root_of_folders_not_taken_as_clips_is_refused_naming_them(tmp_path):
    """Nothing left to evaluate (every folder misnamed): exit 2, and the message names
    what was not taken as a clip."""
    tree = tmp_path / "tree"
    memobench_fixture.build_memobench_fixture(tree)
    synthetic = broken.generated(tree, "Barnyard_001").parent.parent
    for clip in ("Barnyard_001", "Barnyard_002", "CityPark_001"):
        folder = broken.generated(tree, clip)
        folder.rename(folder.parent / f"{clip} copy")
    gen = tree / "generated" / memobench_fixture.MODEL_NAME
    config = runner.MemobenchConfig(
        common=CommonConfig(offline=True, metrics=tuple(pixel.PSNR_SSIM_IDS)),
        data_root=tree / "data", output_dir=tmp_path / "out", mode="synthetic",
        model_name=memobench_fixture.MODEL_NAME, generated_synthetic_dir=gen / "Synthetic",
        steps=(runner.STEP1,), step1=Step1Settings(offline=True,
                                                   checkpoint_dir=str(tree / "none")))
    with pytest.raises(InputError) as raised:
        runner.run(config)
    assert "not taken as clips: " + str(synthetic / "Barnyard" / "Barnyard_001 copy") in str(
        raised.value)


# The importer on an official-shaped eval CSV (leaderboard_fixture.official_csv: as
# run_eval.py's pandas writes it), Barnyard_001's GT_ALL_SSIM replaced by each of the
# shared value cases. pandas writes a NaN as an empty cell, the official "no value".
def _eval_csv(folder: pathlib.Path, value) -> None:
    frame = leaderboard_fixture.official_csv(folder / "eval_both.csv")
    if value is not None:
        frame.loc[0, "GT_ALL_SSIM"] = value
        frame.to_csv(folder / "eval_both.csv", index=False)


IMPORT = bad_import_values.ImportSuite(
    write=_eval_csv, load=lambda folder: importer.build_scorecard(folder / "eval_both.csv",
                                                                  "M"),
    metric="GT_ALL_SSIM", sample=B1, bounds=metric_specs.BY_ID["GT_ALL_SSIM"].official_range,
    empty_nan=True)


import_harness, test_import_value = bad_import_values.pytest_tests(IMPORT)
