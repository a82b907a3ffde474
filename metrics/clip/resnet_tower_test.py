"""open_clip's ModifiedResNet as metrics.clip.openai_clip runs it (CLIP-IQA+: no positional
embedding) against functional / numpy transcriptions."""

import numpy as np
import pytest
import torch

from metrics.clip import openai_clip
from metrics.clip import reference_clip
from metrics.clip import tiny_clipiqa

_LAYERS = tiny_clipiqa.TINY_ARCH["vision_layers"]


@pytest.fixture(scope="module")
def tower():
    """The tiny tower (He-initialised, random BatchNorm statistics) and its `visual.*` state."""
    model = tiny_clipiqa.random_clip(seed=3)
    state = {f"visual.{k}": v for k, v in model.visual.state_dict().items()}
    return model, state


def test_keys_are_openais(tower):
    visual = tower[0].visual
    keys = set(visual.state_dict())
    for key in ("conv1.weight", "bn3.running_var", "layer1.0.downsample.0.weight",
                "layer1.0.downsample.1.bias", "layer2.0.downsample.1.running_mean",
                "layer1.1.conv3.weight", "attnpool.positional_embedding", "attnpool.q_proj.bias",
                "attnpool.c_proj.weight"):
        assert key in keys, key
    assert "layer1.1.downsample.0.weight" not in keys  # same width, stride 1: no shortcut conv
    assert isinstance(visual.layer2[0].downsample[0], torch.nn.AvgPool2d)
    assert visual.attnpool.num_heads == 4 and visual.attnpool.c_proj.out_features == 32


@pytest.mark.parametrize("height,width", [(64, 64), (72, 96), (65, 97), (100, 40)])
def test_feature_map_matches_functional_transcription(tower, height, width):
    visual, state = tower[0].visual, tower[1]
    x = torch.randn(2, 3, height, width, generator=torch.Generator().manual_seed(height))
    with torch.no_grad():
        stem = visual.avgpool(torch.relu(visual.bn3(visual.conv3(torch.relu(visual.bn2(
            visual.conv2(torch.relu(visual.bn1(visual.conv1(x))))))))))
        ours = visual.layer4(visual.layer3(visual.layer2(visual.layer1(stem))))
        expected = reference_clip.resnet_map(state, x, _LAYERS)
    # Strided stages floor odd sizes (AvgPool2d) on both the main path and the shortcut.
    size = (height + 1) // 2 // 2
    for _ in range(3):
        size //= 2
    assert ours.shape[-2] == size
    torch.testing.assert_close(ours, expected, rtol=1e-5, atol=1e-5)
    assert expected.abs().mean() > 0.1  # the signal survives the tiny depth


def test_attention_pool_matches_numpy(tower):
    visual, state = tower[0].visual, tower[1]
    feature_map = torch.randn(3, 256, 3, 5, generator=torch.Generator().manual_seed(1))
    with torch.no_grad():
        ours = openai_clip.attention_pool(visual.attnpool, feature_map).double().numpy()
    expected = reference_clip.attention_pool(state, feature_map.double().numpy(), heads=4)
    np.testing.assert_allclose(ours, expected, rtol=1e-4, atol=1e-5)


def test_whole_tower_and_no_positional_embedding(tower):
    model, state = tower
    visual = model.visual
    x = torch.randn(2, 3, 90, 120, generator=torch.Generator().manual_seed(2))
    with torch.no_grad():
        features = openai_clip.image_features(model, x)
        expected = reference_clip.attention_pool(
            state, reference_clip.resnet_map(state, x, _LAYERS).double().numpy(), heads=4)
        np.testing.assert_allclose(features.double().numpy(), expected, rtol=1e-4, atol=1e-5)
        saved = visual.attnpool.positional_embedding.clone()
        visual.attnpool.positional_embedding.normal_(0.0, 10.0)
        unchanged = openai_clip.image_features(model, x)
        visual.attnpool.positional_embedding.copy_(saved)
    assert torch.equal(features, unchanged)  # pyiqa's clipiqa+: pos_embedding=False


if __name__ == "__main__":
    raise SystemExit(pytest.main([__file__, "-q"]))
