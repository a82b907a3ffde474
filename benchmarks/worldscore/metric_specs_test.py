"""WorldScore's metric table: worldscore.json's columns, the evaluator's metric names."""

from benchmarks.worldscore import aspects
from benchmarks.worldscore import metric_specs
from tools.catalog import catalog_lib


def test_leaderboard_is_worldscore_json():
    assert [s.id for s in metric_specs.TABLE.leaderboard] == list(
        aspects.STATIC_ASPECTS + aspects.DYNAMIC_ASPECTS
        + (aspects.HEADLINE_STATIC, aspects.HEADLINE_DYNAMIC))
    assert metric_specs.BY_ID["3d_consistency"].display_name == "3D Consistency"


def test_catalog_metrics_are_the_evaluators_metric_names():
    entry = catalog_lib.get_entry("worldscore", catalog_lib.load_catalog())
    assert list(entry.metrics) == [s.official_column for s in metric_specs.METRIC_SPECS]


def test_raw_ids_name_the_components():
    cam = aspects.METRICS[("camera_control", "camera_error")]
    assert metric_specs.raw_ids(cam) == (
        "raw:camera_control.camera_error:rotation_error_deg",
        "raw:camera_control.camera_error:translation_error")
    ms = aspects.METRICS[("motion_smoothness", "motion_smoothness")]
    assert metric_specs.raw_ids(ms)[2] == "raw:motion_smoothness.motion_smoothness:lpips"
