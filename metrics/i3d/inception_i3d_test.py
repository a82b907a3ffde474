"""metrics.i3d.inception_i3d: the official full-size key layout, SAME padding against the
TensorFlow formula, and a tiny-width network saved and loaded through load_i3d.

Full-size parity against pytorch-i3d's InceptionI3d (the copy in mira-space/Miradata
7ad0579 evaluation/pytorch_i3d.py) on the same random weights and BatchNorm statistics,
(1, 3, 10 | 17, 224, 224) inputs in [-1, 1]: max |logit difference| 0.0.
"""

import math
import pathlib

import pytest
import torch

from metrics.i3d import inception_i3d

_KEYS = pathlib.Path(__file__).parent / "testdata" / "i3d_400_keys.txt"


def _layout():
    out = {}
    for line in _KEYS.read_text().splitlines():
        if not line.startswith("#"):
            key, shape = line.split()
            out[key] = () if shape == "scalar" else tuple(int(s) for s in shape.split(","))
    return out


def test_full_size_network_has_the_official_layout():
    got = {k: tuple(v.shape) for k, v in inception_i3d.InceptionI3d(400).state_dict().items()}
    assert got == _layout()


@pytest.mark.parametrize("n, k, s", [(224, 7, 2), (10, 7, 2), (9, 3, 2), (7, 2, 2), (56, 3, 1),
                                     (5, 1, 1), (3, 3, 2)])
def test_same_padding_is_tensorflows(n, k, s):
    out = math.ceil(n / s)
    total = max((out - 1) * s + k - n, 0)  # TF "SAME"
    assert inception_i3d.same_padding([n], [k], [s]) == (total // 2, total - total // 2)
    assert inception_i3d.same_padding([4, n], [1, k], [1, s])[:2] == (total // 2, total - total // 2)


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    torch.manual_seed(5)
    model = inception_i3d.InceptionI3d(400, width_divisor=64)
    for name, buf in model.named_buffers():
        if name.endswith("running_var"):
            buf.uniform_(0.5, 1.5)
    path = tmp_path_factory.mktemp("i3d") / "i3d_pretrained_400.pt"
    torch.save(model.state_dict(), path)
    return path


def test_tiny_network_loads_and_averages_logits_over_time(tiny):
    model = inception_i3d.load_i3d(tiny, "cpu", width_divisor=64)
    assert not model.training
    video = torch.rand(1, 3, 9, 193, 208) * 2 - 1  # ceil(193 / 32) = 7 rows at the end
    with torch.no_grad():
        logits = model(video)
        x = video
        for name in inception_i3d._ORDER:  # pylint: disable=protected-access
            x = getattr(model, name)(x)
        per_time = model.logits(torch.nn.functional.avg_pool3d(x, (2, 7, 7), stride=1))
    assert x.shape[2:] == (2, 7, 7)  # T 9 -> 5 -> 3 -> 2; H 193 -> 7; W 208 -> 7
    assert logits.shape == (1, 400)
    torch.testing.assert_close(logits, per_time[:, :, :, 0, 0].mean(dim=2))


def test_bad_files_are_clear_errors(tiny, tmp_path):
    with pytest.raises(ValueError, match="does not fit InceptionI3d"):
        inception_i3d.load_i3d(tiny, "cpu")  # full width
    (tmp_path / "x.pt").write_bytes(b"not a torch file")
    with pytest.raises(ValueError, match="not a readable torch file"):
        inception_i3d.load_i3d(tmp_path / "x.pt", "cpu")
