"""evaluation.json and worldscore.json: the official shapes, read and written."""

import json

import pytest

from benchmarks.common.errors import InputError
from benchmarks.worldscore import official_json

GOOD = {"camera_control": {"camera_error": {"score": [3.0, 0.1], "score_normalized": 0.8}},
        "object_control": {"object_detection": {"score": 0.5, "score_normalized": 0.5}},
        "motion_magnitude": {"optical_flow": {"score": 1.0, "score_normalized": 0.3}},
        "content_alignment": {"clip_score": {}}}


def test_parse_keeps_the_movements_aspects_and_notes_what_it_ignores():
    ev = official_json.parse_evaluation(GOOD, "e.json", "static")
    assert list(ev.entries) == [("camera_control", "camera_error"),
                                ("object_control", "object_detection")]
    assert ev.entries[("camera_control", "camera_error")] == ([3.0, 0.1], 0.8)
    assert ev.ignored == ["aspect 'motion_magnitude' (not a static aspect)",
                          "content_alignment.clip_score (empty)"]
    assert ev.renormalize_error == "content_alignment.clip_score has no score"
    clean = {k: v for k, v in GOOD.items() if k != "content_alignment"}
    assert official_json.parse_evaluation(clean, "e.json", "static").renormalize_error == ""


@pytest.mark.parametrize("data,fragment", [
    ([], "found list"),
    ({"object_control": 3}, "object_control: an object of metrics"),
    ({"object_control": {"musiq": {"score": 1, "score_normalized": 1}}},
     "object_control: metrics object_detection, found 'musiq'"),
    ({"object_control": {"object_detection": {"score": 1}}}, '{"score", "score_normalized"}'),
    ({"camera_control": {"camera_error": {"score": -100, "score_normalized": 0}}},
     "expected a list of 2 numbers"),
    ({"object_control": {"object_detection": {"score": 1, "score_normalized": "1"}}},
     "score_normalized as a number"),
])
def test_not_the_official_shape_names_the_file(data, fragment):
    with pytest.raises(InputError, match="e.json: expected") as e:
        official_json.parse_evaluation(data, "e.json", "static")
    assert fragment in str(e.value)


def test_unreadable_evaluation_json(tmp_path):
    path = tmp_path / "evaluation.json"
    path.write_text('{"a": ')
    with pytest.raises(InputError, match="evaluation.json.*valid JSON"):
        official_json.read_evaluation(path, "static")


def test_evaluation_json_written_as_json_dump_indent_4(tmp_path):
    ev = official_json.parse_evaluation(GOOD, "e.json", "static")
    path = official_json.write_evaluation(tmp_path / "evaluation.json", ev.entries)
    want = {k: GOOD[k] for k in ("camera_control", "object_control")}
    assert path.read_text() == json.dumps(want, indent=4)


def test_worldscore_json_round_trip_and_checks(tmp_path):
    scores = dict.fromkeys(official_json.WORLDSCORE_KEYS, 50.0)
    scores["motion_accuracy"] = 0
    path = official_json.write_worldscore(tmp_path / "worldscore.json", scores)
    text = path.read_text()
    assert text.startswith('{\n    "camera_control": 50.0,') and text.endswith("\n}")
    assert '"motion_accuracy": 0,' in text
    assert official_json.read_worldscore(path) == scores
    with pytest.raises(ValueError, match="keys must be"):
        official_json.write_worldscore(path, dict(reversed(list(scores.items()))))
    bad = dict(scores, extra=1.0)
    del bad["WorldScore-Static"]
    path.write_text(json.dumps(bad))
    with pytest.raises(InputError, match="missing WorldScore-Static; unexpected 'extra'"):
        official_json.read_worldscore(path)
    path.write_text(json.dumps(dict(scores, camera_control=101)))
    with pytest.raises(InputError, match=r"camera_control as a number in \[0, 100\]"):
        official_json.read_worldscore(path)
