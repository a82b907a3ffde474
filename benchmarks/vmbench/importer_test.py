"""The importer on results.json files shaped exactly like the official ones: scores.csv
byte for byte as calculate_score.py writes it, per-video rows, coverage against 1,050."""

import hashlib
import json
import math
import os
import pathlib
import subprocess

import pytest

from benchmarks.common.errors import InputError
from benchmarks.vmbench import importer
from benchmarks.vmbench import metric_specs
from benchmarks.vmbench import official_scores
from benchmarks.vmbench import prompt_suite
from benchmarks.vmbench import shared_data
from proto import scorecard_pb2
from tools.fixtures import vmbench_results

TESTDATA = pathlib.Path(__file__).parent / "testdata" / "official_scores_csv"
# sha256 of each case file as written by vmbench_results.write_all (testdata/README.md).
CASE_SHA256 = {
    "full": "b91f66810eb0f22f421e30089a735ce9dee18e3ab9caef78f3eef43d270b5f69",
    "gaps": "399118a6fc0f80ac8c85f2ac9571832504762990b4ad5e85b80dc939df82766d",
    "ints": "dd0e0a0c8733dbf7abe3387028984a0f552170523c0172e9bd0424d408a8907e",
    "typo_key": "2d8ee7e52d3b75d5bc74d3420ede114ffd80728dbca4ff3751c6eac33c782b95",
    "pas_only": "072f37b376caf478fe37c4af0e0a8ca402933f01d41acf0f9cbfc321ec25666a",
}


@pytest.fixture(scope="module")
def cases(tmp_path_factory):
    return vmbench_results.write_all(tmp_path_factory.mktemp("cases"))


def _metric(card, metric_id):
    return next(m for m in card.metrics if m.id == metric_id)


@pytest.mark.parametrize("case", sorted(CASE_SHA256))
def test_scores_csv_is_byte_identical_to_the_official_script(cases, case, tmp_path):
    assert hashlib.sha256(cases[case].read_bytes()).hexdigest() == CASE_SHA256[case]
    imported = importer.build("m", cases[case])
    card = importer.write_outputs(tmp_path, imported)
    assert (tmp_path / "scores.csv").read_bytes() == (TESTDATA / f"{case}.csv").read_bytes()
    assert card.verification.scope == scorecard_pb2.IMPORTED_OFFICIAL_RESULTS
    assert not card.verification.leaderboard_eligible


def test_full_import_values_coverage_and_both_totals(cases):
    card = importer.build("m", cases["full"]).card
    assert card.coverage.expected == 1050 and card.coverage.evaluated == 1050
    assert not card.coverage.missing_sample_ids
    ois = _metric(card, "object_integrity_score")
    assert ois.value == 87.21326858893357 and ois.sample_count == 1050  # the CSV's row
    assert _metric(card, metric_specs.TOTAL).value == 73.63950860322721  # official Total
    entries = vmbench_results.full()
    means = [sum(e[k] for e in entries) / len(entries) for k in (
        "perceptible_amplitude_score", "object_integrity_score", "temporal_coherence_score",
        "commonsense_adherence_score", "motion_smoothness_score")]
    assert _metric(card, metric_specs.TOTAL_CORRECTED).value == pytest.approx(
        sum(means) / 5 * 100, rel=1e-12)
    pas = _metric(card, "perceptible_amplitude_score")
    assert pas.available and pas.value == pytest.approx(means[0] * 100, rel=1e-12)


def test_gaps_are_named_in_coverage_and_per_metric(cases):
    card = importer.build("m", cases["gaps"]).card
    assert card.coverage.expected == 1050 and card.coverage.evaluated == 1000
    assert len(card.coverage.missing_sample_ids) == 50
    assert card.coverage.missing_sample_ids[0] == "0021"
    tcs = _metric(card, "temporal_coherence_score")
    assert tcs.sample_count == 1000 - len([i for i in range(1, 1051)
                                           if i % 37 == 0 and i % 21])
    assert "/0037" in tcs.missing_sample_ids
    reasons = {b.reason for b in card.verification.blocking}
    assert {scorecard_pb2.IMPORTED_NOT_RECOMPUTED, scorecard_pb2.INCOMPLETE_COVERAGE,
            scorecard_pb2.INCOMPLETE_METRIC_COVERAGE} <= reasons


def test_pas_only_results_have_no_official_total(cases):
    card = importer.build("m", cases["pas_only"]).card
    total = _metric(card, metric_specs.TOTAL)
    assert not total.available and "Total Score 0" in total.unavailable_reason
    assert "perceptible_amplitude_score" not in total.unavailable_reason
    corrected = _metric(card, metric_specs.TOTAL_CORRECTED)
    assert "needs all five" in corrected.unavailable_reason
    assert _metric(card, "perceptible_amplitude_score").available


def test_results_from_the_official_suite_cover_it(tmp_path):
    suite = prompt_suite.load_manifest(shared_data.prompts_json())
    entries = [dict(p.entry, filepath=f"/v/{p.index}.mp4", temporal_coherence_score=1.0)
               for p in suite[:700]]
    path = tmp_path / "results.json"
    path.write_text(json.dumps(entries, indent=2))
    card = importer.build("m", path, suite=suite).card
    assert card.coverage.expected == 1050 and card.coverage.evaluated == 700
    assert card.coverage.missing_sample_ids[0] == "0701"
    assert _metric(card, metric_specs.TOTAL).value == 100.0


@pytest.mark.parametrize("data, message", [
    ({"index": "0001"}, "expected a JSON list of per-video objects"),
    ([{"index": "0001"}, {"prompt": "x"}], "expected entry 1 to have an 'index'"),
    ([{"index": 1}], "index as a string"),
    ([{"index": "0001"}, {"index": "0001"}], "each index once"),
    ([{"index": "0001", "temporal_coherence_score": None}], "temporal_coherence_score as a "
     "number"),
])
def test_bad_results_json_names_the_file(tmp_path, data, message):
    path = tmp_path / "results.json"
    path.write_text(json.dumps(data))
    with pytest.raises(InputError, match=str(path)) as info:
        importer.build("m", path)
    assert message in str(info.value)


def _damaged(tmp_path, changes):
    """vmbench_results.full() with {(entry, key): value} written over it, dumped as the
    official scripts dump it (json.dump writes NaN and Infinity as bare literals)."""
    entries = vmbench_results.full()
    for (position, key), value in changes.items():
        entries[position][key] = value
    path = tmp_path / "results.json"
    path.write_text(json.dumps(entries, indent=2))
    assert "NaN" in path.read_text() or not any(v != v for v in changes.values())
    return path, entries


def test_impossible_values_are_per_video_errors_not_headlines(tmp_path):
    ois, tcs, pas = ("object_integrity_score", "temporal_coherence_score",
                     "perceptible_amplitude_score")
    bad = {(0, ois): float("nan"), (1, ois): float("inf"), (2, ois): 1953.3,
           (3, tcs): 1.5, (4, tcs): float("-inf"), (5, pas): -0.2}
    path, entries = _damaged(tmp_path, {**bad, (6, tcs): -0.5, (7, pas): 7.0})
    imported = importer.build("m", path)
    card = imported.card
    kept = [{k: v for k, v in e.items() if (i, k) not in bad} for i, e in enumerate(entries)]
    faithful = official_scores.faithful(kept)
    result = _metric(card, ois)
    assert result.value == pytest.approx(faithful.x100(ois), rel=1e-12)  # not 1953.3-ish
    assert result.sample_count == 1047 and result.expected_sample_count == 1050
    assert list(result.missing_sample_ids) == ["/0001", "/0002", "/0003"]
    assert result.missing_reasons["/0001"] == (
        "results.json entry 0 (index 0001): object_integrity_score nan is not a finite number")
    assert "inf is not a finite number" in result.missing_reasons["/0002"]
    assert "1953.3 is outside its official range [0, 1]" in result.missing_reasons["/0003"]
    assert _metric(card, tcs).sample_count == 1048  # -0.5 kept: TCS can go below 0
    assert "[-inf, 1]" in _metric(card, tcs).missing_reasons["/0004"]
    assert "-0.2 is outside its official range [0, inf)" in _metric(
        card, pas).missing_reasons["/0006"]
    assert _metric(card, pas).sample_count == 1049  # 7.0: PAS is unbounded above
    total = _metric(card, metric_specs.TOTAL)
    assert total.value == pytest.approx(faithful.total_x100, rel=1e-12)
    assert math.isfinite(_metric(card, metric_specs.TOTAL_CORRECTED).value)
    note = next(n for n in card.notes if n.startswith("6 imported values are not finite"))
    assert "results.json entry 0 (index 0001) object_integrity_score=nan" in note
    assert "; and 1 more" in note
    warned = next(n for n in card.notes if "nominal range" in n)
    assert "entry 6 (index 0007) temporal_coherence_score=-0.5" in warned
    sample = next(s for s in imported.samples if s.sample_id == "0007")
    assert "nominal range [0, 1]" in sample.diagnostics[importer.VALUE_WARNINGS]
    assert scorecard_pb2.INCOMPLETE_METRIC_COVERAGE in {
        b.reason for b in card.verification.blocking}


def test_impossible_scores_csv_values_make_the_metric_unavailable(tmp_path):
    lines = (TESTDATA / "full.csv").read_text().splitlines(keepends=True)
    rows = {line.split(",")[0]: n for n, line in enumerate(lines)}
    lines[rows["object_integrity_score"]] = "object_integrity_score,195330.0\r\n"
    lines[rows["Total Score"]] = "Total Score,nan\r\n"
    path = tmp_path / "scores.csv"
    path.write_text("".join(lines), newline="")
    card = importer.build("m", scores_csv=path).card
    ois = _metric(card, "object_integrity_score")
    assert not ois.available and ois.unavailable_reason == (
        "scores.csv row object_integrity_score: object_integrity_score 195330.0 is outside "
        "its official range [0, 100]")
    total = _metric(card, metric_specs.TOTAL)
    assert not total.available and "total_score nan is not a finite" in total.unavailable_reason
    assert _metric(card, "temporal_coherence_score").available
    assert any(n.startswith("2 imported values are not finite") for n in card.notes)


def test_scores_csv_alone(tmp_path):
    card = importer.build("m", scores_csv=TESTDATA / "full.csv").card
    assert _metric(card, metric_specs.TOTAL).value == 73.63950860322721
    pas = _metric(card, "perceptible_amplitude_score")
    assert not pas.available and "misspelt" in pas.unavailable_reason
    out = importer.write_outputs(tmp_path, importer.build("m", scores_csv=TESTDATA / "full.csv"))
    assert (tmp_path / "scores.csv").read_bytes() == (TESTDATA / "full.csv").read_bytes()
    assert out.output_files["scores_csv"]


def test_both_sources_are_reconciled(cases):
    card = importer.build("m", cases["gaps"], TESTDATA / "full.csv").card
    assert any("disagrees with calculate_score.py" in n for n in card.notes)
    card = importer.build("m", cases["full"], TESTDATA / "full.csv").card
    assert any("equals calculate_score.py" in n for n in card.notes)


def _binary():
    path = pathlib.Path(os.environ["TEST_SRCDIR"]) / "worldeval" / "benchmarks" / "vmbench" / "import"
    assert path.is_file(), path
    return str(path)


def test_binary_end_to_end(cases, tmp_path):
    done = subprocess.run([_binary(), f"--results_json={cases['typo_key']}",
                           f"--output_dir={tmp_path}", "--model_name=M"],
                          capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    assert "IMPORTED_OFFICIAL_RESULTS" in done.stdout
    card = json.loads((tmp_path / "scorecard.json").read_text())
    assert card["model_name"] == "M"
    assert (tmp_path / "scores.csv").read_bytes() == (TESTDATA / "typo_key.csv").read_bytes()
    rows = (tmp_path / "per_sample_scores.jsonl").read_text().splitlines()
    assert len(rows) == 5


def test_binary_bad_input_exits_2_naming_the_file(tmp_path):
    bad = tmp_path / "results.json"
    bad.write_text('{"not": "a list"}')
    done = subprocess.run([_binary(), f"--results_json={bad}", f"--output_dir={tmp_path}/o"],
                          capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 2
    assert f"{bad}: expected a JSON list" in done.stderr
