"""submission.py: physiq/submit.py _validate_card's checks and RUN_ID_RE (PR #69 @ b92d202),
with errors naming the file and the field."""

import math

import pytest
import yaml

from benchmarks.common.errors import InputError
from benchmarks.physics_iq import submission

CARD = {
    "public_info": {
        "organization": "Example Lab", "model": "Clip 1", "model_version": "clip-1-2026-05",
        "input_type": "i2v", "parameters": "14B", "fps": 16, "resolution": "832x480",
        "bon_sampling": 1, "bon_sampling_method": None, "bon_sampling_source": None,
        "prompt_upsampling": False, "prompt_upsampling_method": None,
        "prompt_upsampling_source": None, "descriptions": "bpp", "templater": None,
        "availability": "public", "model_source": "https://example.org/clip-1",
        "provider": None, "date": "2026-05-01", "reported": None, "comments": None,
        "upsample_cost": None, "upsample_gpu": None, "upsample_ngpu": None,
        "upsample_time": None, "generation_cost": 0.02, "generation_gpu": "H100",
        "generation_ngpu": 1, "generation_time": 95.0,
    },
    "reported_scores": {field: 12.5 for field in submission.REPORTED_SCORES},
    "terms": {"terms_version": "1.0", "terms_accepted": True,
              "accepted_on_behalf_of": "Example Lab", "accepted_at": "2026-05-01T10:00:00Z"},
    "warranties": {field: True for field in submission.WARRANTIES},
}


def _card(tmp_path, edit=None, text=None):
    import copy
    data = copy.deepcopy(CARD)
    if edit:
        edit(data)
    path = tmp_path / "submission.yaml"
    path.write_text(text if text is not None else yaml.safe_dump(data, sort_keys=False))
    return path


def _error(tmp_path, edit=None, text=None) -> str:
    path = _card(tmp_path, edit, text)
    with pytest.raises(InputError) as e:
        submission.load(path)
    assert str(path) in str(e.value)
    return str(e.value)


def test_a_valid_card_loads_with_scores_as_floats(tmp_path):
    card = submission.load(_card(tmp_path))
    assert card.reported_scores["physiq_mean"] == 12.5
    assert set(card.reported_scores) == set(submission.REPORTED_SCORES)
    assert card.public_info["model"] == "Clip 1" and card.notes == ()


@pytest.mark.parametrize("field", submission.REQUIRED)
def test_each_required_public_info_field_is_named_when_empty(tmp_path, field):
    message = _error(tmp_path, lambda d: d["public_info"].update({field: ""}))
    assert f"'public_info.{field}' is empty" in message


def test_false_and_zero_count_as_present_as_upstream(tmp_path):
    submission.load(_card(tmp_path, lambda d: d["public_info"].update(
        prompt_upsampling=False, generation_cost=0)))


def test_api_models_need_no_generation_hardware(tmp_path):
    def api(d):
        d["public_info"].update(availability="api", generation_gpu=None,
                                generation_ngpu=None, generation_time=None)
    submission.load(_card(tmp_path, api))
    message = _error(tmp_path, lambda d: d["public_info"].update(generation_gpu=None))
    assert "'public_info.generation_gpu' is empty (required for non-API models)" in message


def test_prompt_upsampling_requires_its_cost_and_for_non_api_its_hardware(tmp_path):
    message = _error(tmp_path, lambda d: d["public_info"].update(prompt_upsampling=True))
    for field in ("upsample_cost", "upsample_gpu", "upsample_ngpu", "upsample_time"):
        assert f"'public_info.{field}' is empty" in message
    # a string "true" is not `true`: upstream's `is True` skips the upsampling fields
    submission.load(_card(tmp_path, lambda d: d["public_info"].update(prompt_upsampling="yes")))


def test_reported_scores_must_be_present_and_numbers(tmp_path):
    message = _error(tmp_path, lambda d: d["reported_scores"].update(mse_std=None))
    assert "'reported_scores.mse_std' is empty" in message
    message = _error(tmp_path, lambda d: d["reported_scores"].update(physiq_mean="39.5%"))
    assert "'reported_scores.physiq_mean' must be a finite number" in message
    message = _error(tmp_path, lambda d: d["reported_scores"].update(physiq_mean=float("nan")))
    assert "'reported_scores.physiq_mean'" in message
    card = submission.load(_card(tmp_path, lambda d: d["reported_scores"].update(
        physiq_std=float("nan"))))  # a one-run std
    assert math.isnan(card.reported_scores["physiq_std"])


def test_terms_version_must_be_the_string_1_0_an_unquoted_yaml_float_fails(tmp_path):
    text = yaml.safe_dump(CARD, sort_keys=False).replace("terms_version: '1.0'",
                                                         "terms_version: 1.0")
    assert "terms_version: 1.0\n" in text
    message = _error(tmp_path, text=text)
    assert 'terms.terms_version must be "1.0" (got 1.0)' in message


@pytest.mark.parametrize("field, value, expected", [
    ("terms_accepted", "true", "terms.terms_accepted must be true"),
    ("accepted_on_behalf_of", "", "terms.accepted_on_behalf_of must be a non-empty string"),
    ("accepted_at", None, "terms.accepted_at must be a non-empty string"),
])
def test_terms_checks(tmp_path, field, value, expected):
    assert expected in _error(tmp_path, lambda d: d["terms"].update({field: value}))


@pytest.mark.parametrize("field", submission.WARRANTIES)
def test_each_warranty_must_be_true(tmp_path, field):
    message = _error(tmp_path, lambda d: d["warranties"].update({field: 1}))
    assert f"warranties.{field} must be true" in message


def test_all_problems_are_reported_at_once(tmp_path):
    def several(d):
        d["public_info"]["model"] = None
        d["warranties"]["metadata_accurate"] = False
    message = _error(tmp_path, several)
    assert "public_info.model" in message and "warranties.metadata_accurate" in message


def test_bad_yaml_and_bad_shapes_name_the_file(tmp_path):
    assert "ParserError: while parsing a flow sequence" in _error(
        tmp_path, text="public_info: [unclosed\n")
    assert "must be a mapping" in _error(tmp_path, text="- a list\n")
    assert "'terms' must be a mapping" in _error(tmp_path, lambda d: d.update(terms="yes"))


def test_values_outside_the_template_lists_are_noted_not_refused(tmp_path):
    card = submission.load(_card(tmp_path, lambda d: d["public_info"].update(input_type="t2i")))
    assert card.notes == ("public_info.input_type = 't2i' is not one of ('t2v', 'i2v', 'v2v')",)


@pytest.mark.parametrize("run_id", ["examplelab__clip-1.0__2026-05-01", "a1__b__2026-13-99",
                                    "examplelab__clip__2026-05-01\n"])  # `$` before a \n
def test_valid_run_ids(run_id):
    assert submission.check_run_id(run_id) == run_id


@pytest.mark.parametrize("run_id", ["Example__clip__2026-05-01", "ex__clip_1__2026-05-01",
                                    "ex__clip__2026-5-01", "ex_clip_2026-05-01", "ex__clip__"])
def test_invalid_run_ids(run_id):
    with pytest.raises(InputError, match="run_id"):
        submission.check_run_id(run_id)
