"""MemoBench's own official files on a full disk (benchmarks/common/full_disk.py):
eval_{mode}.csv and leaderboard.py's --output CSV are written whole or not at all, the
error names the file (app_main: exit 2), and a clean write is pandas' to_csv bytes."""

import math

import pandas as pd

from benchmarks.common import full_disk
from benchmarks.memobench import eval_csv
from benchmarks.memobench import leaderboard
from proto import scorecard_pb2


def _samples():
    good = scorecard_pb2.SampleScore(sample_id="Barnyard_001", split="synthetic",
                                     scene="Barnyard")
    good.diagnostics.update({"num_frames": "81", "h_start": "27", "r_start": "54",
                             "gt_frames": "300"})
    good.metrics.update({eval_csv.RAW_KEY_PREFIX + "TemporalScore": 0.8123,
                         eval_csv.RAW_KEY_PREFIX + "AestheticScore": 5.4321,
                         eval_csv.RAW_KEY_PREFIX + "GT_ALL_PSNR": 14.1234})
    failed = scorecard_pb2.SampleScore(sample_id="Café_002", split="real", scene="Café",
                                       error="no frames, ünreadable")
    return [good, failed]


def test_eval_csv_on_a_full_disk(monkeypatch, tmp_path):
    samples = _samples()
    path = tmp_path / "eval_all.csv"
    clean = full_disk.check_each_write(monkeypatch, lambda: eval_csv.write(path, samples),
                                       path)
    eval_csv.build_frame(samples).to_csv(tmp_path / "official.csv", index=False)  # run_eval.py
    assert clean == (tmp_path / "official.csv").read_bytes()
    assert "Café_002".encode() in clean and b"\r" not in clean


def test_leaderboard_csv_on_a_full_disk(monkeypatch, tmp_path):
    table = pd.DataFrame({"Model": ["LTX-Video", "Wan—2.1"], "VisualQuality": [61.23456, 50.0],
                          "ORS": [math.nan, 12.5]})
    path = tmp_path / "leaderboard.csv"
    clean = full_disk.check_each_write(monkeypatch, lambda: leaderboard.write_csv(table, path),
                                       path)
    table.to_csv(tmp_path / "official.csv", index=False, float_format="%.4f")  # leaderboard.py
    assert clean == (tmp_path / "official.csv").read_bytes()
    assert clean.startswith(b"Model,VisualQuality,ORS\nLTX-Video,61.2346,\n")
