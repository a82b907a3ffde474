"""WorldScore's own files on a full disk (benchmarks/common/full_disk.py): evaluation.json,
worldscore.json and the staged instance's files are written whole or not at all, the
error names the file (app_main: exit 2), and a clean write is the official bytes."""

import errno
import json
import pathlib

import numpy as np
import pytest
from PIL import Image

from benchmarks.common import full_disk
from benchmarks.worldscore import official_json
from benchmarks.worldscore import staging
from metrics.video import frames as frames_lib
from tools.fixtures import worldscore_tree as tree

ENTRIES = {("camera_control", "camera_error"): ([3.0, 0.1], 0.8),
           ("object_control", "object_detection"): (0.5, 1 / 3)}


def _official_dump(path: pathlib.Path, data) -> bytes:
    with open(path, "w", encoding="utf-8") as f:  # process_batch / calculate_worldscore
        json.dump(data, f, indent=4)
    return path.read_bytes()


def test_evaluation_json_on_a_full_disk(monkeypatch, tmp_path):
    path = tmp_path / official_json.EVALUATION_JSON
    clean = full_disk.check_each_write(
        monkeypatch, lambda: official_json.write_evaluation(path, ENTRIES), path)
    assert clean == _official_dump(tmp_path / "official.json",
                                   official_json.evaluation_dict(ENTRIES))


def test_worldscore_json_on_a_full_disk(monkeypatch, tmp_path):
    scores = {k: 100 / (i + 3) for i, k in enumerate(official_json.WORLDSCORE_KEYS)}
    scores["motion_accuracy"] = 0  # an aspect never computed: the int 0
    path = tmp_path / official_json.WORLDSCORE_JSON
    clean = full_disk.check_each_write(
        monkeypatch, lambda: official_json.write_worldscore(path, scores), path)
    assert clean == _official_dump(tmp_path / "official.json", scores)
    assert clean.endswith(b"\n}")  # no trailing newline


def _files(folder: pathlib.Path) -> dict:
    return {p.relative_to(folder).as_posix(): p.read_bytes()
            for p in sorted(folder.rglob("*")) if p.is_file()}


def test_staging_on_a_full_disk_leaves_whole_files_and_names_the_one_it_could_not_write(
        monkeypatch, tmp_path):
    entry = tree.dynamic_entry("photorealistic", "fluid", "ball")
    data_root = tree.write_dataset(tmp_path / "data", dynamic=[entry])
    source = tmp_path / "clip"
    source.mkdir()
    rng = np.random.default_rng(5)
    for i in range(4):
        Image.fromarray(rng.integers(0, 256, (8, 12, 3), np.uint8)).save(source / f"{i:03d}.png")
    staged_dir = tmp_path / "staged"

    def stage():
        return staging.stage(source, data_root, staged_dir, 3)

    with monkeypatch.context() as mp:
        counted = full_disk.install(mp)
        staged = stage()
    folder = staged.generated_root / staged.keys[0]
    clean = _files(folder)
    # 3 frames, input_image.png, image_data.json: one write each
    assert counted.writes == len(clean) == 5, (counted.writes, sorted(clean))
    # The bytes the official helper's Image.save(path) and write_text(json.dumps) write.
    bgr = frames_lib.load_frames(source)
    for name, frame in [(f"frames/{i:03d}.png", bgr[i]) for i in range(3)] + [
            ("input_image.png", bgr[0])]:
        Image.fromarray(frame[..., ::-1]).save(tmp_path / "official.png")
        assert clean[name] == (tmp_path / "official.png").read_bytes(), name
    assert clean["image_data.json"] == json.dumps(
        dict(entry, num_scenes=1, total_frames=3), indent=4).encode()

    for fail_at in range(1, counted.writes + 1):
        with monkeypatch.context() as mp:
            full_disk.install(mp, fail_at)
            with pytest.raises(OSError) as raised:
                stage()
        named = pathlib.Path(raised.value.filename)
        assert raised.value.errno == errno.ENOSPC and folder in named.parents, fail_at
        assert not named.exists() and not list(staged_dir.rglob("*.tmp")), fail_at
        left = _files(folder)
        assert len(left) == fail_at - 1, (fail_at, sorted(left))
        assert all(clean[name] == blob for name, blob in left.items()), fail_at
