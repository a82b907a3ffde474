"""The Verified submission-card importer (importer.py) on a card shaped like PR
#69's submission/submission.yaml (written here from spec §10's field list): the ten
reported scores carried as written, self-reported and not recomputed, the card copied byte
for byte; a card submit.py would refuse (every problem named), a score outside [0, 100]
(its field named), a one-run NaN std, and import_main's --submission_yaml (exit 2)."""

import json
import math

import pytest
import yaml
from absl import flags

from benchmarks.common import app_main
from benchmarks.common.errors import InputError
from benchmarks.physics_iq import submission
from benchmarks.physics_iq_verified import import_main
from benchmarks.physics_iq_verified import importer as verified_importer
from benchmarks.physics_iq_verified import metric_specs as verified_specs
from proto import scorecard_pb2

SCORES = {"physiq_mean": 39.5, "physiq_std": 0.8, "spatial_iou_mean": 41.25,
          "spatial_iou_std": 1.5, "weighted_spatial_iou_mean": 30.0,
          "weighted_spatial_iou_std": 0.25, "spatiotemporal_iou_mean": 55.75,
          "spatiotemporal_iou_std": 2.0, "mse_mean": 31.0, "mse_std": 0.5}


def _card(**edits) -> dict:
    """A complete card with spec §10's sections; `edits`: "section.field" -> value."""
    card = {
        "public_info": {
            "organization": "Example Lab", "model": "example-video-1",
            "model_version": "2026-07", "input_type": "i2v", "parameters": "14B", "fps": 24,
            "resolution": "1280x720", "bon_sampling": False, "bon_sampling_method": "",
            "bon_sampling_source": "", "prompt_upsampling": False,
            "prompt_upsampling_method": "", "prompt_upsampling_source": "",
            "descriptions": "bpp", "templater": "base", "availability": "public",
            "model_source": "https://example.org/model", "provider": "", "date": "2026-08-01",
            "reported": "https://example.org/report", "comments": "", "upsample_cost": None,
            "upsample_gpu": None, "upsample_ngpu": None, "upsample_time": None,
            "generation_cost": "12 USD", "generation_gpu": "H100", "generation_ngpu": 8,
            "generation_time": "3 h"},
        "reported_scores": dict(SCORES),
        "terms": {"terms_version": "1.0", "terms_accepted": True,
                  "accepted_on_behalf_of": "Example Lab", "accepted_at": "2026-08-01"},
        "warranties": {w: True for w in submission.WARRANTIES},
    }
    for key, value in edits.items():
        section, field = key.split(".")
        card[section][field] = value
    return card


def _write(tmp_path, card: dict):
    path = tmp_path / "submission.yaml"
    path.write_text(yaml.safe_dump(card, sort_keys=False))
    return path


def test_the_reported_scores_are_carried_as_self_reported(tmp_path):
    imported = verified_importer.import_submission(_write(tmp_path, _card()))
    card = imported.card
    assert card.benchmark_id == "physics-iq-verified"
    assert card.model_name == "example-video-1"
    assert [m.id for m in card.metrics] == list(submission.REPORTED_SCORES)
    assert {m.id: m.value for m in card.metrics} == SCORES
    assert [m.id for m in card.metrics if m.leaderboard_metric] == ["physiq_mean"]
    assert all(not m.backend.official and not m.backend.parity.verified
               and "self-reported" in m.backend.note for m in card.metrics)
    assert not imported.samples
    ver = card.verification
    assert ver.scope == scorecard_pb2.IMPORTED_OFFICIAL_RESULTS
    assert not ver.leaderboard_eligible
    assert [b.reason for b in ver.blocking] == [scorecard_pb2.IMPORTED_NOT_RECOMPUTED,
                                                scorecard_pb2.INCOMPLETE_COVERAGE,
                                                scorecard_pb2.UNVERIFIED_PARITY]
    note = card.notes[0]
    for part in ("self-reported", "'example-video-1'", "'Example Lab'", "'2026-08-01'",
                 "recomputed nothing"):
        assert part in note, part


def test_the_table_is_the_cards_reported_scores():
    assert verified_specs.TABLE.ids == submission.REPORTED_SCORES


def test_outputs_hold_the_card_byte_for_byte(tmp_path):
    path = _write(tmp_path, _card())
    imported = verified_importer.import_submission(path, "my-name")
    card = verified_importer.write_outputs(tmp_path / "out", imported, {"card": path})
    copied = tmp_path / "out" / "submission" / "submission.yaml"
    assert copied.read_bytes() == path.read_bytes()
    assert card.output_files["submission_yaml"] == str(copied)
    assert json.loads((tmp_path / "out" / "scorecard.json").read_text())["model_name"] == (
        "my-name")
    assert not (tmp_path / "out" / "per_sample_scores.jsonl").exists()


def test_a_one_run_nan_std_is_that_metric_unavailable(tmp_path):
    card = verified_importer.import_submission(
        _write(tmp_path, _card(**{"reported_scores.physiq_std": math.nan}))).card
    std = next(m for m in card.metrics if m.id == "physiq_std")
    assert not std.available and "single run" in std.unavailable_reason
    assert next(m for m in card.metrics if m.id == "physiq_mean").value == 39.5
    assert scorecard_pb2.METRIC_UNAVAILABLE not in [b.reason for b in
                                                     card.verification.blocking]


def test_a_card_submit_py_refuses_names_every_problem(tmp_path):
    path = _write(tmp_path, _card(**{"warranties.no_ip_infringement": False,
                                     "warranties.metadata_accurate": "yes",
                                     "terms.terms_version": 1.0,
                                     "public_info.date": "",
                                     "reported_scores.mse_std": None}))
    with pytest.raises(InputError) as e:
        verified_importer.import_submission(path)
    message = str(e.value)
    assert message.startswith(f"{path}: expected a Physics-IQ submission card")
    for problem in ("warranties.no_ip_infringement must be true",
                    "warranties.metadata_accurate must be true",
                    'terms.terms_version must be "1.0" (got 1.0)',
                    "required field 'public_info.date' is empty",
                    "required field 'reported_scores.mse_std' is empty"):
        assert problem in message, problem
    assert "has_rights_to_submit" not in message


@pytest.mark.parametrize("value", [150.0, -2.0, 0.395e3])
def test_a_score_outside_0_100_is_refused_naming_its_field(tmp_path, value):
    path = _write(tmp_path, _card(**{"reported_scores.spatial_iou_mean": value}))
    with pytest.raises(InputError, match=rf"reported_scores.spatial_iou_mean: "
                                         rf"spatial_iou_mean {value!r} is outside its "
                                         r"official range \[0, 100\]"):
        verified_importer.import_submission(path)


def test_main_imports_a_card_and_exits_2_on_a_bad_one(tmp_path, capsys):
    good, out = _write(tmp_path, _card()), tmp_path / "out"
    flags.FLAGS(["import", f"--submission_yaml={good}", f"--output_dir={out}"])
    try:
        import_main.main(["import"])
    finally:
        flags.FLAGS.unparse_flags()
    assert json.loads((out / "scorecard.json").read_text())["benchmark_id"] == (
        "physics-iq-verified")
    assert "physiq_mean" in capsys.readouterr().out

    bad = _write(tmp_path, _card(**{"warranties.has_rights_to_submit": False}))
    flags.FLAGS(["import", f"--submission_yaml={bad}", f"--output_dir={tmp_path / 'o2'}"])
    try:
        with pytest.raises(SystemExit) as e:
            app_main.guard(import_main.main)(["import"])
    finally:
        flags.FLAGS.unparse_flags()
    assert e.value.code == 2
    assert "warranties.has_rights_to_submit must be true" in capsys.readouterr().err
