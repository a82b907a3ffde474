"""metrics.dino.temporal_consistency on a tiny random DINO ViT, against a numpy
transcription of the clamped adjacent / first-frame cosine mean."""

import numpy as np
import pytest
import torch

from metrics.dino import temporal_consistency
from metrics.dino import vit

_TINY = vit.DinoConfig(patch_size=16, embed_dim=32, depth=2, num_heads=2, image_size=64)


@pytest.fixture(scope="module")
def model(tmp_path_factory):
    torch.manual_seed(11)
    path = tmp_path_factory.mktemp("dino") / "dino_vitbase16_pretrain.pth"
    torch.save(vit.build_vit(_TINY).state_dict(), path)
    return vit.load_dino(path, "cpu", _TINY)


def _numpy_score(features):
    f = np.asarray(features, np.float64)
    f = f / np.linalg.norm(f, axis=1, keepdims=True)
    pairs = [(max(0.0, f[t - 1] @ f[t]) + max(0.0, f[0] @ f[t])) / 2 for t in range(1, len(f))]
    return sum(pairs) / len(pairs)


def test_score_is_the_formula_on_the_class_tokens(model):
    frames = list(np.random.default_rng(0).integers(0, 256, (4, 40, 56, 3), dtype=np.uint8))
    features = temporal_consistency.frame_features(frames, model, batch_size=3)
    assert features.shape == (4, 32)
    np.testing.assert_allclose(features, vit.frame_embeddings(model, frames).numpy(), atol=1e-6)
    want = _numpy_score(features)
    assert temporal_consistency.score(frames, model, batch_size=2) == pytest.approx(want, abs=1e-6)
    assert want < 0.999  # random frames are not all alike


def test_a_still_clip_scores_one_and_one_frame_is_an_error(model):
    frame = np.random.default_rng(1).integers(0, 256, (40, 56, 3), dtype=np.uint8)
    assert temporal_consistency.score([frame] * 3, model) == pytest.approx(1.0, abs=1e-6)
    with pytest.raises(ValueError, match="N >= 2"):
        temporal_consistency.score([frame], model)
