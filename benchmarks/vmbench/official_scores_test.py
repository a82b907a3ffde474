"""Aggregation both ways, against the official calculate_score.py's own bytes and a numpy
transcription of the spec; the PAS key typo is pinned (it must stay "unfixed")."""

import pathlib
import statistics

import numpy as np
import pytest

from benchmarks.vmbench import official_scores as scores
from tools.fixtures import vmbench_results

TESTDATA = pathlib.Path(__file__).parent / "testdata" / "official_scores_csv"


@pytest.mark.parametrize("case", sorted(vmbench_results.CASES))
def test_scores_csv_bytes_equal_the_official_script(case):
    entries = vmbench_results.CASES[case]()
    expected = (TESTDATA / f"{case}.csv").read_bytes()
    assert scores.scores_csv_text(scores.faithful(entries)).encode() == expected


def test_the_pas_key_typo_drops_pas_from_the_faithful_total():
    entries = [{scores.PAS: 0.9, scores.OIS: 0.5, scores.TCS: 1.0, scores.MSS: 0.25,
                scores.CAS: 0.75}]
    agg = scores.faithful(entries)
    assert scores.PAS not in agg.means and "perceptible_amplitude_socre" not in agg.means
    assert list(agg.means) == [scores.OIS, scores.TCS, scores.MSS, scores.CAS]
    assert agg.total_x100 == pytest.approx((0.5 + 1.0 + 0.25 + 0.75) / 4 * 100)
    # Corrected: all five, PAS raw x100 included.
    assert scores.corrected(entries).total_x100 == pytest.approx(
        (0.9 + 0.5 + 1.0 + 0.25 + 0.75) / 5 * 100)
    assert scores.OFFICIAL_KEYS[0] == "perceptible_amplitude_socre"


def test_an_entry_carrying_the_misspelt_key_is_counted_as_the_official_script_does():
    agg = scores.faithful([{"perceptible_amplitude_socre": 0.4, scores.OIS: 0.8}])
    assert list(agg.means) == ["perceptible_amplitude_socre", scores.OIS]
    assert agg.total_x100 == pytest.approx(60.0)


def test_means_are_over_present_values_with_statistics_mean():
    rng = np.random.default_rng(3)
    entries = []
    for i in range(200):
        e = {k: float(v) for k, v in zip(scores.METRIC_KEYS, rng.random(5))}
        if i % 3 == 0:
            del e[scores.TCS]
        entries.append(e)
    agg = scores.faithful(entries)
    tcs = [e[scores.TCS] for e in entries if scores.TCS in e]
    assert agg.counts[scores.TCS] == len(tcs) == 133
    assert agg.means[scores.TCS] == statistics.mean(tcs)  # exact, not fsum/n
    ref = {k: np.mean([e[k] for e in entries if k in e]) for k in scores.METRIC_KEYS}
    assert agg.total_x100 == pytest.approx(
        np.mean([ref[k] for k in scores.METRIC_KEYS[1:]]) * 100, rel=1e-12)
    assert scores.corrected(entries).total_x100 == pytest.approx(
        np.mean(list(ref.values())) * 100, rel=1e-12)


def test_integer_means_stay_integers_and_an_empty_total_is_int_zero():
    agg = scores.faithful([{scores.TCS: 1}, {scores.TCS: 1}])
    assert scores.scores_csv_text(agg) == (
        "Metric,Average Score\r\ntemporal_coherence_score,100\r\nTotal Score,100\r\n")
    assert scores.scores_csv_text(scores.faithful([])) == (
        "Metric,Average Score\r\nTotal Score,0\r\n")


def test_corrected_needs_all_five():
    assert scores.corrected([{scores.OIS: 1.0, scores.TCS: 1.0}]) is None


def test_parse_scores_csv_round_trip_and_errors():
    text = (TESTDATA / "full.csv").read_text()
    values = scores.parse_scores_csv(text, "full.csv")
    assert values[scores.TOTAL_ROW] == pytest.approx(73.63950860322721)
    with pytest.raises(ValueError, match="x.csv: expected the header Metric,Average Score"):
        scores.parse_scores_csv("a,b\r\n", "x.csv")
    with pytest.raises(ValueError, match="x.csv: expected a 'Total Score' row"):
        scores.parse_scores_csv("Metric,Average Score\r\nobject_integrity_score,1\r\n", "x.csv")
    with pytest.raises(ValueError, match="line 2: expected a number"):
        scores.parse_scores_csv("Metric,Average Score\r\nTotal Score,abc\r\n", "x.csv")
