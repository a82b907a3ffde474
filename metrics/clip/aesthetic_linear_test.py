"""metrics.clip.aesthetic's v1 linear head (load_aesthetic_linear) and rgb_frame_scores on
a tiny random ViT-L/14-shaped snapshot and a random nn.Linear(768, 1) state dict, against
numpy: the head applied to the tower's unit embeddings of the BGR-flipped frames."""

import numpy as np
import pytest
import torch

from metrics.aesthetic import pins
from metrics.clip import aesthetic
from metrics.clip import tiny_clip
from metrics.clip import vision


@pytest.fixture(scope="module")
def model(tmp_path_factory):
    root = tmp_path_factory.mktemp("aesthetic")
    tiny_clip.write_vision_snapshot(root / "clip", projection_dim=768, seed=2)
    head = {"weight": torch.randn(1, 768, generator=torch.Generator().manual_seed(9)),
            "bias": torch.tensor([4.0])}
    torch.save(head, str(root / "sa_0_4_vit_l_14_linear.pth"))
    loaded = aesthetic.load_aesthetic_linear(root / "clip", root / "sa_0_4_vit_l_14_linear.pth",
                                             "cpu", activation="quick_gelu")
    return loaded, head


def test_rgb_frame_scores_are_the_linear_head_on_the_unit_embeddings(model):
    loaded, head = model
    frames = list(np.random.default_rng(3).integers(0, 256, (3, 30, 44, 3), dtype=np.uint8))
    features = vision.image_embeddings(loaded.clip, [f[:, :, ::-1] for f in frames]).double().numpy()
    want = features @ head["weight"].double().numpy()[0] + 4.0
    got = aesthetic.rgb_frame_scores(frames, loaded, batch_size=2)
    assert got.shape == (3,)
    np.testing.assert_allclose(got, want, atol=1e-5)
    flipped = aesthetic.rgb_frame_scores([f[:, :, ::-1] for f in frames], loaded)
    assert np.max(np.abs(flipped - got)) > 1e-4  # channel order reaches the tower


def test_a_mlp_head_file_is_not_a_linear_head(model, tmp_path):
    tiny_clip.write_head(tmp_path / "mlp.pth", seed=1)
    with pytest.raises(RuntimeError):
        aesthetic.load_linear_head(tmp_path / "mlp.pth", "cpu")


def test_every_laion_pin_is_the_one_in_metrics_aesthetic():
    assert aesthetic.CLIP_VIT_L14 is pins.CLIP_VIT_L14
    assert aesthetic.AESTHETIC_HEAD is pins.AESTHETIC_HEAD
