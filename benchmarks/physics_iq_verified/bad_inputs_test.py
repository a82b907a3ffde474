"""Physics-IQ Verified in the engine's shared bad-inputs suite
(benchmarks/common/bad_inputs.py), on the synthetic tree with two runs (the tree's
`follows` and `freezes` folders). The per-view computation and the layout are the original
track's (benchmarks/physics_iq/bad_inputs_test.py covers them view by view); here: a
broken video of one run leaves that run's view unscored and the other run untouched, a
missing real take refuses the run naming the file, a resume recomputes exactly the changed
view of the changed run, a moved tree nothing.
"""

import pathlib

import numpy as np
import pytest

from benchmarks.common import bad_inputs
from benchmarks.common import engine
from benchmarks.common.errors import InputError
from benchmarks.common.flags import CommonConfig
from benchmarks.physics_iq_verified import runner
from tools.fixtures import physics_iq_tree

RUNS = ("follows", "freezes")
D = bad_inputs.Defect
NAME = "0005_perspective-center_trimmed-block-slides.mp4"
KEY = ("freezes", NAME)


def _generated(tree: pathlib.Path) -> pathlib.Path:
    return sorted((tree / "generated" / "freezes").glob("0005_*.mp4"))[0]


def _build(tree: pathlib.Path) -> None:
    physics_iq_tree.write_tree(tree, physics_iq_tree.TreeSpec(models=RUNS))


def _invoke(tree: pathlib.Path, out: pathlib.Path, resume: bool) -> bad_inputs.Run:
    config = runner.VerifiedConfig(
        common=CommonConfig(device="cpu", resume=resume),
        real_dir=tree / "physics-IQ-benchmark",
        generated_dirs=tuple(tree / "generated" / r for r in RUNS),
        descriptions=tree / "descriptions.csv", output_dir=out, model_name="m")
    try:
        card = runner.run(config)
    except InputError as e:
        return bad_inputs.Run(2, f"error: {e}")
    recomputed = engine.recomputed_keys(card.notes)
    return bad_inputs.Run(1 if card.coverage.internal_error_sample_ids else 0, "",
                          recomputed)


def _missing_take(tree):
    testing = tree / "physics-IQ-benchmark" / "split-videos" / "testing" / "30FPS"
    sorted(testing.glob("0201_*.mp4"))[0].unlink()


def _other_video(tree):
    frames = np.full((150, 96, 128, 3), 90, np.uint8)
    frames[:, 20:40, 30:60] = 200
    physics_iq_tree.write_video(_generated(tree), frames, 30)


DEFECTS = [
    D("not_a_video", lambda tree: _generated(tree).write_bytes(b"text"), (), absent=(KEY,)),
    D("missing_real_take", _missing_take, exit_code=2, fragments=("0201_testing-videos",)),
    D("resume_changed_video", _other_video, (KEY,), resume=True),
    D("resume_moved_tree", lambda tree: None, (), resume=True, moved=True),
]


@pytest.fixture(scope="module")
def harness(tmp_path_factory):
    suite = bad_inputs.Suite(build_clean=_build, invoke=_invoke, defects=DEFECTS)
    return bad_inputs.Harness(suite, tmp_path_factory.mktemp("bad_inputs"))


def test_the_clean_run_scores_both_runs(harness):
    assert len(harness.clean) == 18 and KEY in harness.clean and ("follows", NAME) in harness.clean


@pytest.mark.parametrize("name", [d.name for d in DEFECTS])
def test_defect(harness, name):
    harness.check(harness.defect(name))
