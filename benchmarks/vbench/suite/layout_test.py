"""vbench_standard's matching against upstream's build_full_info_json (test data from a run
of the official code, upstream_cases.py) and against hand-written expectations."""

import json

import pytest

from benchmarks.common.errors import InputError
from benchmarks.vbench.suite import layout
from benchmarks.vbench.suite import prompt_suite
from benchmarks.vbench.suite import upstream_cases

CASES = upstream_cases.cases()
SWIM = "a person swimming in ocean"  # the first subject_consistency prompt
TALK = "a person giving a presentation to a room full of colleagues"  # the second
DUP = "The bund Shanghai, oil painting"


@pytest.fixture(scope="module")
def entries():
    return prompt_suite.load().entries


def _standard(case, root, monkeypatch, entries):
    upstream_cases.build(case, root)
    monkeypatch.chdir(root)
    return layout.standard(case["videos_path"], entries, case["dimensions"],
                           case.get("special_str", ""))


@pytest.mark.parametrize("name", ["standard_missing_and_extra", "standard_special_str",
                                  "standard_duplicate_prompts"])
def test_standard_writes_upstream_s_full_info_byte_for_byte(name, tmp_path, monkeypatch,
                                                            entries):
    case = CASES[name]
    got = _standard(case, tmp_path, monkeypatch, entries)
    want = case["expected"]["sorted"]
    full = layout.full_info(got)
    assert upstream_cases.with_videos(full) == want["with_videos"]
    assert len(full) == want["length"]
    assert upstream_cases.digest(layout.full_info_text(got)) == want["sha256"]


def test_mixed_suffixes_take_the_best_matching_one_and_say_what_upstream_does(
        tmp_path, monkeypatch, entries):
    case = CASES["standard_mixed_suffixes"]
    got = _standard(case, tmp_path, monkeypatch, entries)
    # upstream: whichever suffix os.listdir() lists first decides; '' (.DS_Store) finds none
    assert [len(case["expected"][k]["with_videos"]) for k in
            ("first '.mp4'", "first '.avi'", "first ''")] == [1, 1, 0]
    assert got.suffix == ".mp4"
    assert (upstream_cases.digest(layout.full_info_text(got))
            == case["expected"]["first '.mp4'"]["sha256"])
    assert got.suffix_rule == (
        "the folder mixes suffixes: '.mp4' (5 entries, 5 expected videos), '.avi' (2 entries, "
        "2 expected videos), '' (1 entries, 0 expected videos); took '.mp4', the one "
        "matching the most expected names")
    assert "depends on the listing order" in got.notes[0]
    reasons = dict(got.unmatched)
    assert reasons[".DS_Store"] == "suffix '', not '.mp4' (the suffix standard mode looks for)"
    assert reasons[f"{TALK}-0.avi"].startswith("suffix '.avi'")


def test_missing_and_unmatched_are_named(tmp_path, monkeypatch, entries):
    got = _standard(CASES["standard_missing_and_extra"], tmp_path, monkeypatch, entries)
    # the subfolder "sub" has the suffix '': upstream would take it were it listed first
    assert got.suffix == ".mp4" and "'' (1 entries, 0 expected videos)" in got.suffix_rule
    assert len(got.entries) == 72 and got.dimensions == ("subject_consistency",)
    assert got.entries[0].missing == () and got.entries[0].video_list[0] == f"videos/{SWIM}-0.mp4"
    assert got.entries[1].missing == tuple(f"{TALK}-{i}.mp4" for i in (1, 3, 4))
    assert got.entries[2].video_list == () and len(got.entries[2].missing) == 5  # kept
    assert len(got.missing) == 72 * 5 - 7 and got.missing[:3] == got.entries[1].missing
    assert dict(got.unmatched) == {
        f"{SWIM}-5.mp4": "index 5: standard mode reads only -0 to -4",
        f"{TALK}-01.mp4": "index 01: standard mode reads only -0 to -4",
        "random.mp4": "not named <prompt>-<0..4>.mp4",
        "In a still frame, a stop sign-0.mp4":
            "its prompt serves temporal_flickering, none of the requested dimensions",
        "sub": "a folder",
    }


def test_special_str_is_part_of_the_name(tmp_path, monkeypatch, entries):
    got = _standard(CASES["standard_special_str"], tmp_path, monkeypatch, entries)
    assert dict(got.unmatched) == {
        f"{TALK}-0.mp4": "does not end in the special_str '_v2' before -<index>"}
    swim = next(e for e in got.entries if e.prompt_en == SWIM)
    assert swim.video_list == tuple(f"videos/{SWIM}_v2-{i}.mp4" for i in range(3))
    assert swim.missing == (f"{SWIM}_v2-3.mp4", f"{SWIM}_v2-4.mp4")


def test_duplicate_prompts_share_their_videos_and_missing_names_count_once(
        tmp_path, monkeypatch, entries):
    got = _standard(CASES["standard_duplicate_prompts"], tmp_path, monkeypatch, entries)
    both = [e for e in got.entries if e.prompt_en == DUP]
    assert [e.dimension for e in both] == [
        ("appearance_style",), ("overall_consistency", "aesthetic_quality", "imaging_quality")]
    assert both[0].video_list == both[1].video_list and len(both[0].video_list) == 5
    assert both[0].auxiliary_info == {"appearance_style": {"appearance_style": "oil painting"}}
    hokusai = [e for e in got.entries if "Hokusai, in the style of Ukiyo" in e.prompt_en
               and e.prompt_en.startswith("A beautiful coastal beach in spring, waves")]
    assert len(hokusai) == 2 and hokusai[0].missing == hokusai[1].missing
    assert got.missing.count(hokusai[0].missing[0]) == 1


@pytest.mark.parametrize("files, suffix", [
    ([f"{SWIM}-0.avi", f"{TALK}-0.mkv"], ".avi"),  # tie: the smaller string
    ([f"{SWIM}-0.avi", f"{TALK}-0.mp4"], ".mp4"),  # tie: .mp4 first
    ([f"{SWIM}-0.avi", f"{TALK}-0.mp4", "x.mp4"], ".mp4"),  # tie: more files
    ([f"{SWIM}-0.avi", f"{SWIM}-1.avi", "x.mp4", "y.mp4", "z.mp4"], ".avi"),  # most found
    ([".DS_Store", f"{SWIM}-0.webm"], ".webm"),
])
def test_the_suffix_choice_is_deterministic(tmp_path, entries, files, suffix):
    for name in files:
        (tmp_path / name).write_bytes(b"")
    got = layout.standard(tmp_path, entries, ["subject_consistency"])
    assert got.suffix == suffix and got.notes


def test_a_suite_object_with_a_video_list_keeps_its_key_position(tmp_path):
    raw = {"prompt_en": "a", "video_list": ["old"], "dimension": ["scene"]}
    suite = prompt_suite.parse([raw], "user.json")
    (tmp_path / "a-2.mp4").write_bytes(b"")
    got = layout.standard(str(tmp_path), suite, ["scene"])
    text = layout.full_info_text(got)
    assert list(json.loads(text)[0]) == ["prompt_en", "video_list", "dimension"]
    assert json.loads(text)[0]["video_list"] == [str(tmp_path / "a-2.mp4")]
    assert raw["video_list"] == ["old"]  # the suite is not modified


def test_non_ascii_prompts_are_escaped_as_json_dump_does(tmp_path, monkeypatch, entries):
    got = _standard(CASES["standard_special_str"], tmp_path, monkeypatch, entries)
    text = layout.full_info_text(got)
    assert "fa\\u00e7ades" in text and text.isascii() and not text.endswith("\n")


def test_an_empty_folder_or_no_folder_is_an_input_error(tmp_path, entries):
    with pytest.raises(InputError, match="found an empty folder"):
        layout.standard(tmp_path, entries, ["scene"])
    (tmp_path / "x.mp4").write_bytes(b"")
    with pytest.raises(InputError, match="x.mp4: expected --videos_path: a folder of VBench videos.*a file"):
        layout.standard(tmp_path / "x.mp4", entries, ["scene"])
    with pytest.raises(InputError, match="no such file or folder"):
        layout.standard(tmp_path / "absent", entries, ["scene"])


def test_one_suffix_is_upstream_s_choice_whatever_the_order(tmp_path, entries):
    for name in (f"{SWIM}-0.avi", "notes.avi"):
        (tmp_path / name).write_bytes(b"")
    got = layout.standard(tmp_path, entries, ["subject_consistency"])
    assert got.suffix == ".avi" and got.notes == ()
    assert got.suffix_rule == "every entry of the folder has the suffix '.avi'"
    assert got.entries[0].video_list == (str(tmp_path / f"{SWIM}-0.avi"),)
