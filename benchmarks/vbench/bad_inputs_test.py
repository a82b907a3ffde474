"""VBench in the engine's shared bad-inputs suite (benchmarks/common/bad_inputs.py).

The clean tree is the synthetic VBench-shaped sample (tools/fixtures/vbench_clips.py:
full_info.json and videos/{prompt}-{i}.mp4, six frames each), scored on the weight-free
temporal_flickering only, so the five videos of the "frozen in time" prompt are the
samples (the suite's other ten videos serve no requested dimension). Each defect damages
a copy of it one way: a video that is not one (text bytes, a truncated or empty file, a
link to nothing) is that video's error naming the file, the other four scored as in the
clean run; a --videos_path that is missing, a file or empty, a --full_info_json that is
not JSON, not a list or has an entry without prompt_en, and a custom_input --prompt_file
that leaves a video without a prompt are refused (exit 2) before any work, naming the
path; a resume recomputes exactly the video that changed; a value out of
temporal_flickering's official range [0, 1] is a worldeval bug, left out.

The importer's value cases (bad_import_values) on temporal_flickering are run by
results/importer_test.py; they are not repeated here.
"""

import json
import os
import pathlib
import shutil

import pytest

from benchmarks.common import bad_inputs
from benchmarks.common import engine
from benchmarks.common.errors import InputError
from benchmarks.common.flags import CommonConfig
from benchmarks.vbench import metric_specs
from benchmarks.vbench import runner
from metrics.video.frames import FrameInputError
from tools.fixtures import fixture_io
from tools.fixtures import mirabench_clips
from tools.fixtures import vbench_clips

DIMENSION = "temporal_flickering"
PROMPT = vbench_clips.PROMPTS[1][0]  # "a textured wall, frozen in time": temporal_flickering
assert DIMENSION in vbench_clips.PROMPTS[1][1]
FRAMES = 6
VIDEOS, FULL_INFO, PROMPT_FILE = vbench_clips.VIDEOS, vbench_clips.FULL_INFO, "prompts.json"
D = bad_inputs.Defect


def _name(i: int) -> str:
    return f"{PROMPT}-{i}.mp4"


def _key(i: int) -> bad_inputs.Key:
    return ("generated", _name(i))


def _video(tree: pathlib.Path, i: int) -> pathlib.Path:
    return tree / VIDEOS / _name(i)


def _build(tree: pathlib.Path) -> None:
    vbench_clips.write_sample(tree, frame_counts=(FRAMES,) * vbench_clips.VIDEOS_PER_PROMPT)



def _invoke(tree: pathlib.Path, out: pathlib.Path, resume: bool) -> bad_inputs.Run:
    """The runner on `tree` in vbench_standard with the tree's full_info.json; in
    custom_input with --prompt_file where the tree holds a prompts.json (a defect's)."""
    custom = (tree / PROMPT_FILE).exists()
    config = runner.VBenchConfig(
        common=CommonConfig(metrics=(DIMENSION,), offline=True, device="cpu", resume=resume),
        videos_path=tree / VIDEOS, output_dir=out, model_name="m", name="m",
        mode=runner.CUSTOM if custom else runner.STANDARD,
        prompt_file=tree / PROMPT_FILE if custom else None,
        full_info_json=None if custom else tree / FULL_INFO)
    try:
        card = runner.run(config)
    except (InputError, FrameInputError) as e:  # what app_main turns into exit 2
        return bad_inputs.Run(2, f"error: {e}")
    return bad_inputs.Run(1 if card.coverage.internal_error_sample_ids else 0, "",
                          engine.recomputed_keys(card.notes))


def _write(data: bytes):
    return lambda tree: _video(tree, 2).write_bytes(data)


def _truncate(tree):
    path = _video(tree, 2)
    path.write_bytes(path.read_bytes()[: path.stat().st_size // 3])


def _dangling_link(tree):
    _video(tree, 2).unlink()
    os.symlink("no-such-video.mp4", _video(tree, 2))


def _videos_is_a_file(tree):
    shutil.rmtree(tree / VIDEOS)
    (tree / VIDEOS).write_text("not a folder")


def _videos_empty(tree):
    shutil.rmtree(tree / VIDEOS)
    (tree / VIDEOS).mkdir()


def _full_info(text: str):
    return lambda tree: (tree / FULL_INFO).write_text(text)


def _entry_without_prompt(tree):
    suite = json.loads((tree / FULL_INFO).read_text())
    del suite[1]["prompt_en"]
    (tree / FULL_INFO).write_text(json.dumps(suite, indent=4))


def _prompt_file_missing_one(tree):
    """custom_input: a prompt for every video of the folder but one."""
    names = sorted(os.listdir(tree / VIDEOS))
    prompts = {n: n.rsplit("-", 1)[0] for n in names if n != _name(3)}
    assert len(prompts) == len(names) - 1
    (tree / PROMPT_FILE).write_text(json.dumps(prompts))


def _other_video(tree):
    frames = mirabench_clips.static_clip(FRAMES, 77, vbench_clips.HEIGHT, vbench_clips.WIDTH)
    frames[1::2] //= 2  # flickers: its value differs from the clean video's
    fixture_io.write_mp4(_video(tree, 2), frames, vbench_clips.FPS)


DEFECTS = [
    # A file in the folder named as a video but not one: that video's error, naming it.
    D("not_a_video", _write(b"this is text, not an mp4"), (_key(2),), fragments=(_name(2),)),
    D("truncated_video", _truncate, (_key(2),), fragments=(_name(2),)),
    # (The shared decoder does not say the file is empty: see the report.)
    D("zero_length_video", _write(b""), (_key(2),),
      fragments=(_name(2), "a file OpenCV cannot open")),
    D("dangling_symlink", _dangling_link, (_key(2),),
      fragments=(_name(2), "a link to nothing (no-such-video.mp4)")),
    # --videos_path unusable: refused before any work, naming it.
    D("videos_path_missing", lambda tree: shutil.rmtree(tree / VIDEOS), exit_code=2,
      fragments=(f"{VIDEOS}: expected --videos_path: a folder of VBench videos", "no such file or folder")),
    D("videos_path_is_a_file", _videos_is_a_file, exit_code=2,
      fragments=(f"{VIDEOS}: expected --videos_path: a folder of VBench videos", "found a file")),
    D("videos_path_empty", _videos_empty, exit_code=2,
      fragments=(f"{VIDEOS}: expected --videos_path: a folder of VBench videos", "found an empty folder")),
    # --full_info_json unusable: refused, naming the file.
    D("full_info_not_json", _full_info("[{not json"), exit_code=2,
      fragments=(f"{FULL_INFO}: expected a UTF-8 JSON file", "JSONDecodeError")),
    D("full_info_not_a_list", _full_info('{"prompt_en": "a cat", "dimension": []}'),
      exit_code=2, fragments=(f"{FULL_INFO}: expected a JSON list of", "found dict")),
    D("full_info_entry_without_prompt", _entry_without_prompt, exit_code=2,
      fragments=(f"{FULL_INFO}: expected entry 1 to have a non-empty string prompt_en",
                 "found no prompt_en")),
    # custom_input: a --prompt_file that leaves a video without a prompt (upstream stops
    # with an assertion).
    D("prompt_file_missing_a_video", _prompt_file_missing_one, exit_code=2,
      fragments=(f"{PROMPT_FILE}: expected a prompt for every video of --videos_path",
                 f"none for 1: {_name(3)}")),
    # Resume keyed on inputs: a changed video is recomputed, and only it; a moved tree
    # recomputes nothing.
    D("resume_changed_video", _other_video, (_key(2),), resume=True),
    D("resume_moved_tree", lambda tree: None, (), resume=True, moved=True),
] + bad_inputs.computed_value_defects(  # the runner's own temporal_flickering of video 2
    _key(2), DIMENSION, metric_specs.BY_ID[DIMENSION].official_range)


@pytest.fixture(scope="module")
def harness(tmp_path_factory):
    suite = bad_inputs.Suite(build_clean=_build, invoke=_invoke, defects=DEFECTS)
    return bad_inputs.Harness(suite, tmp_path_factory.mktemp("bad_inputs"))


def test_the_clean_run_scores_the_five_frozen_videos(harness):
    assert set(harness.clean) == {_key(i) for i in range(vbench_clips.VIDEOS_PER_PROMPT)}
    assert all(DIMENSION in s["metrics"] for s in harness.clean.values())


@pytest.mark.parametrize("name", [d.name for d in DEFECTS
                                  if d.name != "resume_changed_video"])
def test_defect(harness, name):
    harness.check(harness.defect(name))


def test_a_broken_video_is_out_of_the_official_files_and_named_in_coverage(harness):
    """The official {name}_eval_results.json lists the four scored videos, its aggregate
    their mean; the scorecard names the broken one with its error."""
    harness.check(harness.defect("not_a_video"))
    out = harness.workdir / "not_a_video" / "out"
    aggregate, videos = json.loads((out / "m_eval_results.json").read_text())[DIMENSION]
    assert [v["video_path"].rsplit("/", 1)[1] for v in videos] == [
        _name(i) for i in (0, 1, 3, 4)]
    values = [harness.clean[_key(i)]["metrics"][DIMENSION] for i in (0, 1, 3, 4)]
    assert aggregate == pytest.approx(sum(values) / 4, rel=1e-12)
    card = json.loads((out / "scorecard.json").read_text())
    result = next(m for m in card["metrics"] if m["id"] == DIMENSION)
    assert result["sample_count"] == 4
    assert f"generated/{_name(2)}" in result["missing_sample_ids"]
    assert "the video failed" in result["missing_reasons"][f"generated/{_name(2)}"]


def test_resume_recomputes_exactly_the_changed_video(harness):
    """Only the changed video is recomputed, and its value is not the clean one (the
    resume check is not vacuous)."""
    harness.check(harness.defect("resume_changed_video"))
    resumed = bad_inputs.read_samples(harness.workdir / "resume_changed_video" / "out")
    assert resumed[_key(2)]["metrics"][DIMENSION] != harness.clean[_key(2)]["metrics"][
        DIMENSION]


def test_the_harness_can_fail(harness):
    """A defect whose expectation is wrong is caught (the suite is not vacuous)."""
    wrong = D("wrong_expectation", _write(b"text"), (_key(3),), fragments=(_name(3),))
    with pytest.raises(AssertionError):
        harness.check(wrong)


if __name__ == "__main__":
    raise SystemExit(pytest.main([__file__, "-q"]))
