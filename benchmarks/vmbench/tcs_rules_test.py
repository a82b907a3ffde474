"""//benchmarks/vmbench:tcs_rules as a user runs it."""

import json
import os
import pathlib
import re
import subprocess

import numpy as np

from tools.fixtures import vmbench_clips


def _run(*args):
    binary = pathlib.Path(os.environ["TEST_SRCDIR"]) / "worldeval/benchmarks/vmbench/tcs_rules"
    return subprocess.run([str(binary), *args], capture_output=True, text=True, timeout=120,
                          check=False)


def test_one_event_faithful_and_corrected(tmp_path):
    tracks = np.tile(np.linspace(30, 70, 10, dtype=np.float32)[None, :, None], (49, 1, 2))
    vis = np.ones((49, 10), bool)
    vis[10:13] = False  # fully invisible in frames 10-12 only
    np.save(tmp_path / "t.npy", tracks)
    np.save(tmp_path / "v.npy", vis)
    common = [f"--tracks={tmp_path / 't.npy'}", f"--visibility={tmp_path / 'v.npy'}",
              "--first_keyframe=2", "--fps=8", "--width=100", "--height=100"]
    faithful = json.loads(_run(*common).stdout)
    assert faithful["query_frame"] == 2 and faithful["counts"]
    corrected = json.loads(_run(*common, "--query_frame_mode=corrected").stdout)
    assert corrected["query_frame"] == 14 and corrected["detect_error"]


def test_whole_video_with_the_lk_tracker(tmp_path):
    frames, mask = vmbench_clips.square_clip(4, frames=17)
    video = vmbench_clips.write_mp4(tmp_path / "0001.mp4", frames)
    np.save(tmp_path / "m.npy", mask)
    (tmp_path / "k.json").write_text(json.dumps(
        {"objects_count": 1, "keyframes": [{"1": "m.npy"}, {}, {}]}))
    done = _run(f"--keyframes_json={tmp_path / 'k.json'}", f"--video={video}")
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    # The square never becomes invisible to LK: a detection error, so TCS stays 1.
    assert out["temporal_coherence_score"] == 1.0 and out["step"] == 7
    assert out["events"][0]["detect_error"] and "NOT official" in out["tracker"]


def test_bad_input_exits_2(tmp_path):
    (tmp_path / "k.json").write_text("{}")
    done = _run(f"--keyframes_json={tmp_path / 'k.json'}", f"--video={tmp_path / 'x.mp4'}")
    assert done.returncode == 2 and "k.json: expected" in done.stderr
    done = _run("--tracks=/nonexistent.npy", "--visibility=/n.npy", "--fps=1.5",
                "--width=1", "--height=1")
    assert done.returncode == 2


# An MPEG-4 Part 2 frame (VOP) start code: write_mp4's mp4v clips have one per frame.
_FRAME_START = b"\x00\x00\x01\xb6"


def test_a_video_damaged_mid_stream_exits_2_naming_it(tmp_path):
    """OpenCV stops decoding at the damage without an error of its own: the tool refuses
    the video (as the VMBench runner does) instead of tracking fewer frames."""
    frames, mask = vmbench_clips.square_clip(4, frames=17)
    video = vmbench_clips.write_mp4(tmp_path / "0001.mp4", frames)
    data = bytearray(video.read_bytes())
    start = [m.start() for m in re.finditer(re.escape(_FRAME_START), bytes(data))][6]
    assert start + 2000 < data.find(b"moov"), "the damage must stay in the frame data"
    data[start:start + 2000] = bytes(range(256)) * 7 + bytes(208)
    video.write_bytes(bytes(data))
    np.save(tmp_path / "m.npy", mask)
    (tmp_path / "k.json").write_text(json.dumps(
        {"objects_count": 1, "keyframes": [{"1": "m.npy"}, {}, {}]}))
    done = _run(f"--keyframes_json={tmp_path / 'k.json'}", f"--video={video}")
    assert done.returncode == 2, (done.returncode, done.stdout, done.stderr)
    assert "Traceback" not in done.stderr
    assert f"{video}: expected the 17 frames its container declares" in done.stderr
