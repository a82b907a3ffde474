"""MiraBench's official files on a full disk (benchmarks/common/full_disk.py):
video_score.csv and average_score.csv are written whole or not at all, the error names
the file (app_main: exit 2), and a clean write is the official code's bytes."""

import json

from benchmarks.common import full_disk
from benchmarks.mirabench import metric_specs
from benchmarks.mirabench import official_files

COLUMNS = ["dynamic_degree", "style_alignment", "fid"]


def _frame():
    return official_files.video_frame(
        [("1", {"dynamic_degree": 2.5, "style_alignment": 0.25}), ("2", {}),
         ("3", {"dynamic_degree": float("nan"), "style_alignment": 1 / 3})], COLUMNS)


def test_video_score_csv_on_a_full_disk(monkeypatch, tmp_path):
    frame = _frame()
    out = tmp_path / "out"
    out.mkdir()
    clean = full_disk.check_each_write(
        monkeypatch, lambda: official_files.write_video_score(out, frame),
        out / metric_specs.VIDEO_SCORE_CSV)
    frame.to_csv(tmp_path / "official.csv", index=False)  # calculate_score.py's call
    assert clean == (tmp_path / "official.csv").read_bytes()
    assert clean.startswith(b"video_id,dynamic_degree,style_alignment\n1.0,2.5,0.25\n")


def test_average_score_csv_on_a_full_disk(monkeypatch, tmp_path):
    values = official_files.averages(_frame(), {"fid": 3.0, "kvd": float("nan")})
    out = tmp_path / "out"
    out.mkdir()
    clean = full_disk.check_each_write(
        monkeypatch, lambda: official_files.write_average_score(out, values),
        out / metric_specs.AVERAGE_SCORE_CSV)
    with open(tmp_path / "official.json", "w") as f:  # calculate_score.py's open and dump
        json.dump(values, f, indent=4)
    assert clean == (tmp_path / "official.json").read_bytes()
    assert not clean.endswith(b"\n")
