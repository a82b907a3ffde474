"""Selecting metrics through a table: unknown ids list the valid ones with a guess."""

import pytest

from benchmarks.common.errors import InputError
from benchmarks.common.metric_table import TABLE_ORDER
from benchmarks.common.metric_table import MetricGroup
from benchmarks.common.metric_table import MetricTable
from benchmarks.common.metric_table import ValueChecks
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


def test_aliases_selectable_ids_and_order():
    table = MetricTable("Bench", TABLE.specs, selectable=("GT_ALL_PSNR", "GT_ALL_SSIM"),
                        aliases={"pixel": ("GT_ALL_SSIM", "GT_ALL_PSNR"),
                                 "psnr": ("GT_ALL_PSNR",)}, order=TABLE_ORDER)
    assert table.select(None) == ["GT_ALL_PSNR", "GT_ALL_SSIM"]
    assert table.select(["PSNR"]) == ["GT_ALL_PSNR"]  # aliases ignore case
    assert table.select(["pixel", "psnr"]) == ["GT_ALL_PSNR", "GT_ALL_SSIM"]  # table order
    given = MetricTable("Bench", TABLE.specs, aliases={"pixel": ("GT_ALL_SSIM", "GT_ALL_PSNR")})
    assert given.select(["ORS", "pixel", "GT_ALL_PSNR"]) == ["ORS", "GT_ALL_SSIM",
                                                             "GT_ALL_PSNR"]
    with pytest.raises(InputError) as raised:  # ORS is in the table but not selectable
        table.select(["ORS", "pixl"])
    message = str(raised.value)
    assert "GT_ALL_PSNR, GT_ALL_SSIM (or pixel, psnr)" in message
    assert "ORS" in message and "pixl (did you mean pixel?)" in message


def test_aliases_must_name_selectable_ids():
    for kwargs in ({"aliases": {"x": ("NOPE",)}},
                   {"selectable": ("GT_ALL_PSNR",), "aliases": {"x": ("ORS",)}},
                   {"order": "alphabetical"}):
        with pytest.raises(ValueError):
            MetricTable("Bench", TABLE.specs, **kwargs)


RANGED = MetricTable("Bench", [
    MetricSpec("SSIM", "", "0-1", True, official_range=(-1.0, 1.0)),
    MetricSpec("PSNR", "", "dB", True, official_range=(0.0, None)),
    MetricSpec("TCS", "", "0-1", True, official_range=(None, 1.0), nominal_range=(0.0, 1.0)),
    MetricSpec("FREE", "", "raw", True)])


@pytest.mark.parametrize("metric, value, scale, expected", [
    ("SSIM", float("nan"), 1, "SSIM nan is not a finite number"),
    ("PSNR", float("inf"), 1, "PSNR inf is not a finite number"),
    ("FREE", float("-inf"), 1, "FREE -inf is not a finite number"),
    ("FREE", "7", 1, "FREE '7' is not a number"),
    ("FREE", True, 1, "FREE True is not a number"),
    ("SSIM", 7.5, 1, "SSIM 7.5 is outside its official range [-1, 1]"),
    ("PSNR", -40, 1, "PSNR -40 is outside its official range [0, inf)"),
    ("TCS", 1.5, 1, "TCS 1.5 is outside its official range [-inf, 1]"),
    ("SSIM", 150.0, 100, "SSIM 150.0 is outside its official range [-100, 100]"),
])
def test_non_finite_and_out_of_range_values_are_refused_naming_value_and_range(
        metric, value, scale, expected):
    assert RANGED.check_official_value(metric, value, scale) == expected


@pytest.mark.parametrize("metric, value, scale", [
    ("SSIM", -1.0, 1), ("SSIM", 1.0000001, 1), ("SSIM", 0, 1), ("PSNR", 1e6, 1),
    ("TCS", -3.0, 1), ("FREE", -1e300, 1), ("SSIM", 99.5, 100)])
def test_values_inside_the_range_pass(metric, value, scale):
    assert RANGED.check_official_value(metric, value, scale) is None


def test_value_checks_record_refusals_and_nominal_warnings_for_the_notes():
    checks = ValueChecks(RANGED, limit=2)
    assert checks.check("a.csv row 2", "TCS", 0.5) is None
    assert checks.check("a.csv row 3", "TCS", -0.5) is None  # kept, with a warning
    assert checks.warning("a.csv row 3", "TCS", -0.5) == (
        "a.csv row 3: TCS -0.5 is outside its nominal range [0, 1] (kept: the official "
        "arithmetic can give it)")
    for row in (4, 5, 6):
        assert checks.check(f"a.csv row {row}", "SSIM", 7.5) == (
            f"a.csv row {row}: SSIM 7.5 is outside its official range [-1, 1]")
    rejected, warned = checks.notes()
    assert rejected.startswith("3 imported values are not finite or outside")
    assert rejected.endswith("a.csv row 4 SSIM=7.5; a.csv row 5 SSIM=7.5; and 1 more")
    assert warned.startswith("1 imported values are outside their metric's nominal range")
    assert "a.csv row 3 TCS=-0.5" in warned
    assert ValueChecks(RANGED).notes() == []
