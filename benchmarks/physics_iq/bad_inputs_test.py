"""Physics-IQ in the engine's shared bad-inputs suite (benchmarks/common/bad_inputs.py).

The clean tree is the synthetic one (tools/fixtures/physics_iq_tree.py, model `follows`:
3 scenarios x 3 views). A generated file that is not a 5 s video of the run's fps is a
problem of the layout (generated_folder.py), reported per file as upstream's checks would
stop: the view is not scored (absent from the rows, missing in coverage with the reason),
the others are as in the clean run. A real take that cannot be decoded is that view's
error naming the file. A missing real take or an unreadable descriptions file refuses the
run (exit 2) naming every file. A resume recomputes exactly the view whose video changed;
a moved tree recomputes nothing; a computed value outside [0, 1] is a worldeval bug.
"""

import json
import pathlib
import shutil

import numpy as np
import pytest

from benchmarks.common import bad_inputs
from benchmarks.common import engine
from benchmarks.common.errors import InputError
from benchmarks.common.flags import CommonConfig
from benchmarks.physics_iq import metric_specs
from benchmarks.physics_iq import runner
from tools.fixtures import physics_iq_tree

MODEL = "follows"
D = bad_inputs.Defect
NAME = "0005_perspective-center_trimmed-block-slides.mp4"  # upstream's name of view 0005
KEY = ("generated", NAME)


def _generated(tree: pathlib.Path) -> pathlib.Path:
    return sorted((tree / "generated" / MODEL).glob("0005_*.mp4"))[0]


def _real(tree: pathlib.Path, take_id: str) -> pathlib.Path:
    testing = tree / "physics-IQ-benchmark" / "split-videos" / "testing" / "30FPS"
    return sorted(testing.glob(f"{take_id}_*.mp4"))[0]


def _build(tree: pathlib.Path) -> None:
    physics_iq_tree.write_tree(tree, physics_iq_tree.TreeSpec(models=(MODEL,)))


def _invoke(tree: pathlib.Path, out: pathlib.Path, resume: bool) -> bad_inputs.Run:
    config = runner.PhysicsIQConfig(
        common=CommonConfig(device="cpu", resume=resume),
        real_dir=tree / "physics-IQ-benchmark", generated_dir=tree / "generated" / MODEL,
        descriptions=tree / "descriptions.csv", output_dir=out, model_name=MODEL)
    try:
        card = runner.run(config)
    except InputError as e:  # what app_main turns into exit 2
        return bad_inputs.Run(2, f"error: {e}")
    recomputed = engine.recomputed_keys(card.notes)
    return bad_inputs.Run(1 if card.coverage.internal_error_sample_ids else 0, "",
                          recomputed)


def _write(data: bytes):
    return lambda tree: _generated(tree).write_bytes(data)


def _truncate_real(tree):
    path = _real(tree, "0005")
    path.write_bytes(path.read_bytes()[:600])


def _short_video(tree):
    """A generated video of 4 s: upstream's duration check stops there."""
    physics_iq_tree.write_video(_generated(tree),
                                np.zeros((120, 96, 128, 3), np.uint8), 30)


def _other_video(tree):
    frames = np.full((150, 96, 128, 3), 90, np.uint8)
    frames[:, 20:40, 30:60] = 200
    physics_iq_tree.write_video(_generated(tree), frames, 30)


DEFECTS = [
    # A generated file that is not a usable 5 s video: that view is not scored, the run
    # goes on (upstream stops the whole run at its checks).
    D("not_a_video", _write(b"this is text, not an mp4"), (), absent=(KEY,)),
    D("zero_length_video", _write(b""), (), absent=(KEY,)),
    D("short_video", _short_video, (), absent=(KEY,)),
    # A real take that cannot be decoded: the view's error, naming the file.
    D("truncated_real_take", _truncate_real, (KEY,), fragments=("0005_testing-videos",)),
    # A missing real take or descriptions file: refused before any work, naming it.
    D("missing_real_take", lambda tree: _real(tree, "0203").unlink(), exit_code=2,
      fragments=("0203_testing-videos_30FPS_perspective-center_take-2_trimmed-block-slides",)),
    D("descriptions_missing", lambda tree: (tree / "descriptions.csv").unlink(),
      exit_code=2, fragments=("descriptions.csv",)),
    D("resume_changed_video", _other_video, (KEY,), resume=True),
    D("resume_moved_tree", lambda tree: None, (), resume=True, moved=True),
]
# The runner's own value of a view made impossible (NaN, above 1) through the engine's
# screen: the view is an internal error, and its scenario leaves the CSV (the harness's
# generic check counts per-sample means; the score here is the CSV's, so it is checked
# below instead).
COMPUTED = bad_inputs.computed_value_defects(
    KEY, "spatial_iou", metric_specs.BY_ID["spatial_iou"].official_range)


@pytest.fixture(scope="module")
def harness(tmp_path_factory):
    suite = bad_inputs.Suite(build_clean=_build, invoke=_invoke, defects=DEFECTS)
    return bad_inputs.Harness(suite, tmp_path_factory.mktemp("bad_inputs"))


def test_the_clean_run_scores_the_nine_views(harness):
    assert len(harness.clean) == 9 and KEY in harness.clean


@pytest.mark.parametrize("name", [d.name for d in DEFECTS])
def test_defect(harness, name):
    harness.check(harness.defect(name))


def test_an_unusable_generated_video_is_named_in_coverage_with_its_reason(harness):
    harness.check(harness.defect("short_video"))
    card = json.loads((harness.workdir / "short_video" / "out" / "scorecard.json").read_text())
    score = next(m for m in card["metrics"] if m["id"] == "physics_iq_score")
    key = f"generated/{NAME}"
    assert key in score["missing_sample_ids"]
    assert "no generated video" in score["missing_reasons"][key]
    assert score["sample_count"] == 6  # the scenario of the view leaves the CSV


@pytest.mark.parametrize("defect", COMPUTED, ids=[d.name for d in COMPUTED])
def test_an_impossible_value_of_ours_is_an_internal_error_out_of_the_csv(
        harness, defect, tmp_path):
    with defect.hook():
        run = _invoke(harness.clean_tree, tmp_path / "out", False)
    assert run.exit_code == 1
    card = json.loads((tmp_path / "out" / "scorecard.json").read_text())
    assert card["coverage"]["internal_error_sample_ids"] == [f"generated/{NAME}"]
    row = bad_inputs.read_samples(tmp_path / "out")[KEY]
    assert all(f in row["unavailable"]["spatial_iou"] for f in defect.fragments)
    score = next(m for m in card["metrics"] if m["id"] == "physics_iq_score")
    assert score["sample_count"] == 6  # the view's scenario is out of the CSV
    csv = (tmp_path / "out" / "results" / f"{MODEL}.csv").read_text()
    assert "block-slides" not in csv


def test_the_harness_can_fail(harness):
    wrong = D("wrong_expectation", _write(b"text"), (KEY,), fragments=(NAME,))
    with pytest.raises(AssertionError):
        harness.check(wrong)
    shutil.rmtree(harness.workdir / "wrong_expectation")
