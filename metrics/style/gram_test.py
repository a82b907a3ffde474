"""Gram matrices and the style distance against direct computations (tiny VGG19)."""

import numpy as np
import pytest
import torch

from metrics.style import gram
from metrics.style import tiny_vgg


def test_gram_matrix_is_f_ft_over_all_elements():
    feature = torch.randn(1, 3, 4, 5, generator=torch.Generator().manual_seed(0))
    f = feature.numpy().reshape(3, 20).astype(np.float64)
    np.testing.assert_allclose(gram.gram_matrix(feature).numpy(), f @ f.T / 60, rtol=1e-5)


def test_config_keeps_vgg19_layout():
    assert gram.config() == list(gram.VGG19_CFG)
    layers = gram.build_features()
    assert sum(isinstance(m, torch.nn.Conv2d) for m in layers) == 16
    assert len(layers) == 37  # torchvision's vgg19().features


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    path = tmp_path_factory.mktemp("vgg") / "vgg19-dcbb9e9d.pth"
    state = tiny_vgg.write_vgg19(path)
    return gram.load_features(path, "cpu", tiny_vgg.TINY_WIDTHS), state


def _direct(state, image, layers=5):
    """Conv layers by hand (float64, conv2d of numpy weights) with pre-ReLU Grams."""
    x = ((image - torch.tensor(gram.IMAGENET_MEAN).view(-1, 1, 1))
         / torch.tensor(gram.IMAGENET_STD).view(-1, 1, 1)).double()
    grams, index = [], 0
    for v in gram.config(tiny_vgg.TINY_WIDTHS):
        if v == "M":
            x = torch.nn.functional.max_pool2d(x, 2, 2)
            index += 1
            continue
        x = torch.nn.functional.conv2d(x, state[f"{index}.weight"].double(),
                                       state[f"{index}.bias"].double(), padding=1)
        _, b, c, d = x.shape
        f = x.reshape(b, c * d)
        grams.append(f @ f.T / (b * c * d))
        if len(grams) == layers:
            return grams
        x = torch.relu(x)
        index += 2


def test_style_distance_matches_direct_pre_relu_computation(tiny):
    features, state = tiny
    g = torch.Generator().manual_seed(1)
    ref, gen = torch.rand(1, 3, 20, 24, generator=g), torch.rand(1, 3, 20, 24, generator=g)
    expected = sum(float(((a - b) ** 2).mean()) for a, b in zip(_direct(state, gen),
                                                                  _direct(state, ref)))
    assert gram.style_distance(features, ref, gen) == pytest.approx(expected, rel=1e-4)
    assert gram.style_distance(features, ref, ref) == 0.0


def test_post_relu_would_differ(tiny):
    """Pins pre-ReLU capture: conv_1's Gram differs from that of relu(conv_1)."""
    features, state = tiny
    image = torch.rand(1, 3, 16, 16, generator=torch.Generator().manual_seed(2))
    pre = gram.style_grams(features, image, 1)[0]
    conv = features[0](gram._normalise(image))  # pylint: disable=protected-access
    assert torch.allclose(pre, gram.gram_matrix(conv))
    assert not torch.allclose(pre, gram.gram_matrix(torch.relu(conv)))


def test_loader_rejects_wrong_files(tmp_path):
    torch.save({"features.0.weight": torch.zeros(1)}, tmp_path / "bad.pth")
    with pytest.raises(ValueError, match="do not fit VGG19"):
        gram.load_features(tmp_path / "bad.pth", "cpu")
    (tmp_path / "junk.pth").write_bytes(b"junk")
    with pytest.raises(ValueError, match="not a readable torch file"):
        gram.load_features(tmp_path / "junk.pth", "cpu")


def test_full_size_keys_and_shapes_are_torchvisions_vgg19():
    from torchvision.models import vgg19  # pylint: disable=import-outside-toplevel
    with torch.device("meta"):
        official = {k: v.shape for k, v in vgg19(weights=None).state_dict().items()
                    if k.startswith("features.")}
        ours = {"features." + k: v.shape for k, v in gram.build_features().state_dict().items()}
    assert ours == official
