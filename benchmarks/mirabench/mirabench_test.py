"""MiraBench runner end to end on tiny synthetic clips: official output shapes, coverage,
bad input (missing video, NaN caption, missing caption column), the metric table."""

import json

import numpy as np
import pandas as pd
import pytest

from benchmarks.common.errors import InputError
from benchmarks.common.flags import CommonConfig
from benchmarks.mirabench import families
from benchmarks.mirabench import metric_specs
from benchmarks.mirabench import official_files
from benchmarks.mirabench import runner
from tools.fixtures import mirabench_clips

METRICS = ("3D_consistency_mean_err", "dynamic_degree", "3D_consistency_num_pts",
           "style_alignment", "fid&kid")


@pytest.fixture(scope="module")
def inputs(tmp_path_factory):
    root = tmp_path_factory.mktemp("mira")
    gen = {1: mirabench_clips.parallax_clip(15, 0, 72, 128),
           2: mirabench_clips.static_clip(12, 5, 72, 128)}
    meta = mirabench_clips.write_set(root, gen, "generated", "meta_generated.csv")
    frame = pd.read_csv(meta)
    frame.loc[len(frame.index)] = [3, "generated/3.mp4"] + ["x"] * 6   # no such video
    frame.loc[1, "style_caption"] = np.nan
    frame.to_csv(meta, index=False)
    return root


def _run(inputs, out, metrics=METRICS, **kw):
    config = runner.MiraBenchConfig(
        common=CommonConfig(metrics=metrics, offline=True), meta_csv=inputs /
        "meta_generated.csv", generated_dir=inputs / "generated", output_dir=out,
        model_name="m", **kw)
    return runner.run(config)


@pytest.fixture(scope="module")
def card(inputs, tmp_path_factory):
    out = tmp_path_factory.mktemp("out")
    return _run(inputs, out, consistency_3d_repeats=2, consistency_3d_seed=4), out


def test_metric_table_has_the_17_and_the_4_extras():
    assert len(metric_specs.PAPER_17) == 17
    assert set(metric_specs.EXTRAS) == {"3D_consistency_num_pts",
                                        "3D_consistency_num_inliers_F",
                                        "3D_consistency_keep_ratio", "kvd"}
    lower = {s.id for s in metric_specs.TABLE.specs if not s.higher_is_better}
    assert lower == {"3D_consistency_mean_err", "3D_consistency_rmse", "fvd", "kvd", "fid",
                     "kid"}
    assert set(families.BY_METRIC) == set(metric_specs.PER_VIDEO_IDS)


def test_select_keeps_order_and_expands_pseudo_flags():
    assert metric_specs.TABLE.select(["fid&kid", "dynamic_degree"]) == ["fid", "kid",
                                                                  "dynamic_degree"]
    with pytest.raises(InputError, match="did you mean dynamic_degree"):
        metric_specs.TABLE.select(["dynamic_degre"])


def test_video_score_csv_is_the_official_shape(card):
    _, out = card
    text = (out / "video_score.csv").read_text()
    lines = text.splitlines()
    assert lines[0] == ("video_id,3D_consistency_mean_err,dynamic_degree,"
                        "3D_consistency_num_pts,style_alignment")
    # pandas (2.3.3) turns the official video_id column to floats as the official code
    # grows the frame row by row: a quirk of the official writer, kept.
    assert [l.split(",")[0] for l in lines[1:]] == ["1.0", "2.0", "3.0"]
    assert lines[3] == "3.0,,,,"                     # a missing video: all empty
    row1 = lines[1].split(",")
    assert float(row1[1]) < 1.0 and float(row1[3]) > 50 and row1[2] == "" and row1[4] == ""


def test_average_score_is_json_indent_4_means_skipping_none(card):
    _, out = card
    text = (out / "average_score.csv").read_text()
    values = json.loads(text)
    assert list(values) == ["3D_consistency_mean_err", "dynamic_degree",
                            "3D_consistency_num_pts", "style_alignment"]
    assert text.startswith('{\n    "3D_consistency_mean_err": ')
    frame = pd.read_csv(out / "video_score.csv")
    assert values["3D_consistency_num_pts"] == pytest.approx(
        frame["3D_consistency_num_pts"].mean())
    assert np.isnan(values["dynamic_degree"])      # json NaN, as pandas' mean of Nones


def test_scorecard_reasons_and_coverage(card):
    card, _ = card
    by_id = {m.id: m for m in card.metrics}
    assert by_id["3D_consistency_mean_err"].available
    assert "not reproducible run to run" in " ".join(card.notes)
    assert "raft-things.pth" in by_id["dynamic_degree"].unavailable_reason  # wired, no weights
    assert "fetch it with:" in by_id["dynamic_degree"].unavailable_reason
    assert "ViClip-InternVid-10M-FLT.pth" in by_id["style_alignment"].unavailable_reason
    assert "fetch it with:" in by_id["style_alignment"].unavailable_reason
    assert "GT set" in by_id["fid"].unavailable_reason
    assert card.coverage.missing_sample_ids == ["3"]
    assert not by_id["fvd"].available and "--metrics" in by_id["fvd"].unavailable_reason
    assert not any("composite" in m.id or m.id == "average" for m in card.metrics)


def test_repeats_report_the_seed_spread_and_keep_the_first_seed(card):
    card, out = card
    by_id = {m.id: m for m in card.metrics}
    assert "over seeds 4..5 the mean ranges" in by_id["3D_consistency_mean_err"].aggregation
    rows = [json.loads(l) for l in (out / "per_sample_scores.jsonl").read_text().splitlines()]
    one = next(r for r in rows if r["sample_id"] == "1")
    assert one["metrics"]["3D_consistency_mean_err"] == one["metrics"][
        "seed4:3D_consistency_mean_err"]
    assert "seed5:3D_consistency_mean_err" in one["metrics"]


def test_static_short_clip_has_no_pair_as_official_nan(card):
    _, out = card
    rows = [json.loads(l) for l in (out / "per_sample_scores.jsonl").read_text().splitlines()]
    two = next(r for r in rows if r["sample_id"] == "2")
    assert "no frame pair for 12 frames" in two["unavailable"]["3D_consistency_mean_err"]
    assert "style_caption is empty" in two["unavailable"]["style_alignment"]


def test_strict_fails_on_a_missing_video(inputs, tmp_path):
    with pytest.raises(InputError, match="video_idx=3"):
        _run(inputs, tmp_path, strict=True)


def test_meta_without_video_idx_is_bad_input(tmp_path):
    (tmp_path / "m.csv").write_text("video_path,short_caption\na.mp4,x\n")
    config = runner.MiraBenchConfig(common=CommonConfig(), meta_csv=tmp_path / "m.csv",
                                    generated_dir=None, output_dir=tmp_path / "o",
                                    model_name="m")
    with pytest.raises(InputError, match="video_idx"):
        runner.run(config)


def test_official_files_round_trip(tmp_path):
    frame = official_files.video_frame([("1", {"dynamic_degree": 2.5}), ("2", {})],
                                       ["dynamic_degree", "fid"])
    path = official_files.write_video_score(tmp_path, frame)
    assert path.read_text() == "video_id,dynamic_degree\n1.0,2.5\n2.0,\n"
    columns, rows = official_files.read_video_score(path)
    assert columns == ["dynamic_degree"] and rows[1] == {"video_id": "2",
                                                         "dynamic_degree": None}
    means = official_files.averages(frame, {"fid": 3.0})
    assert means == {"dynamic_degree": 2.5, "fid": 3.0}


def test_missing_caption_column_and_mixed_sizes(tmp_path):
    clips = {1: mirabench_clips.static_clip(2, 0, 72, 128),
             2: mirabench_clips.static_clip(3, 1, 48, 64)}
    for index, frames in clips.items():
        mirabench_clips.fixture_io.write_mp4(tmp_path / "g" / f"{index}.mp4", frames, 8)
    mirabench_clips.write_meta(tmp_path / "m.csv", {1: "g/1.mp4", 2: "g/2.mp4"},
                               drop=("style_caption", "video_path"))
    config = runner.MiraBenchConfig(
        common=CommonConfig(metrics=("style_alignment", "overall_consistency")),
        meta_csv=tmp_path / "m.csv", generated_dir=tmp_path / "g",
        output_dir=tmp_path / "o", model_name="m")
    card = runner.run(config)
    assert card.coverage.evaluated == 2 and card.coverage.failed == 0
    rows = [json.loads(l) for l in (tmp_path / "o" / "per_sample_scores.jsonl").read_text()
            .splitlines()]
    assert {r["diagnostics"]["width"] for r in rows} == {"128", "64"}
    assert all("has no style_caption column" in r["unavailable"]["style_alignment"]
               for r in rows)
    assert "overall_consistency" not in rows[0]["unavailable"]  # its caption is there
