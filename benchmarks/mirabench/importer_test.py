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


@pytest.fixture()
def official(tmp_path):
    frame = pd.DataFrame(columns=["video_id"] + METRICS)
    for idx, values in ((1, [0.91, 3.5, 0.2, 0.25]), (2, [0.95, None, 0.4, None]),
                        (3, [0.90, 2.5, None, 0.21])):
        frame.loc[len(frame.index)] = [idx] + values
    frame.to_csv(tmp_path / "video_score.csv", index=False)
    means = frame.mean().to_dict()
    means.pop("video_id")
    means["fid"], means["kid"] = 123.4, 0.05
    with open(tmp_path / "average_score.csv", "w") as f:
        json.dump(means, f, indent=4)
    return tmp_path


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
