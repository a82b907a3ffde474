"""The //metrics/iqa:musiq binary on a tiny pyiqa-format MUSIQ file and synthetic frames."""

import json
import subprocess

import numpy as np
from PIL import Image
import pytest

from metrics.iqa import musiq
from metrics.iqa import tiny_musiq

BINARY = "metrics/iqa/musiq"


@pytest.fixture(scope="module")
def inputs(tmp_path_factory):
    root = tmp_path_factory.mktemp("musiq_cli")
    tiny_musiq.write_checkpoint(root / "musiq.pth", tiny_musiq.TINY, seed=9)
    frames = np.random.default_rng(0).integers(0, 256, (2, 530, 90, 3), dtype=np.uint8)
    (root / "frames").mkdir()
    for i, frame in enumerate(frames):
        Image.fromarray(frame).save(root / "frames" / f"{i:03d}.png")
    return root, frames


def _run(*args):
    return subprocess.run([BINARY, *args], capture_output=True, text=True, check=False,
                          timeout=120)


def test_prints_the_frame_scores_and_their_mean(inputs):
    root, frames = inputs
    done = _run(f"--frames={root / 'frames'}", f"--checkpoint={root / 'musiq.pth'}",
                "--num_heads=2", "--longer_sides=64,128", "--device=cpu", "--json")
    assert done.returncode == 0, done.stderr[-1500:]
    record = json.loads(done.stdout)
    model = musiq.load_musiq(root / "musiq.pth", "cpu", tiny_musiq.TINY)
    want = musiq.frame_scores(model, frames)  # RGB, shrunk to 512 x 86 without antialias
    assert record["frame_scores"] == pytest.approx(want.tolist(), abs=1e-5)
    assert record["mean_score"] == pytest.approx(float(want.mean()), abs=1e-5)
    assert record["config"]["hidden_size"] == tiny_musiq.TINY.hidden_size


def test_a_bad_checkpoint_exits_2_naming_it(inputs, tmp_path):
    root, _ = inputs
    (tmp_path / "bad.pth").write_bytes(b"junk")
    done = _run(f"--frames={root / 'frames'}", f"--checkpoint={tmp_path / 'bad.pth'}")
    assert done.returncode == 2 and "bad.pth" in done.stderr
