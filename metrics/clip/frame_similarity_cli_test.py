"""Tests for the //metrics/clip:frame_similarity binary: its main called in-process
(binary_runner.run_in_process) and, for a missing required flag, run as a subprocess.

A tiny random tower is laid out as --checkpoint_dir wants; expected values come
from metrics.clip.frame_similarity on the same frames (lossless PNG; the video reference
is read back with metrics.video.frames, as the binary reads it).
"""

import json

import cv2
import numpy as np
import pytest

from metrics.clip import tiny_clip
from metrics.clip import reference_transform
from metrics.clip import frame_similarity
from metrics.clip import vision
from metrics.testing import binary_runner
from metrics.video import frames as frames_lib

_FETCH = "huggingface-cli download openai/clip-vit-base-patch32 --revision main --local-dir "


_BINARY = binary_runner.Binary("metrics/clip", "frame_similarity",
                               "metrics.clip.frame_similarity_cli")
_run = _BINARY.run


def _error_line(done):
    assert done.returncode == 2, done.stderr
    assert done.stdout == ""
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), done.stderr
    return lines[0]


def _write_folder(folder, frames):
    folder.mkdir()
    for i, frame in enumerate(frames):
        assert cv2.imwrite(str(folder / f"{i:05d}.png"), frame)
    return folder


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    """Checkpoint dir, generated folder (21 frames), reference folder (30 frames) and video."""
    root = tmp_path_factory.mktemp("data")
    tiny_clip.write_vision_snapshot(root / "ckpt" / frame_similarity.CLIP_VIT_B32.name,
                                        projection_dim=512, seed=31)
    gen = np.stack([reference_transform.smooth_frame(60, 80, seed=i) for i in range(21)])
    gt = np.stack([reference_transform.smooth_frame(90, 120, seed=50 + i) for i in range(30)])
    video = root / "gt.avi"
    writer = cv2.VideoWriter(str(video), cv2.VideoWriter_fourcc(*"MJPG"), 10, (120, 90))
    assert writer.isOpened()
    for frame in gt:
        writer.write(frame)
    writer.release()
    return {"ckpt": root / "ckpt", "gen": _write_folder(root / "gen", gen),
            "gt": _write_folder(root / "gt", gt), "video": video, "gen_frames": gen,
            "gt_frames": gt}


def _expected(data, pairs, frames_at, activation="gelu", gen=None):
    model = vision.load_clip_vision(data["ckpt"] / frame_similarity.CLIP_VIT_B32.name, "cpu",
                                    activation)
    gen = data["gen_frames"] if gen is None else gen
    return frame_similarity.pair_similarities(gen, frames_at, pairs, model)


def _folder_at(data):
    return lambda idx: [data["gt_frames"][i] for i in idx]


def _run_json(tmp_path, data, *args):
    done = _run(tmp_path, "--json", "--device=cpu", "--offline",
                f"--checkpoint_dir={data['ckpt']}", f"--generated={data['gen']}", *args)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert len(lines) == 1, done.stdout
    return json.loads(lines[0])


def _check(record, pairs, expected):
    assert [(p["reference_index"], p["gen_index"]) for p in record["pairs"]] == pairs
    np.testing.assert_allclose([p["similarity"] for p in record["pairs"]], expected, atol=1e-5)
    assert abs(record["FrameSimilarity"] - float(np.mean(expected))) <= 1e-5
    assert record["FrameSimilarity"] == float(np.mean(
        [p["similarity"] for p in record["pairs"]]))


def test_folder_reference_pairs_match_library(tmp_path, data):
    record = _run_json(tmp_path, data, f"--reference={data['gt']}", "--pairs=12:17,16:23,20:29")
    pairs = [(17, 12), (23, 16), (29, 20)]
    _check(record, pairs, _expected(data, pairs, _folder_at(data)))
    assert -1.0 <= record["FrameSimilarity"] <= 1.0
    assert record["reference_frames"] == 30
    assert (record["num_frames"], record["frame_size"]) == (21, [80, 60])
    assert record["clip_activation"] == "gelu"
    assert record["checkpoint"]["source"] == "checkpoint_dir"
    assert record["checkpoint"]["path"] == str(data["ckpt"] / "clip_vit_base_patch32")


def test_video_reference_default_pairing_and_quick_gelu(tmp_path, data):
    record = _run_json(tmp_path, data, f"--reference={data['video']}",
                       "--clip_activation=quick_gelu")
    assert record["reference_frames"] == frames_lib.video_frame_count(data["video"]) == 30
    # Generated frame i against reference round(i * 29 / 20), half to even.
    pairs = [(int(round(i * 29 / 20)), i) for i in range(21)]
    assert pairs[:3] == [(0, 0), (1, 1), (3, 2)]

    def read(indices):
        return frames_lib.read_video_frames(data["video"], indices)

    _check(record, pairs, _expected(data, pairs, read, activation="quick_gelu"))


def test_text_output_and_max_side(tmp_path, data):
    done = _run(tmp_path, "--device=cpu", "--offline", f"--checkpoint_dir={data['ckpt']}",
                f"--generated={data['gen']}", f"--reference={data['gt']}", "--pairs=12:17,0:0",
                "--max_side=40")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == f"generated:       {data['gen']} (21 frames, 40x30)"
    assert lines[1] == f"reference:       {data['gt']} (30 frames)"
    assert lines[2] == "backbone:        CLIP ViT-B/32 (transformers), activation gelu, on cpu"
    assert [line.split(" -> ")[0] for line in lines[4:6]] == [
        "pair:            generated 12 vs reference 17",
        "pair:            generated 0 vs reference 0"]
    shrunk = np.stack([cv2.resize(f, (40, 30), interpolation=cv2.INTER_AREA)
                       for f in data["gen_frames"]])
    expected = _expected(data, [(17, 12), (0, 0)], _folder_at(data), gen=shrunk)
    assert lines[6].startswith("FrameSimilarity: ")
    assert abs(float(lines[6].split()[-1]) - float(np.mean(expected))) <= 1e-5


def test_missing_checkpoint_offline_exits_2_with_fetch_command(tmp_path, data):
    empty = tmp_path / "checkpoints"
    empty.mkdir()
    line = _error_line(_run(tmp_path, "--device=cpu", "--offline", f"--checkpoint_dir={empty}",
                            f"--generated={data['gen']}", f"--reference={data['gt']}"))
    assert _FETCH + f"{empty}/clip_vit_base_patch32" in line
    assert list(empty.iterdir()) == []


@pytest.mark.parametrize("args,message", [
    (["--pairs=21:17"], "--pairs: 21:17 out of range for 21 generated and 30 reference frames"),
    (["--pairs=3:30"], "--pairs: 3:30 out of range"),
    (["--pairs=3-4"], "--pairs: expected generated:reference index pairs, got '3-4'"),
    (["--device=tpu"], "--device=tpu"),
])
def test_bad_configuration_exits_2(tmp_path, data, args, message):
    done = _run(tmp_path, "--offline", f"--checkpoint_dir={data['ckpt']}",
                f"--generated={data['gen']}", f"--reference={data['gt']}", *args)
    assert message in _error_line(done)


def test_missing_reference_exits_2(tmp_path, data):
    line = _error_line(_run(tmp_path, "--offline", "--device=cpu",
                            f"--checkpoint_dir={data['ckpt']}", f"--generated={data['gen']}",
                            f"--reference={tmp_path / 'none.txt'}"))
    assert str(tmp_path / "none.txt") in line


def test_required_flag_exits_2(tmp_path):
    done = _BINARY.run_subprocess(tmp_path, "--generated=a")  # required under __main__
    assert done.returncode == 2
    assert "reference" in done.stderr.splitlines()[0]


if __name__ == "__main__":
    raise SystemExit(pytest.main([__file__, "-q"]))
