"""subject_consistency and background_consistency on tiny random checkpoints (read by the
real loaders) against a transcription of the official per-video arithmetic around the
same networks, called directly one frame at a time."""

import numpy as np
import pytest
import torch

from benchmarks.vbench.dimensions import background_consistency
from benchmarks.vbench.dimensions import consistency
from benchmarks.vbench.dimensions import fixtures
from benchmarks.vbench.dimensions import subject_consistency
from benchmarks.vbench.dimensions import transforms
from metrics.clip import vision
from metrics.dino import vit


def reference_sum(features: np.ndarray):
    """Σ_t (max(0, cos(f_{t-1}, f_t)) + max(0, cos(f_0, f_t))) / 2 in float64."""
    f = features.astype(np.float64)
    f = f / np.linalg.norm(f, axis=1, keepdims=True)
    total = 0.0
    for t in range(1, len(f)):
        total += (max(0.0, f[t - 1] @ f[t]) + max(0.0, f[0] @ f[t])) / 2
    return total, len(f) - 1


def test_each_cosine_is_clamped_before_the_two_are_averaged():
    # t=1: cos(f0, f1) = 0 twice; t=2: cos(f1, f2) = -0.6 -> 0, cos(f0, f2) = 0.8.
    features = torch.tensor([[1.0, 0.0], [0.0, 1.0], [0.8, -0.6]])
    total, count = consistency.pair_sum(features)
    assert count == 2
    assert total == pytest.approx(0.4, abs=1e-7)  # averaging first, then clamping: 0.1
    value = consistency.value(features, with_extras=True)
    assert value.video_results == pytest.approx(0.2, abs=1e-7)
    assert value.extras == {"video_sim": total, "cnt_per_video": 2}
    assert value.pooled == (total, 2.0)


def test_one_frame_is_refused():
    with pytest.raises(ValueError, match="T - 1"):
        consistency.pair_sum(torch.ones(1, 4))


@pytest.fixture(scope="module")
def dino(tmp_path_factory):
    path = tmp_path_factory.mktemp("dino") / "dino_vitbase16_pretrain.pth"
    fixtures.write_dino(path)
    return vit.load_dino(path, "cpu", fixtures.TINY_DINO)


def test_subject_consistency_matches_the_official_arithmetic(dino, monkeypatch):
    rgb = fixtures.frames(4, 240, 320, seed=1)
    seen = []
    original = vit.class_token
    monkeypatch.setattr(vit, "class_token",
                        lambda m, p: seen.append(tuple(p.shape)) or original(m, p))
    value = subject_consistency.compute(fixtures.video(rgb), dino, batch_size=3)
    monkeypatch.undo()
    # No crop: the whole 224 x int(224 * 320 / 240) = 224 x 298 frame reaches DINO.
    assert {s[1:] for s in seen} == {(3, 224, 298)}

    pixels = fixtures.dino_reference_pixels(rgb)
    with torch.no_grad():
        feats = np.stack([vit.class_token(dino, pixels[i:i + 1])[0].numpy()
                          for i in range(len(rgb))])
    total, count = reference_sum(feats)
    assert count == 3 and value.pooled[1] == 3.0
    assert value.pooled[0] == pytest.approx(total, abs=1e-6)
    assert value.video_results == pytest.approx(total / 3, abs=1e-6)
    assert value.extras == {}
    assert 0.3 < value.video_results < 0.999  # the frames differ to the network

    # A centre crop (what clip_transform does) changes the value: the check can fail.
    cropped = fixtures.center_crop(pixels, 224)
    with torch.no_grad():
        other = vit.class_token(dino, cropped).numpy()
    assert abs(reference_sum(other)[0] - total) > 1e-4


def test_dino_transform_is_bilinear_without_antialias():
    rgb = fixtures.frames(2, 240, 320, seed=2)
    ours = transforms.dino_pixels(transforms.float_video(rgb))
    np.testing.assert_allclose(ours.numpy(), fixtures.dino_reference_pixels(rgb).numpy(),
                               atol=2e-6)
    antialiased = fixtures.normalised(fixtures.resized(rgb, 224, "bilinear", antialias=True),
                                      fixtures.IMAGENET_MEAN, fixtures.IMAGENET_STD)
    assert np.abs(ours.numpy() - antialiased.numpy()).max() > 1e-2


@pytest.fixture(scope="module")
def clip_b32(tmp_path_factory):
    folder = tmp_path_factory.mktemp("clip_b32")
    fixtures.write_clip_vision(folder, projection_dim=512, seed=1)
    return vision.load_clip_vision(folder, "cpu", activation="quick_gelu")


def test_clip_transform_is_unclamped_bicubic_on_float_values():
    rgb = fixtures.frames(2, 240, 320, seed=3)
    ours = transforms.clip_pixels(transforms.float_video(rgb))
    np.testing.assert_allclose(ours.numpy(), fixtures.clip_reference_pixels(rgb).numpy(),
                               atol=2e-6)
    # The hard edges overshoot 0..255 and stay so (a clamp would cut them).
    top = (255.0 / 255 - fixtures.CLIP_MEAN) / fixtures.CLIP_STD
    assert (ours.numpy().max(axis=(0, 2, 3)) > top + 0.05).any()
    clamped = fixtures.clip_reference_pixels(rgb, clamp=True).numpy()
    assert np.abs(ours.numpy() - clamped).max() > 0.05


def test_background_consistency_matches_the_official_arithmetic(clip_b32):
    rgb = fixtures.frames(4, 240, 320, seed=4)
    value = background_consistency.compute(fixtures.video(rgb), clip_b32)
    with torch.no_grad():
        feats = clip_b32.model(pixel_values=fixtures.clip_reference_pixels(rgb)).image_embeds
    total, count = reference_sum(feats.numpy())
    assert value.video_results == pytest.approx(total / count, abs=1e-6)
    assert value.extras["cnt_per_video"] == 3
    assert value.extras["video_sim"] == pytest.approx(total, abs=1e-6)
    assert value.pooled == (value.extras["video_sim"], 3.0)
    assert 0.3 < value.video_results < 0.9999
    # Chunked calls give the same value up to float rounding.
    chunked = background_consistency.compute(fixtures.video(rgb), clip_b32, batch_size=2)
    assert chunked.video_results == pytest.approx(value.video_results, abs=1e-6)


def test_background_consistency_needs_quick_gelu(tmp_path):
    fixtures.write_clip_vision(tmp_path, projection_dim=512, seed=1)
    tower = vision.load_clip_vision(tmp_path, "cpu", activation="gelu")
    with pytest.raises(ValueError, match="quick_gelu"):
        background_consistency.compute(fixtures.video(fixtures.frames(2)), tower)
