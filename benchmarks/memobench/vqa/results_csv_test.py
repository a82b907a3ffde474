"""llm-vqa.py's per-clip CSV and overall.csv, byte for byte."""

import json

import pytest

from benchmarks.memobench.vqa import results_csv


def test_clip_csv_bytes(tmp_path):
    evaluation = json.dumps([{"ID": 1, "Answer": "Yes", "Reasoning": 'a "quoted", word'}])
    score = json.dumps({"Instruction Following": 0.5, "Physics Adherence": 1.0})
    path = results_csv.write_clip(tmp_path / "Barnyard-1.csv", "Barnyard", "1",
                                  "Barnyard_001", evaluation, score)
    assert path.read_bytes() == (
        b'scene,video_id,folder,Evaluation,score\r\n'
        b'Barnyard,1,Barnyard_001,"[{""ID"": 1, ""Answer"": ""Yes"", ""Reasoning"": '
        b'""a \\""quoted\\"", word""}]","{""Instruction Following"": 0.5, '
        b'""Physics Adherence"": 1.0}"\r\n')
    assert not list(tmp_path.glob("*.tmp"))


def test_overall_csv_columns_and_order(tmp_path):
    rows = [{"scene": "Barnyard", "video_id": "1", "Instruction Following": 0.5,
             "Object and Background": 1.0},
            {"scene": "Nordic", "video_id": "3", "Object and Background": 0.25,
             "Continuity of Memory": 0.3333}]
    path = results_csv.write_overall(tmp_path / "overall.csv", rows)
    assert path.read_text().splitlines() == [
        "scene,video_id,Instruction Following,Object and Background,Continuity of Memory",
        "Barnyard,1,0.5,1.0,",
        "Nordic,3,,0.25,0.3333"]


def test_model_dir(tmp_path):
    assert results_csv.model_dir(tmp_path, "LTX-Video") == tmp_path / "vqa_results" / "LTX-Video"
    for bad in ("", "a/b", "..", "a\\b"):
        with pytest.raises(ValueError):
            results_csv.model_dir(tmp_path, bad)
