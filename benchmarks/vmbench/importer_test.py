"""The importer on results.json files shaped exactly like the official ones: scores.csv
byte for byte as calculate_score.py writes it, per-video rows, coverage against 1,050."""

import hashlib
import json
import os
import pathlib
import subprocess

import pytest

from benchmarks.common.errors import InputError
from benchmarks.vmbench import importer
from benchmarks.vmbench import metric_specs
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
