"""The importer on files shaped exactly as calculate_score.py writes them (its writer
transcribed here from the spec: a pandas frame grown row by row, to_csv(index=False),
DataFrame.mean(), json.dump(indent=4), fvd/kvd/fid/kid added after)."""

import json

import pandas as pd
import pytest

from benchmarks.common.errors import InputError
from benchmarks.mirabench import importer
from proto import scorecard_pb2

METRICS = ["temporal_dino_consistency", "dynamic_degree", "3D_consistency_mean_err",
           "overall_consistency"]


def _write_official(folder, rows, set_values):
    """video_score.csv and average_score.csv as calculate_score.py writes them."""
    frame = pd.DataFrame(columns=["video_id"] + METRICS)
    for idx, values in rows:
        frame.loc[len(frame.index)] = [idx] + values
    frame.to_csv(folder / "video_score.csv", index=False)
    means = frame.mean().to_dict()
    means.pop("video_id")
    means.update(set_values)
    with open(folder / "average_score.csv", "w") as f:
        json.dump(means, f, indent=4)
    return folder


@pytest.fixture()
def official(tmp_path):
    return _write_official(tmp_path, ((1, [0.91, 3.5, 0.2, 0.25]), (2, [0.95, None, 0.4, None]),
                                      (3, [0.90, 2.5, None, 0.21])),
                           {"fid": 123.4, "kid": 0.05})


def test_import_values_rows_and_scope(official):
    imported = importer.import_files(official / "average_score.csv",
                                     official / "video_score.csv", "m")
    card = imported.card
    assert card.verification.scope == scorecard_pb2.IMPORTED_OFFICIAL_RESULTS
    by_id = {m.id: m for m in card.metrics}
    assert by_id["dynamic_degree"].value == pytest.approx(3.0)
    assert by_id["dynamic_degree"].sample_count == 2
    assert by_id["fid"].value == 123.4 and by_id["kid"].value == 0.05
    assert not by_id["fvd"].available and "not in average_score" in by_id["fvd"].unavailable_reason
    assert [s.sample_id for s in imported.samples] == ["1", "2", "3"]
    two = imported.samples[1]
    assert "dynamic_degree" not in two.metrics and "dynamic_degree" in two.unavailable
    assert not any("differs" in n for n in card.notes)


def test_mismatched_mean_is_noted_and_average_alone_works(official, tmp_path):
    values = json.loads((official / "average_score.csv").read_text())
    values["dynamic_degree"] = 9.0
    values["custom"] = 1.0
    (tmp_path / "a.json").write_text(json.dumps(values))
    card = importer.import_files(tmp_path / "a.json", official / "video_score.csv", "m").card
    assert any("dynamic_degree: video_score.csv mean" in n for n in card.notes)
    assert any("custom" in n for n in card.notes)
    alone = importer.import_files(official / "average_score.csv", None, "m")
    assert not alone.samples and alone.card.verification.blocking


def test_bad_average_score_names_the_file(tmp_path):
    (tmp_path / "a.csv").write_text("metric,value\nfid,1\n")
    with pytest.raises(InputError, match="a.csv"):
        importer.import_files(tmp_path / "a.csv", None, "m")
    (tmp_path / "b.csv").write_text('{"fid": "high"}')
    with pytest.raises(InputError, match="non-numbers for fid"):
        importer.import_files(tmp_path / "b.csv", None, "m")


def test_writes_outputs(official, tmp_path):
    imported = importer.import_files(official / "average_score.csv",
                                     official / "video_score.csv", "m")
    card = importer.write_outputs(tmp_path / "out", imported)
    assert (tmp_path / "out" / "scorecard.json").is_file()
    assert len((tmp_path / "out" / "per_sample_scores.jsonl").read_text().splitlines()) == 3
    assert card.output_files["raw_metric_table"]


def test_impossible_values_are_per_video_errors_not_headlines(tmp_path):
    inf = float("inf")
    folder = _write_official(tmp_path, ((1, [0.91, -0.5, 0.2, 1.2]), (2, [inf, 2.0, 0.4, 0.3]),
                                        (3, [0.90, 2.5, None, 0.21])),
                             {"fid": inf, "kid": -0.01})
    assert "Infinity" in (folder / "average_score.csv").read_text()
    imported = importer.import_files(folder / "average_score.csv", folder / "video_score.csv",
                                     "m")
    card, by_id = imported.card, {m.id: m for m in imported.card.metrics}
    dino = by_id["temporal_dino_consistency"]  # average_score.csv says inf
    assert dino.value == pytest.approx((0.91 + 0.90) / 2) and dino.sample_count == 2
    assert list(dino.missing_sample_ids) == ["generated/2"]
    assert dino.missing_reasons["generated/2"] == (
        "video_score.csv row 3 (video 2): temporal_dino_consistency inf is not a finite number")
    degree = by_id["dynamic_degree"]
    assert degree.value == pytest.approx(2.25) and degree.expected_sample_count == 3
    assert "dynamic_degree -0.5 is outside its official range [0, inf)" in (
        imported.samples[0].unavailable["dynamic_degree"])
    assert by_id["overall_consistency"].value == pytest.approx(0.255)
    assert not by_id["fid"].available and by_id["fid"].unavailable_reason == (
        "average_score.csv key fid: fid inf is not a finite number")
    assert by_id["kid"].value == -0.01  # an unbiased estimate: below 0 is possible
    assert any(n.startswith("dynamic_degree: the value is the mean over the 2 valid")
               for n in card.notes)
    note = next(n for n in card.notes if n.startswith("5 imported values are not finite"))
    assert "video_score.csv row 2 (video 1) dynamic_degree=-0.5" in note
    assert scorecard_pb2.INCOMPLETE_METRIC_COVERAGE in {
        b.reason for b in card.verification.blocking}
