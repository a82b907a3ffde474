"""MiraBench in the engine's shared bad-inputs suite (benchmarks/common/bad_inputs.py).

The clean tree is two parallax clips (<tree>/generated/<video_idx>.mp4) and their meta
CSV in the official columns (tools/fixtures/mirabench_clips.py); the run scores the
weight-free 3D-consistency metrics. Each defect damages a copy of it one way: a meta
row whose video_idx is not a video index is that row's error (the other rows scored,
average_score.csv written); a --generated_dir that is missing, a file or empty, and a
meta CSV with no row, are refused (exit 2) before any work, naming the flag or file.
"""

import json
import pathlib
import shutil

import pandas as pd
import pytest

from benchmarks.common import bad_import_values
from benchmarks.common import bad_inputs
from benchmarks.common import engine
from benchmarks.common.errors import InputError
from benchmarks.common.flags import CommonConfig
from benchmarks.mirabench import importer
from benchmarks.mirabench import metric_specs
from benchmarks.mirabench import runner
from metrics.video.frames import FrameInputError
from tools.fixtures import mirabench_clips

META, GENERATED = "meta_generated.csv", "generated"
METRICS = ("3D_consistency_mean_err", "3D_consistency_num_pts")
D = bad_inputs.Defect


def _key(video_idx: str) -> bad_inputs.Key:
    return ("generated", video_idx)


def _build(tree: pathlib.Path) -> None:
    clips = {1: mirabench_clips.parallax_clip(15, 0, 72, 128),
             2: mirabench_clips.parallax_clip(15, 3, 72, 128)}
    mirabench_clips.write_set(tree, clips, GENERATED, META)


def _invoke(tree: pathlib.Path, out: pathlib.Path, resume: bool) -> bad_inputs.Run:
    config = runner.MiraBenchConfig(
        common=CommonConfig(metrics=METRICS, offline=True, resume=resume),
        meta_csv=tree / META, generated_dir=tree / GENERATED, output_dir=out,
        model_name="m")
    try:
        card = runner.run(config)
    except (InputError, FrameInputError) as e:  # what app_main turns into exit 2
        return bad_inputs.Run(2, f"error: {e}")
    recomputed = engine.recomputed_keys(card.notes)
    return bad_inputs.Run(1 if card.coverage.internal_error_sample_ids else 0, "", recomputed)


def _add_rows(*video_idx):
    """Appends meta rows with these video_idx cells (None: an empty cell), each pointing at
    video 1 (a usable video_path: only the index is wrong)."""
    def mutate(tree):
        frame = pd.read_csv(tree / META, dtype={"video_idx": str})
        for cell in video_idx:
            frame.loc[len(frame.index)] = [cell, f"{GENERATED}/1.mp4"] + ["x"] * 6
        frame.to_csv(tree / META, index=False)
    return mutate


def _generated_is_a_file(tree):
    shutil.rmtree(tree / GENERATED)
    (tree / GENERATED).write_text("not a folder")


def _generated_empty(tree):
    shutil.rmtree(tree / GENERATED)
    (tree / GENERATED).mkdir()


def _header_only(tree):
    frame = pd.read_csv(tree / META)
    frame.iloc[:0].to_csv(tree / META, index=False)


DEFECTS = [
    # A meta row's video_idx is not a non-negative integer: that row's error (naming the
    # CSV, the row as a spreadsheet numbers it and the value); rows 1 and 2 are scored.
    D("text_video_idx", _add_rows("abc"), (_key("abc"),),
      fragments=(META, "non-negative integer video_idx on row 4", "found 'abc'")),
    D("path_video_idx", _add_rows("../../x"), (_key("../../x"),),
      fragments=(META, "row 4", "found '../../x'")),
    D("negative_video_idx", _add_rows("-3"), (_key("-3"),),
      fragments=(META, "row 4", "found '-3'")),
    # Two empty cells: each its own error, not "repeated: nan".
    D("missing_video_idx", _add_rows(None, None), (_key("(row 4)"), _key("(row 5)")),
      fragments=(META, "a video_idx on row", "the value is missing")),
    # A folder the user named that is not usable: refused, never the rows' video_path.
    D("generated_dir_missing", lambda tree: shutil.rmtree(tree / GENERATED), exit_code=2,
      fragments=(GENERATED, "--generated_dir", "found no such folder")),
    D("generated_dir_is_a_file", _generated_is_a_file, exit_code=2,
      fragments=(GENERATED, "--generated_dir", "found a file")),
    D("generated_dir_empty", _generated_empty, exit_code=2,
      fragments=(GENERATED, "--generated_dir", "found an empty folder")),
    # Nothing to evaluate.
    D("header_only_meta", _header_only, exit_code=2,
      fragments=(META, "at least one video row", "a header and no rows")),
    # Resume keyed on inputs: a changed video is recomputed, and only it.
    D("resume_changed_video", lambda tree: mirabench_clips.fixture_io.write_mp4(
        tree / GENERATED / "2.mp4", mirabench_clips.parallax_clip(15, 7, 72, 128),
        mirabench_clips.FPS), (_key("2"),), resume=True),
] + bad_inputs.computed_value_defects(  # the runner's own mean error of video 2
    _key("2"), METRICS[0], metric_specs.BY_ID[METRICS[0]].official_range)


@pytest.fixture(scope="module")
def harness(tmp_path_factory):
    suite = bad_inputs.Suite(build_clean=_build, invoke=_invoke, defects=DEFECTS)
    return bad_inputs.Harness(suite, tmp_path_factory.mktemp("bad_inputs"))


@pytest.mark.parametrize("name", [d.name for d in DEFECTS if not d.resume])
def test_defect(harness, name):
    harness.check(harness.defect(name))


def test_resume_recomputes_exactly_the_changed_video(harness):
    harness.check(harness.defect("resume_changed_video"))


@pytest.mark.parametrize("name", ["text_video_idx", "path_video_idx", "missing_video_idx"])
def test_the_official_files_are_written_with_the_bad_rows_empty(harness, name):
    """The official average_score.csv is the other rows' mean (the pandas mean over a
    video_id column holding text raised TypeError: no scorecard, no file)."""
    harness.check(harness.defect(name))
    out = harness.workdir / name / "out"
    clean = json.loads((harness.workdir / "clean" / "out" / "average_score.csv").read_text())
    assert json.loads((out / "average_score.csv").read_text()) == clean
    rows = (out / "video_score.csv").read_text().splitlines()
    assert len(rows) == 1 + 2 + (2 if name == "missing_video_idx" else 1)  # one per meta row
    assert all(r.endswith(",,") for r in rows[3:]), rows  # the bad rows: empty cells


def test_a_gt_dir_named_and_unusable_is_refused_too(harness, tmp_path):
    tree = harness.clean_tree
    config = runner.MiraBenchConfig(
        common=CommonConfig(metrics=METRICS, offline=True), meta_csv=tree / META,
        generated_dir=tree / GENERATED, gt_meta_csv=tree / META, gt_dir=tree / "no_gt",
        output_dir=tmp_path / "out", model_name="m")
    with pytest.raises(InputError, match=r"no_gt: expected .*\(--gt_dir;.*no such folder"):
        runner.run(config)
    assert not (tmp_path / "out" / "scorecard.json").exists()


def test_without_generated_dir_the_rows_video_path_is_read(harness, tmp_path):
    """--generated_dir left out: each row's video_path, as calculate_score.py extracts it."""
    tree = harness.clean_tree
    config = runner.MiraBenchConfig(
        common=CommonConfig(metrics=METRICS, offline=True), meta_csv=tree / META,
        generated_dir=None, output_dir=tmp_path / "out", model_name="m")
    card = runner.run(config)
    assert card.coverage.evaluated == 2 and card.coverage.failed == 0
    samples = bad_inputs.read_samples(tmp_path / "out")
    for key, clean in harness.clean.items():
        assert samples[key]["metrics"] == clean["metrics"], key


def test_the_harness_can_fail(harness):
    """A defect whose expectation is wrong is caught (the suite is not vacuous)."""
    wrong = D("wrong_expectation", _add_rows("abc"), (_key("1"),), fragments=("abc",))
    with pytest.raises(AssertionError):
        harness.check(wrong)


# The importer on video_score.csv and average_score.csv as calculate_score.py writes them
# (a pandas frame, to_csv; DataFrame.mean(), json.dump), video 2's
# temporal_dino_consistency replaced by each of the shared value cases. pandas writes a
# NaN as an empty cell, the official code's "no value".
DINO = "temporal_dino_consistency"
ROWS = ((1, [0.91, 3.5]), (2, [0.95, 2.0]), (3, [0.90, 2.5]))


def _official_files(folder: pathlib.Path, value) -> None:
    frame = pd.DataFrame(columns=["video_id", DINO, "dynamic_degree"])
    for idx, values in ROWS:
        frame.loc[len(frame.index)] = [idx] + ([value] + values[1:]
                                               if idx == 2 and value is not None else values)
    frame.to_csv(folder / "video_score.csv", index=False)
    means = frame.mean().to_dict()
    means.pop("video_id")
    (folder / "average_score.csv").write_text(json.dumps(means, indent=4))


def _imported(folder: pathlib.Path):
    imported = importer.import_files(folder / "average_score.csv",
                                     folder / "video_score.csv", "m")
    return imported.card, imported.samples


IMPORT = bad_import_values.ImportSuite(
    write=_official_files, load=_imported, metric=DINO, sample=_key("2"),
    bounds=metric_specs.BY_ID[DINO].official_range, empty_nan=True)


import_harness, test_import_value = bad_import_values.pytest_tests(IMPORT)
