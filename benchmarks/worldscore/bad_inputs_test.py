"""WorldScore in the engine's shared bad-inputs suite (benchmarks/common/bad_inputs.py).

The clean tree is the bundled sample's (tools/fixtures/worldscore_sample.py: two static
instances and one dynamic, with their WorldScore-Dataset entries), run offline with no
checkpoints (every model metric unavailable: the suite is about what reaches the
instances, not the numbers). A --generated_root that is missing, a file, empty or holds
no instance folder is refused (exit 2) before any work, naming the flag and the path,
as MemoBench and VMBench refuse theirs; a broken instance is its own error row.
"""

import json
import pathlib
import shutil

import pytest

from benchmarks.common import bad_import_values
from benchmarks.common import bad_inputs
from benchmarks.common.errors import InputError
from benchmarks.common.flags import CommonConfig
from benchmarks.worldscore import importer
from benchmarks.worldscore import metric_specs
from benchmarks.worldscore import runner
from tools.fixtures import worldscore_calibration_tree as calibration_tree
from tools.fixtures import worldscore_sample

GENERATED = "worldscore_output"
K01 = ("static", "static/photorealistic/indoor/kitchen/k01")
DETECTION = metric_specs.metric_id("object_control", "object_detection")
D = bad_inputs.Defect


def _invoke(tree: pathlib.Path, out: pathlib.Path, resume: bool) -> bad_inputs.Run:
    config = runner.WorldScoreConfig(
        common=CommonConfig(device="cpu", offline=True, resume=resume,
                            checkpoint_dir=str(tree / "no_checkpoints")),
        generated_root=tree / GENERATED, data_root=tree / "data", output_dir=out,
        model_name="fixture", gram_resize="128")
    try:
        card = runner.run(config)
    except InputError as e:  # what app_main turns into exit 2
        return bad_inputs.Run(2, f"error: {e}")
    return bad_inputs.Run(1 if card.coverage.internal_error_sample_ids else 0)


def _root_is_a_file(tree):
    shutil.rmtree(tree / GENERATED)
    (tree / GENERATED).write_text("not a folder")


def _root_empty(tree):
    shutil.rmtree(tree / GENERATED)
    (tree / GENERATED).mkdir()


def _root_without_instances(tree):
    """static/ and dynamic/ there, but nothing at the instance depth."""
    shutil.rmtree(tree / GENERATED)
    for movement in ("static", "dynamic"):
        (tree / GENERATED / movement / "photorealistic").mkdir(parents=True)


DEFECTS = [
    D("generated_root_missing", lambda tree: shutil.rmtree(tree / GENERATED), exit_code=2,
      fragments=(GENERATED, "--generated_root", "found no such folder")),
    D("generated_root_is_a_file", _root_is_a_file, exit_code=2,
      fragments=(GENERATED, "--generated_root", "found a file")),
    D("generated_root_empty", _root_empty, exit_code=2,
      fragments=(GENERATED, "--generated_root", "found an empty folder")),
    D("generated_root_without_instances", _root_without_instances, exit_code=2,
      fragments=(GENERATED, "--generated_root", "no instance folder under static/ or "
                 "dynamic/", "it holds dynamic, static")),
    # Already handled: one broken instance is its error row, the others are evaluated.
    D("instance_without_image_data",
      lambda tree: (tree / GENERATED / K01[1] / "image_data.json").unlink(), (K01,),
      fragments=("k01/image_data.json", "no such file")),
] + bad_inputs.computed_value_defects(  # the runner's own object detection of k01
    K01, DETECTION, metric_specs.BY_ID[DETECTION].official_range)


@pytest.fixture(scope="module")
def harness(tmp_path_factory):
    suite = bad_inputs.Suite(build_clean=worldscore_sample.write_sample, invoke=_invoke,
                             defects=DEFECTS)
    return bad_inputs.Harness(suite, tmp_path_factory.mktemp("bad_inputs"))


@pytest.mark.parametrize("name", [d.name for d in DEFECTS])
def test_defect(harness, name):
    harness.check(harness.defect(name))


def test_one_movement_asked_needs_an_instance_of_it(harness, tmp_path):
    """--visual_movement=dynamic on a tree with static instances only: nothing to
    evaluate, refused naming the movement looked for."""
    tree = tmp_path / "tree"
    shutil.copytree(harness.clean_tree, tree)
    shutil.rmtree(tree / GENERATED / "dynamic")
    config = runner.WorldScoreConfig(
        common=CommonConfig(device="cpu", offline=True, checkpoint_dir=str(tmp_path / "no")),
        generated_root=tree / GENERATED, data_root=tree / "data", output_dir=tmp_path / "out",
        model_name="fixture", movements=("dynamic",))
    with pytest.raises(InputError, match=r"no instance folder under dynamic/ \(it holds "
                                         r"static\)"):
        runner.run(config)


def test_the_harness_can_fail(harness):
    """A defect whose expectation is wrong is caught (the suite is not vacuous)."""
    wrong = D("wrong_expectation", lambda tree: shutil.rmtree(tree / GENERATED),
              exit_code=2, fragments=("--data_root",))
    with pytest.raises(AssertionError):
        harness.check(wrong)


# The importer on a worldscore_output tree of official evaluation.json files
# (tools/fixtures/worldscore_calibration_tree.py), s02's stored object_detection
# score_normalized (pooled as stored: data_exists rejects s02) replaced by each of the
# shared value cases, json.dump'ed as the official code dumps it (NaN, Infinity bare).
S02 = ("static", "static/stylized/outdoor/forest/s02")


def _official_tree(folder: pathlib.Path, value) -> None:
    root = calibration_tree.write(folder / GENERATED)
    if value is not None:
        path = root / S02[1] / "evaluation.json"
        data = json.loads(path.read_text())
        data["object_control"]["object_detection"]["score_normalized"] = value
        path.write_text(json.dumps(data, indent=4))


def _imported(folder: pathlib.Path):
    imported = importer.from_tree(folder / GENERATED, calibration_tree.VIDEO_MODEL, False)
    return imported.card, imported.samples


IMPORT = bad_import_values.ImportSuite(
    write=_official_tree, load=_imported, metric=DETECTION, sample=S02,
    bounds=metric_specs.BY_ID[DETECTION].official_range)


import_harness, test_import_value = bad_import_values.pytest_tests(IMPORT)
