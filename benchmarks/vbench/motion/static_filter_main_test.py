"""//benchmarks/vbench/motion:static_filter on a tiny folder with random full-size
raft-things weights (tiny_raft_things, passed by --checkpoint): the binary scores the
matching videos' decoded frames with static_scores (the flags themselves:
static_scores_test) and writes the info file and copies static_filter.select gives."""

import importlib
import json
import pathlib

import numpy as np
import pytest

from benchmarks.common import app_main
from benchmarks.vbench.motion import static_filter
from benchmarks.vbench.motion import static_scores
from benchmarks.vbench.motion import synthetic_clips
from metrics.flow import tiny_raft_things
from metrics.testing import binary_runner

BINARY = binary_runner.Binary("benchmarks/vbench/motion", "static_filter",
                              "benchmarks.vbench.motion.static_filter_main")
CLIPS = [  # 128 x 128 (torchvision's RAFT needs 128 px), 1 frame: 2 loop pairs each
    synthetic_clips.ClipSpec("a cat-1", seed=1, count=1, height=128, width=128),
    synthetic_clips.ClipSpec("a cat-10", seed=2, count=1, height=128, width=128),
    synthetic_clips.ClipSpec("zebra-0", seed=4, count=1, height=128, width=128),
]


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    root = tmp_path_factory.mktemp("static")
    (root / "videos").mkdir()
    for spec in CLIPS:
        synthetic_clips.write_mp4(root / "videos" / f"{spec.name}.mp4", spec)
    tiny_raft_things.write_official_file(root / "raft-things.pth", seed=3)
    (root / "prompts.txt").write_text("a cat\na dog\na bird\n")
    return root


def test_binary_scores_the_matching_videos_and_copies_the_static_ones(folder, tmp_path,
                                                                      monkeypatch):
    # The real RAFT scores each matching video's decoded frames; random weights move
    # everything, so the wrapper then calls every video static for the copies to happen.
    seen = []
    real = static_scores.is_static_video

    def recorded(rgb, model):
        seen.append((rgb.copy(), real(rgb, model)))
        return True

    monkeypatch.setattr(static_scores, "is_static_video", recorded)
    out = tmp_path / "result"
    done = binary_runner.run_in_process(
        BINARY.module, tmp_path, f"--videos_path={folder / 'videos'}",
        f"--prompts={folder / 'prompts.txt'}", f"--result_path={out}",
        f"--checkpoint={folder / 'raft-things.pth'}", "--device=cpu", "--json",
        wrap=app_main.guard)
    assert done.returncode == 0, done.stderr
    paths = static_filter.video_paths(folder / "videos")  # a cat-1, a cat-10, zebra-0
    assert len(seen) == 2
    for path, (rgb, flag) in zip(paths, seen):
        assert np.array_equal(rgb, synthetic_clips.read_bgr(path)[..., ::-1])
        assert flag is False  # RAFT ran: hundreds of px of loop flow
    want = static_filter.select(paths, ["a cat", "a dog", "a bird"], lambda path: True)
    info = json.loads((out / "filtered_static_video.json").read_text())
    assert info == static_filter.info(want)
    assert info["a cat"]["static_path"] == paths[:2]
    target = out / "filtered_videos"
    assert sorted(p.name for p in target.iterdir()) == ["a cat-0.mp4", "a cat-1.mp4"]
    assert (target / "a cat-1.mp4").read_bytes() == pathlib.Path(paths[1]).read_bytes()
    assert json.loads(done.stdout)["static_videos"] == 2


def test_binary_subprocess_without_weights_exits_2(folder, tmp_path):
    done = BINARY.run_subprocess(tmp_path, f"--videos_path={folder / 'videos'}",
                                 f"--prompts={folder / 'prompts.txt'}", "--offline",
                                 f"--result_path={tmp_path / 'r'}", "--device=cpu")
    assert done.returncode == 2, done.stderr
    assert "raft-things.pth" in done.stderr


def test_binary_subprocess_with_no_matching_video_writes_empty_outputs(folder, tmp_path):
    prompts = tmp_path / "p.txt"
    prompts.write_text("a horse\n")
    done = BINARY.run_subprocess(tmp_path, f"--videos_path={folder / 'videos'}",
                                 f"--prompts={prompts}", f"--result_path={tmp_path / 'r'}",
                                 f"--checkpoint={folder / 'raft-things.pth'}", "--device=cpu")
    assert done.returncode == 0, done.stderr
    info = json.loads((tmp_path / "r" / "filtered_static_video.json").read_text())
    assert info == {"a horse": {"static_count": 0, "static_path": []}}
    assert not list((tmp_path / "r" / "filtered_videos").iterdir())


def test_an_empty_prompt_file_is_bad_input(folder, tmp_path):
    prompts = tmp_path / "p.txt"
    prompts.write_text("\n")
    done = binary_runner.run_in_process(
        BINARY.module, tmp_path, f"--videos_path={folder / 'videos'}", f"--prompts={prompts}",
        wrap=app_main.guard)
    assert done.returncode == 2 and "no prompt" in done.stderr


def test_frames_decode_as_the_runner_decodes_them(folder):
    from metrics.video import frames as frames_lib  # pylint: disable=import-outside-toplevel
    path = folder / "videos" / "a cat-1.mp4"
    assert np.array_equal(frames_lib.load_frames(path), synthetic_clips.read_bgr(path))


def test_a_video_too_small_for_raft_is_bad_input(folder, tmp_path):
    videos = tmp_path / "small"
    videos.mkdir()
    spec = synthetic_clips.ClipSpec("a cat-0", seed=5, count=2, height=64, width=64)
    synthetic_clips.write_mp4(videos / "a cat-0.mp4", spec)
    done = binary_runner.run_in_process(
        BINARY.module, tmp_path, f"--videos_path={videos}", f"--prompts={folder / 'prompts.txt'}",
        f"--result_path={tmp_path / 'r'}", f"--checkpoint={folder / 'raft-things.pth'}",
        "--device=cpu", wrap=app_main.guard)
    assert done.returncode == 2 and "RAFT needs 128" in done.stderr


def test_without_prompts_the_official_suite_s_flickering_prompts_are_used():
    prompts = importlib.import_module(BINARY.module).suite_prompts()
    assert len(prompts) == 75  # spec §2: temporal_flickering's prompt count
    assert prompts[0] == "In a still frame, a stop sign"  # the suite's first entry
