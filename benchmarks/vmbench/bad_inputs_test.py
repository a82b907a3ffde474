"""VMBench in the engine's shared bad-inputs suite (benchmarks/common/bad_inputs.py).

The clean tree is three synthetic <index>.mp4 videos (a textured square moving 3, 1 and
2 px per frame) and their prompts.json; PAS runs with the weight-free LK backend. Each
defect damages one video or the manifest; the suite checks the exit code, the message
naming the file, and that every other video's numbers equal the clean run's.
"""

import json
import os
import pathlib
import re

import pytest

from benchmarks.common import bad_import_values
from benchmarks.common import bad_inputs
from benchmarks.common import engine
from benchmarks.common.errors import InputError
from benchmarks.common.flags import CommonConfig
from benchmarks.vmbench import importer
from benchmarks.vmbench import metric_specs
from benchmarks.vmbench import runner
from tools.fixtures import vmbench_clips
from tools.fixtures import vmbench_results

V1, V2, V3 = ("", "0001"), ("", "0002"), ("", "0003")
STEPS = {"0001": 3, "0002": 1, "0003": 2}
D = bad_inputs.Defect


def _video(tree: pathlib.Path, index: str) -> pathlib.Path:
    return tree / "videos" / f"{index}.mp4"


def _build(tree: pathlib.Path) -> None:
    for index, step in STEPS.items():
        vmbench_clips.write_mp4(_video(tree, index), vmbench_clips.square_clip(step, frames=9)[0])
    prompts = [{"prompt": "a square slides", "subject": "a square", "subject_noun": "square",
                "place": "a wall", "action": "slides", "index": index} for index in STEPS]
    (tree / "prompts.json").write_text(json.dumps(prompts))


def _invoke(tree: pathlib.Path, out: pathlib.Path, resume: bool) -> bad_inputs.Run:
    config = runner.VmbenchConfig(
        common=CommonConfig(offline=True, resume=resume, metrics=("pas",)),
        video_dir=tree / "videos", prompt_manifest=tree / "prompts.json", output_dir=out,
        model_name="m")
    try:
        card = runner.run(config)
    except InputError as e:  # what app_main turns into exit 2
        return bad_inputs.Run(2, f"error: {e}")
    recomputed = engine.recomputed_keys(card.notes)
    return bad_inputs.Run(1 if card.coverage.internal_error_sample_ids else 0, "", recomputed)


def _write(data: bytes):
    return lambda tree: _video(tree, "0002").write_bytes(data)


def _truncate(tree):
    path = _video(tree, "0002")
    path.write_bytes(path.read_bytes()[: path.stat().st_size // 3])


# An MPEG-4 Part 2 frame (VOP) start code: write_mp4's mp4v clips have one per frame.
_FRAME_START = b"\x00\x00\x01\xb6"


def _damaged_mid_stream(tree):
    """2000 bytes overwritten from frame 4's start on, inside the frame data (the index at
    the end is intact): OpenCV decodes frames 0-3 and stops, with no error of its own."""
    path = _video(tree, "0002")
    data = bytearray(path.read_bytes())
    start = [m.start() for m in re.finditer(re.escape(_FRAME_START), bytes(data))][4]
    assert start + 2000 < data.find(b"moov"), "the damage must stay in the frame data"
    data[start:start + 2000] = bytes(range(256)) * 7 + bytes(208)
    path.write_bytes(bytes(data))


def _concealed_mid_stream(tree):
    """200 bytes overwritten inside frame 4's data: OpenCV still decodes all 9 frames
    (the decoder conceals the damaged macroblocks), FFmpeg's decoder logs "ac-tex
    damaged". The video is scored on OpenCV's frames, with a warning."""
    path = _video(tree, "0002")
    data = bytearray(path.read_bytes())
    start = [m.start() for m in re.finditer(re.escape(_FRAME_START), bytes(data))][4] + 40
    data[start:start + 200] = bytes((i * 37 + 11) % 256 for i in range(200))
    path.write_bytes(bytes(data))


def _dangling_link(tree):
    _video(tree, "0002").unlink()
    os.symlink("no-such-video.mp4", _video(tree, "0002"))


def _link_loop(tree):
    _video(tree, "0002").unlink()
    os.symlink("0002.mp4", _video(tree, "0002"))


def _one_frame(tree):
    vmbench_clips.write_mp4(_video(tree, "0002"), vmbench_clips.square_clip(1, frames=1)[0])


def _other_motion(tree):
    vmbench_clips.write_mp4(_video(tree, "0002"), vmbench_clips.square_clip(4, frames=9)[0])


def _manifest(text: str):
    return lambda tree: (tree / "prompts.json").write_text(text)


def _duplicate_index(tree):
    prompts = json.loads((tree / "prompts.json").read_text())
    (tree / "prompts.json").write_text(json.dumps(prompts + [prompts[0]]))


DEFECTS = [
    D("zero_length_video", _write(b""), (V2,), fragments=("0002.mp4", "zero-length")),
    D("not_a_video", _write(b"not an mp4 at all"), (V2,), fragments=("0002.mp4",)),
    D("truncated_video", _truncate, (V2,), fragments=("0002.mp4",)),
    D("damaged_mid_stream", _damaged_mid_stream, (V2,),
      fragments=("0002.mp4", "the 9 frames its container declares", "only 4 decodable")),
    D("concealed_mid_stream", _concealed_mid_stream, (V2,), where="warning",
      fragments=("0002.mp4", "ffmpeg's decoder reports", "OpenCV conceals")),
    D("dangling_symlink", _dangling_link, (V2,),
      fragments=("0002.mp4", "a link to nothing (no-such-video.mp4)")),
    D("symlink_loop", _link_loop, (V2,), fragments=("0002.mp4", "a symlink loop")),
    D("one_frame_video", _one_frame, (V2,), fragments=("0002.mp4", "at least 2 frames")),
    D("manifest_not_json", _manifest("{not json"), exit_code=2,
      fragments=("prompts.json", "a JSON file")),
    D("manifest_not_a_list", _manifest('{"index": "0001"}'), exit_code=2,
      fragments=("prompts.json", "a JSON list of prompt objects")),
    D("manifest_duplicate_index", _duplicate_index, exit_code=2,
      fragments=("prompts.json", "each index once", "index 0001")),
    D("resume_changed_video", _other_motion, (V2,), resume=True),
    D("resume_moved_tree", lambda tree: None, (), resume=True, moved=True),
] + bad_inputs.computed_value_defects(  # the runner's own PAS of 0001: NaN, then below 0
    V1, vmbench_results.PAS, metric_specs.BY_ID[vmbench_results.PAS].official_range)


@pytest.fixture(scope="module")
def harness(tmp_path_factory):
    suite = bad_inputs.Suite(build_clean=_build, invoke=_invoke, defects=DEFECTS)
    return bad_inputs.Harness(suite, tmp_path_factory.mktemp("bad_inputs"))


@pytest.mark.parametrize("name", [d.name for d in DEFECTS])
def test_defect(harness, name):
    harness.check(harness.defect(name))


@pytest.mark.parametrize("name, found", [
    ("dangling_symlink", "a link to nothing (no-such-video.mp4)"),
    ("symlink_loop", "a symlink loop"),
])
def test_an_unreadable_video_is_in_the_artifact_manifest_with_its_error(harness, name, found):
    harness.check(harness.defect(name))
    manifest = json.loads((harness.workdir / name / "out" / "artifact_manifest.json")
                          .read_text())
    entries = {a["sample_id"]: a for a in manifest["artifacts"]}
    assert set(entries) == set(STEPS)
    bad = entries["0002"]
    assert "0002.mp4" in bad["error"] and found in bad["error"], bad
    assert not bad.get("size_bytes") and not bad.get("sha256"), bad
    assert all(not entries[i].get("error") and entries[i]["sha256"] for i in ("0001", "0003"))


def test_an_unreadable_video_another_shard_scores_is_in_this_shards_manifest(tmp_path):
    tree = tmp_path / "tree"
    _build(tree)
    _dangling_link(tree)
    seen_elsewhere = 0
    for shard in range(3):
        out = tmp_path / f"shard{shard}"
        runner.run(runner.VmbenchConfig(
            common=CommonConfig(offline=True, metrics=("pas",), num_shards=3,
                                shard_index=shard),
            video_dir=tree / "videos", prompt_manifest=tree / "prompts.json", output_dir=out,
            model_name="m"))
        scored = bad_inputs.read_samples(out)
        manifest = json.loads((out / "artifact_manifest.json").read_text())
        bad = next(a for a in manifest["artifacts"] if a["sample_id"] == "0002")
        assert "a link to nothing (no-such-video.mp4)" in bad["error"], bad
        if V2 not in scored:
            seen_elsewhere += 1
            assert bad["error"].endswith("expected a readable <index>.mp4 video file, found "
                                         "a link to nothing (no-such-video.mp4)"), bad
    assert seen_elsewhere == 2


# The importer on results.json (all 1,050 videos) with video 0002's OIS replaced by each
# of the shared value cases, dumped as the official scripts dump it (NaN, Infinity bare).
IMPORT = bad_import_values.ImportSuite(
    write=lambda folder, value: _results_json(folder, value),
    load=lambda folder: _imported(importer.build("m", folder / "results.json")),
    metric=vmbench_results.OIS, sample=V2,
    bounds=metric_specs.BY_ID[vmbench_results.OIS].official_range)


def _results_json(folder: pathlib.Path, value) -> None:
    entries = vmbench_results.full()
    if value is not None:
        entries[1][vmbench_results.OIS] = value
    (folder / "results.json").write_text(json.dumps(entries, indent=2))


def _imported(imported):
    return imported.card, imported.samples


import_harness, test_import_value = bad_import_values.pytest_tests(IMPORT)


if __name__ == "__main__":
    raise SystemExit(pytest.main([__file__, "-q"]))
