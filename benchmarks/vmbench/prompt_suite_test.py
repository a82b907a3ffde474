"""The prompt suite (official prompts.json format) and the flat <index>.mp4 layout."""

import hashlib
import json

import pytest

from benchmarks.common.errors import InputError
from benchmarks.vmbench import prompt_suite
from benchmarks.vmbench import shared_data


def _entry(index, noun="horse"):
    return {"prompt": f"p {index}", "subject": f"a {noun}", "subject_noun": noun,
            "place": "raceway", "action": "sprints", "index": index}


def test_the_official_suite_loads_1050_prompts_in_order():
    path = shared_data.prompts_json()
    assert hashlib.sha256(path.read_bytes()).hexdigest() == shared_data.PROMPTS_SHA256
    prompts = prompt_suite.load_manifest(path)
    assert len(prompts) == prompt_suite.SUITE_SIZE == 1050
    assert [p.index for p in prompts] == [f"{i:04d}" for i in range(1, 1051)]
    assert prompts[0].subject_noun == "horse"
    assert list(prompts[0].entry) == list(prompt_suite.FIELDS)  # key order kept
    assert prompt_suite.missing_indices(prompts) == []


def test_duplicate_index_names_the_file_and_both_entries(tmp_path):
    path = tmp_path / "prompts.json"
    path.write_text(json.dumps([_entry("0001"), _entry("0002"), _entry("0001")]))
    with pytest.raises(InputError, match=r"prompts.json: expected each index once, found "
                       r"index 0001 at entries 0 and 2"):
        prompt_suite.load_manifest(path)


@pytest.mark.parametrize("data, message", [
    ({"index": "0001"}, "a JSON list of prompt objects"),
    ([], "at least one prompt"),
    (["0001"], "entry 0 to be an object"),
    ([{"index": "0001", "prompt": "x"}], "no subject, subject_noun, place, action"),
    ([_entry(1)], "zero-padded 4-digit string"),
    ([_entry("1")], "zero-padded 4-digit string"),
])
def test_malformed_manifests_name_the_file(tmp_path, data, message):
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(data))
    with pytest.raises(InputError, match=str(path)) as info:
        prompt_suite.load_manifest(path)
    assert message in str(info.value)


def test_not_json_and_missing_file(tmp_path):
    bad = tmp_path / "p.json"
    bad.write_text("[{")
    with pytest.raises(InputError, match=r"p.json: expected a JSON file \(VMBench.s prompts.json"):
        prompt_suite.load_manifest(bad)
    with pytest.raises(InputError, match="no such file"):
        prompt_suite.load_manifest(tmp_path / "absent.json")


def test_gaps_in_the_indices_are_listed():
    prompts = prompt_suite.parse_manifest([_entry("0001"), _entry("0004")], "x.json")
    assert prompt_suite.missing_indices(prompts) == ["0002", "0003"]


def test_layout_matches_videos_lists_strays_and_missing(tmp_path):
    prompts = prompt_suite.parse_manifest([_entry(f"{i:04d}") for i in range(1, 6)], "x")
    for name in ("0001.mp4", "0003.mp4", "0002.avi", "0004.MP4", "clip.mp4", "9999.mp4",
                 "notes.txt", ".hidden.mp4"):
        (tmp_path / name).write_bytes(b"x")
    (tmp_path / "0005.mp4").mkdir()
    layout = prompt_suite.discover(tmp_path, prompts)
    assert [(p.index, path.name) for p, path in layout.videos] == [
        ("0001", "0001.mp4"), ("0003", "0003.mp4")]
    assert layout.missing == ("0002", "0004", "0005")
    reasons = dict(layout.unmatched)
    assert set(reasons) == {"0002.avi", "0004.MP4", "clip.mp4", "9999.mp4", "notes.txt",
                            "0005.mp4"}
    assert "not .mp4" in reasons["0002.avi"]
    assert "lowercase .mp4" in reasons["0004.MP4"]
    assert reasons["clip.mp4"] == "not a 4-digit suite index"
    assert reasons["9999.mp4"] == "index 9999 is not in the prompt suite"
    assert "a folder" in reasons["0005.mp4"]


def test_layout_of_a_file_is_an_input_error(tmp_path):
    (tmp_path / "f").write_text("")
    with pytest.raises(InputError, match="a folder of <index>.mp4 videos"):
        prompt_suite.discover(tmp_path / "f", [])
