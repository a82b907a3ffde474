"""Selecting metrics through a table: unknown ids list the valid ones with a guess."""

import pytest

from benchmarks.common.errors import InputError
from benchmarks.common.metric_table import MetricGroup
from benchmarks.common.metric_table import MetricTable
from benchmarks.common.scorecard import MetricSpec

TABLE = MetricTable("Bench", [MetricSpec("GT_ALL_PSNR", "", "dB", True, step="a"),
                              MetricSpec("GT_ALL_SSIM", "", "0-1", True, True, step="a"),
                              MetricSpec("ORS", "", "0-100", True, True, step="b")])


def test_no_selection_is_every_metric_in_table_order():
    assert TABLE.select(None) == ["GT_ALL_PSNR", "GT_ALL_SSIM", "ORS"]
    assert TABLE.select(["ORS", "GT_ALL_PSNR"]) == ["ORS", "GT_ALL_PSNR"]


def test_unknown_ids_say_did_you_mean_and_list_the_valid_ones():
    with pytest.raises(InputError) as raised:
        TABLE.select(["GT_ALL_PNSR", "ors", "Nonsense"])
    message = str(raised.value)
    assert message.startswith("--metrics: expected Bench metric ids: GT_ALL_PSNR, GT_ALL_SSIM, ORS")
    assert "GT_ALL_PNSR (did you mean GT_ALL_PSNR?)" in message
    assert "ors (did you mean ORS?)" in message
    assert message.endswith(", Nonsense")


def test_steps_and_duplicates():
    assert TABLE.of_step("a") == ("GT_ALL_PSNR", "GT_ALL_SSIM")
    assert TABLE.of_step("a", leaderboard_only=True) == ("GT_ALL_SSIM",)
    with pytest.raises(ValueError):
        MetricTable("Bench", [MetricSpec("X", "", "", True), MetricSpec("X", "", "", True)])


def test_groups_name_known_metrics_one_per_column():
    specs = list(TABLE.specs)
    ok = MetricGroup("g", "G", ("all", "b"), (("score", ("GT_ALL_PSNR", "ORS")),))
    assert MetricTable("Bench", specs, groups=(ok,)).groups[0].metric_ids == (
        "GT_ALL_PSNR", "ORS")
    for bad in (MetricGroup("g", "G", ("all",), (("score", ("GT_ALL_PSNR", "ORS")),)),
                MetricGroup("g", "G", ("all",), (("score", ("NOPE",)),))):
        with pytest.raises(ValueError, match="group g"):
            MetricTable("Bench", specs, groups=(bad,))
