"""custom_input and vbench_category against upstream's build_full_info_json (test data from
a run of the official code, upstream_cases.py) and against hand-written expectations."""

import json

import pytest

from benchmarks.common.errors import InputError
from benchmarks.vbench.suite import custom_modes
from benchmarks.vbench.suite import layout
from benchmarks.vbench.suite import upstream_cases

CASES = upstream_cases.cases()


def _custom(case, root, monkeypatch):
    upstream_cases.build(case, root)
    monkeypatch.chdir(root)
    prompt_file = "prompts.json" if case.get("prompt_file") is not None else None
    return custom_modes.custom_input(case["videos_path"], case["dimensions"],
                                     prompt=case.get("prompt"), prompt_file=prompt_file)


@pytest.mark.parametrize("name", ["custom_single_file", "custom_single_file_prompt",
                                  "custom_folder", "custom_prompt_file"])
def test_custom_input_writes_upstream_s_full_info_byte_for_byte(name, tmp_path, monkeypatch):
    case = CASES[name]
    got = _custom(case, tmp_path, monkeypatch)
    want = case["expected"]["sorted"]
    assert upstream_cases.with_videos(layout.full_info(got)) == want["with_videos"]
    assert upstream_cases.digest(layout.full_info_text(got)) == want["sha256"]
    assert got.refused == () and got.unprompted == ()


@pytest.mark.parametrize("name, prompt", [
    ("a cat-3.mp4", "a cat"), ("a bird-1-2.mp4", "a bird-1"), ("a dog.gif", "a dog"),
    ("x-12.MP4", "x"), ("Mr. Smith walks-0.mp4", "Mr. Smith walks"), ("dir/take-007.mp4", "take"),
    ("a-b.mp4", "a-b"), ("v1.2-3.mp4", "v1.2"),
])
def test_prompt_from_filename_drops_one_trailing_index(name, prompt):
    assert custom_modes.prompt_from_filename(name) == prompt


def test_the_folder_s_other_files_are_named(tmp_path, monkeypatch):
    got = _custom(CASES["custom_folder"], tmp_path, monkeypatch)
    reasons = dict(got.unmatched)
    assert set(reasons) == {"z.jpg", "notes.txt"}
    assert reasons["z.jpg"].startswith("a still image")
    assert reasons["notes.txt"].startswith("suffix .txt: not a video suffix")


def test_a_prompt_file_that_misses_videos_names_them(tmp_path, monkeypatch):
    case = CASES["custom_prompt_file_not_covering"]
    assert case["expected"]["sorted"] == {"raises": "AssertionError"}  # upstream stops
    got = _custom(case, tmp_path, monkeypatch)
    assert got.unprompted == ("0002.mp4",)
    assert [(e.prompt_en, e.video_list) for e in got.entries] == [("one", ("videos/0001.mp4",))]


def test_a_prompt_file_s_spare_keys_are_noted(tmp_path, monkeypatch):
    got = _custom(CASES["custom_prompt_file"], tmp_path, monkeypatch)
    assert got.notes == ("1 prompt file keys name no video here, e.g. '9999.mp4'",)


def test_dimensions_needing_auxiliary_info_are_refused_not_asserted(tmp_path, monkeypatch):
    case = CASES["custom_refused_dimension"]
    assert case["expected"]["sorted"] == {"raises": "AssertionError"}  # upstream stops
    got = _custom(case, tmp_path, monkeypatch)
    assert [d for d, _ in got.refused] == ["scene", "color"]
    assert "auxiliary_info" in got.refused[0][1]
    assert got.dimensions == ("subject_consistency",)
    assert layout.full_info(got) == [{"prompt_en": "a cat", "dimension": ["subject_consistency"],
                                      "video_list": ["videos/a cat-0.mp4"]}]


def test_videos_upstream_skips_are_taken_with_a_note(tmp_path):
    for name in ("a.avi", "b.mov", "c.mp4"):
        (tmp_path / name).write_bytes(b"")
    got = custom_modes.custom_input(str(tmp_path), ["subject_consistency"])
    assert [e.prompt_en for e in got.entries] == ["a", "b", "c"]
    assert got.notes[0].startswith("2 videos have a suffix upstream skips")


def test_prompt_needs_a_single_file_and_excludes_a_prompt_file(tmp_path):
    (tmp_path / "a.mp4").write_bytes(b"")
    with pytest.raises(InputError, match="a single video file with --prompt"):
        custom_modes.custom_input(tmp_path, ["subject_consistency"], prompt="p")
    with pytest.raises(InputError, match="either --prompt or --prompt_file"):
        custom_modes.custom_input(tmp_path / "a.mp4", ["subject_consistency"], prompt="p",
                                  prompt_file=tmp_path / "p.json")


def test_a_single_file_reads_its_prompt_from_a_prompt_file(tmp_path):
    video = tmp_path / "v.mp4"
    video.write_bytes(b"")
    (tmp_path / "p.json").write_text(json.dumps({"v.mp4": "long " * 80}), encoding="utf-8")
    got = custom_modes.custom_input(video, ["temporal_style"], prompt_file=tmp_path / "p.json")
    assert got.entries[0].prompt_en == "long " * 80 and "KeyError" in got.notes[0]


@pytest.mark.parametrize("content, message", [
    ("[]", "a JSON object {video_path: prompt}"),
    ("{}", "found an empty object"),
    ('{"a.mp4": 3}', "with string prompts"),
    ("{", "JSONDecodeError"),
])
def test_malformed_prompt_files_name_the_file(tmp_path, content, message):
    (tmp_path / "a.mp4").write_bytes(b"")
    bad = tmp_path / "p.json"
    bad.write_text(content, encoding="utf-8")
    with pytest.raises(InputError, match=str(bad)) as info:
        custom_modes.custom_input(tmp_path, ["subject_consistency"], prompt_file=bad)
    assert message in str(info.value)


def test_category_matches_stem_prefixes_as_upstream_intends(tmp_path, monkeypatch):
    case = CASES["category_prefix"]
    upstream_cases.build(case, tmp_path)
    monkeypatch.chdir(tmp_path)
    got = custom_modes.category("videos", "animal", case["dimensions"], "category")
    # upstream's intent also takes .jpg/.png (one-frame "videos"); here they are unmatched
    images = {"videos/a cat-7.jpg", "videos/a cat.png"}
    want = [[i, dict(e, video_list=[v for v in e["video_list"] if v not in images])]
            for i, e in case["expected"]["sorted"]["with_videos"]]
    assert upstream_cases.with_videos(layout.full_info(got)) == [w for w in want
                                                                 if w[1]["video_list"]]
    assert [e.prompt_en for e in got.entries] == ["a dog", "a dog running", "a cat", "an owl"]
    reasons = dict(got.unmatched)
    assert set(reasons) == {"a cat-7.jpg", "a cat.png", "a dog.txt", "the dog-0.mp4"}
    assert reasons["the dog-0.mp4"] == "its stem starts with no prompt of category 'animal'"
    assert reasons["a cat.png"].startswith("a still image")
    assert reasons["a dog.txt"].startswith("suffix .txt")
    assert "does not run as shipped" in got.notes[0] and "1 of the category's 4" in got.notes[1]


def test_category_prompt_lists(tmp_path):
    folder = tmp_path / "per_category"
    folder.mkdir()
    (folder / "food.txt").write_text(" pizza \n\nsoup\n", encoding="utf-8")
    assert custom_modes.category_prompts("food", folder) == ["pizza", "soup"]
    assert custom_modes.category_prompts("any", folder / "food.txt") == ["pizza", "soup"]
    with pytest.raises(InputError, match="animal.txt: a category of food, found no animal.txt"):
        custom_modes.category_prompts("animal", folder)
    with pytest.raises(InputError, match="a category name"):
        custom_modes.category_prompts("", folder)
