"""ors_scores.csv rows: only clips with an ORS value (an error or a left-out value: none)."""

import csv

from benchmarks.memobench.ors import ors_csv
from proto import scorecard_pb2


def _sample(clip, ors=None, error=""):
    sample = scorecard_pb2.SampleScore(sample_id=clip, split="Synthetic", scene="Barnyard",
                                       error=error)
    sample.diagnostics[ors_csv.PREFIX + "n_gen"] = "40"
    sample.diagnostics[ors_csv.PREFIX + "r_start"] = "20"
    if ors is not None:
        sample.metrics[ors_csv.METRIC_ID] = ors
        for k in ors_csv._FLOATS:  # pylint: disable=protected-access
            sample.metrics[ors_csv.PREFIX + k] = 0.5
        for k in ors_csv._INTS:  # pylint: disable=protected-access
            sample.metrics[ors_csv.PREFIX + k] = 3
    return sample


def _clips(path):
    with open(path, encoding="utf-8", newline="") as f:
        return [r["clip_id"] for r in csv.DictReader(f)]


def test_a_clip_whose_ors_was_left_out_gets_no_row(tmp_path):
    left_out = _sample("Barnyard_002")  # scored, but the engine dropped its ORS value
    path = ors_csv.rewrite(tmp_path / "ors.csv", [_sample("Barnyard_001", 0.5), left_out,
                                                  _sample("Barnyard_003", error="bad clip")])
    ors_csv.append(path, left_out)
    ors_csv.append(path, _sample("Barnyard_004", 0.25))
    assert _clips(path) == ["Barnyard_001", "Barnyard_004"]
