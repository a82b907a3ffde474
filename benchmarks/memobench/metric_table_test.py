"""MemoBench's metric table is the one list: every other list is checked against it.

The official output columns (eval CSV, ors_scores.csv, VQA dimensions, leaderboard
columns), the gate's steps, the VQA step's ids, the runner's step routing and the
backends the code builds must agree with benchmarks/memobench/metric_specs.py; each test
fails, naming the difference, when one side changes alone. (The runtime profile is
checked against the same table by runtime_profile_test.)
"""

import pytest

from benchmarks.memobench import eval_csv
from benchmarks.memobench import leaderboard
from benchmarks.memobench import metric_specs
from benchmarks.memobench import verification
from benchmarks.memobench.ors import ors_csv
from benchmarks.memobench.ors import step as ors_step
from benchmarks.memobench.step1 import image_reward
from benchmarks.memobench.step1 import pixel
from benchmarks.memobench.step1 import prepare
from benchmarks.memobench.vqa import official
from benchmarks.memobench.vqa import step as vqa_step
from metrics.judges import gemini
from metrics.judges import openai_compat

TABLE = metric_specs.TABLE


def test_fourteen_leaderboard_metrics_in_the_official_order():
    assert [s.id for s in TABLE.leaderboard] == [
        "VisualQuality", "MotionSmoothness", "ObjIdentityConsistency", "Geo3DConsistency",
        "CameraControllability", "ImageRewardScore", "ORS", "GT_ALL_PSNR", "GT_ALL_SSIM",
        "GT_ALL_LPIPS", "InstructionFollowing", "ObjectBackground", "ContinuityOfMemory",
        "PhysicsAdherence"]


@pytest.mark.parametrize("metric_id", TABLE.of_step(metric_specs.STEP1))
def test_step1_official_columns_are_eval_csv_columns(metric_id):
    spec = TABLE.by_id[metric_id]
    assert spec.official_column in eval_csv.COLUMNS
    assert eval_csv.COMPOSITE_COLUMNS.get(metric_id, metric_id) == spec.official_column
    if spec.leaderboard:  # leaderboard.py averages that same column
        assert leaderboard.eval_column(metric_id, eval_csv.COLUMNS) == spec.official_column
    assert metric_specs.EVAL_CSV in spec.output_files


def test_ors_and_vqa_columns():
    assert TABLE.by_id["ORS"].official_column in ors_csv.COLUMNS
    assert ors_step.METRIC_ID == "ORS"
    assert {TABLE.by_id[m].official_column: m for m in TABLE.of_step(metric_specs.VQA)} == (
        official.DIMENSION_METRICS)
    assert vqa_step.METRIC_IDS == TABLE.of_step(metric_specs.VQA)


def test_gate_steps_are_the_tables_leaderboard_metrics_by_step():
    for step, gate in ((metric_specs.STEP1, verification.STEP1),
                       (metric_specs.ORS, verification.ORS),
                       (metric_specs.VQA, verification.VQA)):
        assert tuple(gate.metric_ids) == TABLE.of_step(step, leaderboard_only=True)
    gated = {m for s in verification.STEPS for m in s.metric_ids}
    assert gated == {s.id for s in TABLE.leaderboard}


def test_pixel_family_ids_are_the_tables():
    assert set(pixel.PSNR_SSIM_IDS + pixel.LPIPS_IDS) == set(TABLE.of_family("pixel_fidelity"))


@pytest.mark.parametrize("metric_ids, backend", [
    (pixel.PSNR_SSIM_IDS, prepare.PIXEL_BACKEND),
    (pixel.LPIPS_IDS, prepare.LPIPS_BACKEND),
    (("MotionSmoothness",), prepare.RAFT_BACKEND),
    (("MotionSmoothness",), prepare.DIS_BACKEND),
    (("CameraControllability",), prepare.MAPANYTHING_BACKEND),
    (("CameraControllability",), prepare.CLASSICAL_CAMERA_BACKEND),
    (("ImageRewardScore",), image_reward.backend()),
    (("ORS",), ors_step.BACKEND),
])
def test_backends_the_code_builds_are_declared_official_first(metric_ids, backend):
    for metric_id in metric_ids:
        declared = TABLE.by_id[metric_id].backends
        assert backend.name in declared, (metric_id, backend.name, declared)
        assert backend.official == (backend.name == declared[0]), (metric_id, backend.name)


def test_judges_are_declared():
    for metric_id in TABLE.of_step(metric_specs.VQA):
        assert TABLE.by_id[metric_id].backends == (gemini.NAME, openai_compat.NAME)


def test_every_metric_has_a_step_family_backend_and_file():
    for spec in TABLE.specs:
        assert spec.step in (metric_specs.STEP1, metric_specs.ORS, metric_specs.VQA), spec.id
        assert spec.family and spec.backends and spec.output_files, spec.id
        assert (metric_specs.LEADERBOARD_CSV in spec.output_files) == spec.leaderboard
