"""VMBench in the engine's shared bad-inputs suite (benchmarks/common/bad_inputs.py).

The clean tree is three synthetic <index>.mp4 videos (a textured square moving 3, 1 and
2 px per frame) and their prompts.json; PAS runs with the weight-free LK backend. Each
defect damages one video or the manifest; the suite checks the exit code, the message
naming the file, and that every other video's numbers equal the clean run's.
"""

import json
import pathlib

import pytest

from benchmarks.common import bad_inputs
from benchmarks.common.errors import InputError
from benchmarks.common.flags import CommonConfig
from benchmarks.vmbench import runner
from benchmarks.vmbench import verification
from tools.fixtures import vmbench_clips

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
    recomputed = frozenset(
        tuple(item.split("/", 1)) for note in card.notes
        if note.startswith(verification.RECOMPUTED_NOTE)
        for item in note.split(": ", 1)[1].split(", "))
    return bad_inputs.Run(1 if card.coverage.internal_error_sample_ids else 0, "", recomputed)


def _write(data: bytes):
    return lambda tree: _video(tree, "0002").write_bytes(data)


def _truncate(tree):
    path = _video(tree, "0002")
    path.write_bytes(path.read_bytes()[: path.stat().st_size // 3])


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
    D("one_frame_video", _one_frame, (V2,), fragments=("0002.mp4", "at least 2 frames")),
    D("manifest_not_json", _manifest("{not json"), exit_code=2,
      fragments=("prompts.json", "a JSON file")),
    D("manifest_not_a_list", _manifest('{"index": "0001"}'), exit_code=2,
      fragments=("prompts.json", "a JSON list of prompt objects")),
    D("manifest_duplicate_index", _duplicate_index, exit_code=2,
      fragments=("prompts.json", "each index once", "index 0001")),
    D("resume_changed_video", _other_motion, (V2,), resume=True),
    D("resume_moved_tree", lambda tree: None, (), resume=True, moved=True),
]


@pytest.fixture(scope="module")
def harness(tmp_path_factory):
    suite = bad_inputs.Suite(build_clean=_build, invoke=_invoke, defects=DEFECTS)
    return bad_inputs.Harness(suite, tmp_path_factory.mktemp("bad_inputs"))


@pytest.mark.parametrize("name", [d.name for d in DEFECTS])
def test_defect(harness, name):
    harness.check(harness.defect(name))


if __name__ == "__main__":
    raise SystemExit(pytest.main([__file__, "-q"]))
