"""The official suite read out of the pinned wheel, and users' full-info files."""

import hashlib
import json
import zipfile

import pytest

from benchmarks.common.errors import InputError
from benchmarks.vbench.suite import prompt_suite

# spec §2: prompts per dimension in VBench_full_info.json.
OFFICIAL_COUNTS = {
    "subject_consistency": 72, "dynamic_degree": 72, "motion_smoothness": 72,
    "background_consistency": 86, "scene": 86,
    "aesthetic_quality": 93, "imaging_quality": 93, "overall_consistency": 93,
    "temporal_flickering": 75, "object_class": 79, "multiple_objects": 82,
    "human_action": 100, "temporal_style": 100, "color": 85, "spatial_relationship": 84,
    "appearance_style": 90,
}
DUPLICATES = ("The bund Shanghai, oil painting", "A beautiful coastal beach in spring, "
              "waves lapping on sand by Hokusai, in the style of Ukiyo")


@pytest.fixture(scope="module")
def suite():
    return prompt_suite.load()


def test_the_official_suite_has_946_entries_and_944_prompts(suite):
    assert suite.official and suite.sha256 == prompt_suite.OFFICIAL_SHA256
    assert suite.source.endswith("vbench-0.1.5-py3-none-any.whl!vbench/VBench_full_info.json")
    assert len(suite.entries) == prompt_suite.OFFICIAL_ENTRIES == 946
    assert len({e.prompt_en for e in suite.entries}) == 944
    assert dict(prompt_suite.dimension_counts(suite.entries)) == OFFICIAL_COUNTS


def test_the_two_duplicate_prompts_have_disjoint_dimensions(suite):
    seen = {}
    for entry in suite.entries:
        seen.setdefault(entry.prompt_en, []).append(entry)
    twice = {p: es for p, es in seen.items() if len(es) > 1}
    assert set(twice) == set(DUPLICATES)
    for first, second in twice.values():
        assert not set(first.dimension) & set(second.dimension)
        assert first.dimension == ("appearance_style",)
        assert second.auxiliary_info is None


def test_entries_keep_the_file_s_objects_and_auxiliary_info(suite):
    first = suite.entries[0]
    assert first.raw == {"prompt_en": "In a still frame, a stop sign",
                         "dimension": ["temporal_flickering"]}
    assert first.auxiliary_info is None and first.dimension == ("temporal_flickering",)
    scene = next(e for e in suite.entries if "scene" in e.dimension)
    assert list(scene.raw) == ["prompt_en", "dimension", "auxiliary_info"]
    assert set(scene.auxiliary_info) == {"scene"}
    assert set(scene.auxiliary_info["scene"]) == {"scene"}  # doubly nested (spec §4)
    assert sum(e.auxiliary_info is not None for e in suite.entries) == 506


def test_a_user_copy_is_official_and_an_edited_one_is_flagged(suite, tmp_path):
    raw = [dict(e.raw) for e in suite.entries]
    copy = tmp_path / "full.json"
    copy.write_text(json.dumps(raw, indent=4), encoding="utf-8")  # the official bytes
    same = prompt_suite.load(copy)
    assert same.official and same.entries == suite.entries and same.source == str(copy)
    edited = tmp_path / "mine.json"
    edited.write_text(json.dumps(raw[:10]), encoding="utf-8")
    mine = prompt_suite.load(edited)
    assert not mine.official and len(mine.entries) == 10
    assert mine.sha256 == hashlib.sha256(edited.read_bytes()).hexdigest()


@pytest.mark.parametrize("data, message", [
    ({"prompt_en": "x"}, "a JSON list of {prompt_en, dimension"),
    ([], "at least one full-info entry, found an empty list"),
    (["x"], "entry 0 to be an object"),
    ([{"dimension": ["scene"]}], "entry 0 to have a non-empty string prompt_en, found no"),
    ([{"prompt_en": "a", "dimension": "scene"}], "dimension as a list of dimension names"),
    ([{"prompt_en": "a", "dimension": ["scene"], "auxiliary_info": {"scene": "alley"}}],
     "auxiliary_info as an object of objects"),
])
def test_malformed_full_info_names_the_file(tmp_path, data, message):
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(InputError, match=str(path)) as info:
        prompt_suite.load(path)
    assert message in str(info.value)


def test_unreadable_files(tmp_path):
    with pytest.raises(InputError, match="no such file"):
        prompt_suite.load(tmp_path / "absent.json")
    bad = tmp_path / "bad.json"
    bad.write_text("[{", encoding="utf-8")
    with pytest.raises(InputError, match="a UTF-8 JSON file"):
        prompt_suite.load(bad)


def test_a_wheel_whose_member_differs_from_the_pin_is_refused(tmp_path, monkeypatch):
    wheel = tmp_path / prompt_suite.WHEEL_RUNFILE
    wheel.parent.mkdir(parents=True)
    with zipfile.ZipFile(wheel, "w") as archive:
        archive.writestr(prompt_suite.WHEEL_MEMBER, '[{"prompt_en": "a", "dimension": []}]')
    monkeypatch.setenv("RUNFILES_DIR", str(tmp_path))
    assert prompt_suite.official_wheel() == wheel
    with pytest.raises(InputError, match="expected the official suite .sha256 5dd2de80"):
        prompt_suite.load()
