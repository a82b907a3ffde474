"""VMBench's own official files on a full disk (benchmarks/common/full_disk.py): scores.csv
and results.json are written whole or not at all, the error names the file (app_main:
exit 2), and a clean write is the official scripts' bytes."""

import json
import pathlib

import pytest

from benchmarks.common import full_disk
from benchmarks.vmbench import official_scores
from benchmarks.vmbench import results_json
from tools.fixtures import vmbench_results

TESTDATA = pathlib.Path(__file__).parent / "testdata" / "official_scores_csv"


@pytest.mark.parametrize("case", ["typo_key", "ints", "pas_only"])
def test_scores_csv_on_a_full_disk(monkeypatch, tmp_path, case):
    agg = official_scores.faithful(vmbench_results.CASES[case]())
    path = tmp_path / "scores.csv"
    clean = full_disk.check_each_write(
        monkeypatch, lambda: official_scores.write_scores_csv(path, agg), path)
    assert clean == (TESTDATA / f"{case}.csv").read_bytes()  # calculate_score.py's bytes


def test_results_json_on_a_full_disk(monkeypatch, tmp_path):
    entries = vmbench_results.typo_key()
    entries[0]["prompt"] = "une vidéo"  # json.dump escapes it: the bytes stay ASCII
    entries[1][official_scores.TCS] = float("nan")  # written as the bare literal NaN
    path = tmp_path / "results.json"
    clean = full_disk.check_each_write(
        monkeypatch, lambda: results_json.write(path, entries), path)
    official = tmp_path / "official.json"
    with open(official, "w", encoding="utf-8") as f:  # the official scripts' dump
        json.dump(entries, f, indent=results_json.INDENT)
    assert clean == official.read_bytes()
