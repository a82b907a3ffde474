"""The //metrics/style:gram binary on a tiny VGG19 file and synthetic frames."""

import json
import subprocess

import numpy as np
import pytest
import torch
from PIL import Image
from torchvision import transforms

from metrics.style import gram
from metrics.style import tiny_vgg

BINARY = "metrics/style/gram"


@pytest.fixture(scope="module")
def inputs(tmp_path_factory):
    root = tmp_path_factory.mktemp("gram_cli")
    tiny_vgg.write_vgg19(root / "vgg.pth")
    rng = np.random.default_rng(0)
    (root / "frames").mkdir()
    for i in range(2):
        Image.fromarray(rng.integers(0, 256, (30, 40, 3), dtype=np.uint8)).save(
            root / "frames" / f"{i:03d}.png")
    Image.fromarray(rng.integers(0, 256, (36, 36, 3), dtype=np.uint8)).save(root / "ref.png")
    return root


def test_prints_per_frame_distances_and_their_mean(inputs):
    done = subprocess.run(
        [BINARY, f"--reference={inputs / 'ref.png'}", f"--frames={inputs / 'frames'}",
         f"--checkpoint={inputs / 'vgg.pth'}", "--resize=32", "--device=cpu", "--json",
         "--vgg_widths=" + ",".join(map(str, tiny_vgg.TINY_WIDTHS))],
        capture_output=True, text=True, check=False, timeout=120)
    assert done.returncode == 0, done.stderr[-1500:]
    record = json.loads(done.stdout)
    features = gram.load_features(inputs / "vgg.pth", "cpu", tiny_vgg.TINY_WIDTHS)
    load = transforms.Compose([transforms.Resize(32), transforms.ToTensor()])
    ref = load(Image.open(inputs / "ref.png").convert("RGB")).unsqueeze(0)
    expected = [gram.style_distance(features, ref, load(Image.open(
        inputs / "frames" / f"{i:03d}.png").convert("RGB")).unsqueeze(0)) for i in range(2)]
    assert record["style_distance"] == pytest.approx(expected, rel=1e-5)
    assert record["mean"] == pytest.approx(sum(expected) / 2, rel=1e-5)
    assert torch.is_tensor(ref)


def test_a_bad_checkpoint_exits_2_naming_it(inputs, tmp_path):
    (tmp_path / "bad.pth").write_bytes(b"junk")
    done = subprocess.run([BINARY, f"--reference={inputs / 'ref.png'}",
                           f"--frames={inputs / 'frames'}", f"--checkpoint={tmp_path / 'bad.pth'}"],
                          capture_output=True, text=True, check=False, timeout=120)
    assert done.returncode == 2 and "bad.pth" in done.stderr
