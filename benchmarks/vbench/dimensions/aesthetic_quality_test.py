"""aesthetic_quality on a tiny random ViT-L/14-shaped tower and a random v1 linear head,
both read by the real loader, against the official arithmetic around the same network."""

import numpy as np
import pytest
import torch

from benchmarks.vbench.dimensions import aesthetic_quality
from benchmarks.vbench.dimensions import fixtures
from metrics.clip import aesthetic


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    root = tmp_path_factory.mktemp("aesthetic")
    fixtures.write_clip_vision(root / "clip_l14", projection_dim=768, seed=2)
    head = fixtures.write_linear_head(root / "sa_0_4_vit_l_14_linear.pth")
    return root, head


def test_matches_the_official_arithmetic(files):
    root, head = files
    model = aesthetic.load_aesthetic_linear(root / "clip_l14", root / "sa_0_4_vit_l_14_linear.pth",
                                            "cpu", activation="quick_gelu")
    rgb = fixtures.frames(3, 240, 320, seed=5)
    value = aesthetic_quality.compute(fixtures.video(rgb), model)

    with torch.no_grad():
        feats = model.clip.model(pixel_values=fixtures.clip_reference_pixels(rgb)).image_embeds
    f = feats.numpy().astype(np.float64)
    f /= np.linalg.norm(f, axis=1, keepdims=True)
    raw = f @ head["weight"].double().numpy()[0] + float(head["bias"][0])
    assert value.video_results == pytest.approx(np.mean(raw / 10), abs=2e-6)
    assert value.video_results != pytest.approx(np.mean(raw), abs=1e-3)  # the ÷10
    assert value.extras == {} and value.pooled is None
    assert np.ptp(raw) > 1e-2  # frames score differently

    # Batches other than upstream's 32 change float rounding only.
    again = aesthetic_quality.compute(fixtures.video(rgb), model, batch_size=2)
    assert again.video_results == pytest.approx(value.video_results, abs=1e-6)


def test_needs_quick_gelu(files):
    root, _ = files
    model = aesthetic.load_aesthetic_linear(root / "clip_l14", root / "sa_0_4_vit_l_14_linear.pth",
                                            "cpu", activation="gelu")
    with pytest.raises(ValueError, match="quick_gelu"):
        aesthetic_quality.compute(fixtures.video(fixtures.frames(1)), model)
