"""Tests for metrics.clip.aesthetic with a tiny random tower and a random head.

The head is saved under the official file name with the official `layers.N.*`
keys; both files are found by metrics.checkpoints.resolver and loaded by
load_aesthetic. Expected scores come from the in-memory tower on PIL/numpy
pixels and the head's weights applied in float64 numpy.
"""

import dataclasses

import numpy as np
import pytest
import torch

from metrics.checkpoints import resolver
from metrics.clip import aesthetic
from metrics.clip import tiny_clip
from metrics.clip import reference_transform
from metrics.clip import vision
from metrics.testing.isolation import no_real_caches  # noqa: F401  (autouse fixture)

_CLIP_SPEC = dataclasses.replace(aesthetic.CLIP_VIT_L14, hf_repo="example/not-on-the-hub")


@pytest.fixture(scope="module")
def checkpoints(tmp_path_factory):
    """(tower, head state, checkpoint_dir) with both laid out as --checkpoint_dir wants."""
    root = tmp_path_factory.mktemp("ckpt")
    tower = tiny_clip.write_vision_snapshot(root / aesthetic.CLIP_VIT_L14.name, seed=5)
    head_path = root / aesthetic.AESTHETIC_HEAD.name / aesthetic.AESTHETIC_HEAD.filename
    state = tiny_clip.write_head(head_path, seed=6)
    return tower, state, root


@pytest.fixture(scope="module")
def loaded(checkpoints):
    _, _, root = checkpoints
    found_clip = resolver.resolve(_CLIP_SPEC, checkpoint_dir=str(root), offline=True)
    found_head = resolver.resolve(aesthetic.AESTHETIC_HEAD, checkpoint_dir=str(root),
                                  offline=True)
    assert found_head.path.name == "sac+logos+ava1-l14-linearMSE.pth"
    return aesthetic.load_aesthetic(found_clip.path, found_head.path, "cpu",
                                    activation="quick_gelu")


def _clip(num_frames, height=60, width=84, seed=0):
    return np.stack([reference_transform.smooth_frame(height, width, seed + i)
                     for i in range(num_frames)])


def _expected_frame_scores(tower, state, frames):
    rows = []
    for frame in frames:
        pixels = torch.from_numpy(reference_transform.reference_pixels(frame))[None]
        with torch.no_grad():
            feature = tower(pixel_values=pixels).image_embeds.float()[0].double().numpy()
        rows.append(feature / np.linalg.norm(feature))
    return tiny_clip.head_numpy(state, np.stack(rows))


def test_specs_name_the_official_files():
    assert aesthetic.CLIP_VIT_L14.hf_repo == "openai/clip-vit-large-patch14"
    assert aesthetic.CLIP_VIT_L14.snapshot
    assert aesthetic.CLIP_VIT_L14.filename == "model.safetensors"
    assert aesthetic.AESTHETIC_HEAD.filename == "sac+logos+ava1-l14-linearMSE.pth"
    assert aesthetic.AESTHETIC_HEAD.url.endswith("/raw/main/sac+logos+ava1-l14-linearMSE.pth")


def test_head_loads_official_keys_strictly(checkpoints, loaded):
    _, state, _ = checkpoints
    assert sorted(state) == sorted(f"layers.{i}.{p}" for i in (0, 2, 4, 6, 7)
                                   for p in ("weight", "bias"))
    assert not loaded.head.training
    for index in tiny_clip.HEAD_LINEAR_INDICES:
        assert torch.equal(loaded.head[index].weight, state[f"layers.{index}.weight"])
    dropouts = [m.p for m in loaded.head if isinstance(m, torch.nn.Dropout)]
    assert dropouts == [0.2, 0.2, 0.1]
    assert [m.out_features for m in loaded.head if isinstance(m, torch.nn.Linear)] == [
        1024, 128, 64, 16, 1]


@pytest.mark.parametrize("damage", ["drop", "extra", "unprefixed_extra"])
def test_head_load_is_strict(checkpoints, tmp_path, damage):
    _, state, _ = checkpoints
    state = dict(state)
    if damage == "drop":
        state.pop("layers.7.bias")
    elif damage == "extra":
        state["layers.8.weight"] = torch.zeros(1, 1)
    else:
        state["scale"] = torch.ones(1)
    torch.save(state, tmp_path / "head.pth")
    with pytest.raises(RuntimeError, match="Missing key|Unexpected key"):
        aesthetic.load_head(tmp_path / "head.pth", "cpu")


def test_head_file_must_be_a_state_dict(tmp_path):
    (tmp_path / "garbage.pth").write_bytes(b"not a torch file")
    with pytest.raises(ValueError, match="not a readable torch file"):
        aesthetic.load_head(tmp_path / "garbage.pth", "cpu")
    torch.save([torch.zeros(1)], tmp_path / "list.pth")
    with pytest.raises(ValueError, match="expected a state dict, found list"):
        aesthetic.load_head(tmp_path / "list.pth", "cpu")


def test_strided_scores_match_the_reference(checkpoints, loaded):
    tower, state, _ = checkpoints
    clip = _clip(11)
    sampled = aesthetic.strided_frame_scores(clip, 4, loaded, "cpu")
    assert sampled.indices == [0, 4, 8]
    expected = _expected_frame_scores(tower, state, clip[[0, 4, 8]])
    np.testing.assert_allclose(sampled.scores, expected, rtol=1e-5, atol=1e-5)
    assert len(set(np.round(expected, 4))) == 3  # The frames really differ.


@pytest.mark.parametrize("num_frames,step,indices", [
    (1, 4, [0]), (5, 4, [0, 4]), (4, 4, [0]), (9, 1, list(range(9))), (9, 10, [0]),
])
def test_sampled_indices(loaded, num_frames, step, indices):
    clip = _clip(num_frames, 40, 40)
    sampled = aesthetic.strided_frame_scores(clip, step, loaded, "cpu", batch_size=4)
    assert sampled.indices == indices == list(range(0, num_frames, step))
    assert len(sampled.scores) == len(indices)


def test_batching_equals_per_frame(loaded):
    clip = _clip(7, seed=20)
    batched = aesthetic.frame_scores(list(clip), loaded, "cpu", batch_size=3)
    single = aesthetic.frame_scores(list(clip), loaded, "cpu", batch_size=1)
    np.testing.assert_allclose(batched, single, rtol=1e-5, atol=1e-6)


def test_empty_clip_has_no_scores(loaded):
    sampled = aesthetic.strided_frame_scores(np.zeros((0, 8, 8, 3), np.uint8), 4, loaded, "cpu")
    assert (sampled.indices, sampled.scores) == ([], [])


def test_step_must_be_positive(loaded):
    with pytest.raises(ValueError, match="step must be positive"):
        aesthetic.strided_frame_scores(_clip(3), 0, loaded, "cpu")


def test_tower_must_project_to_768(tmp_path, checkpoints):
    _, _, root = checkpoints
    tiny_clip.write_vision_snapshot(tmp_path / "b32", projection_dim=512)
    head = root / aesthetic.AESTHETIC_HEAD.name / aesthetic.AESTHETIC_HEAD.filename
    with pytest.raises(ValueError, match="takes 768-d embeddings .* projects to 512"):
        aesthetic.load_aesthetic(tmp_path / "b32", head, "cpu")


def test_default_activation_is_gelu(checkpoints):
    _, _, root = checkpoints
    head = root / aesthetic.AESTHETIC_HEAD.name / aesthetic.AESTHETIC_HEAD.filename
    model = aesthetic.load_aesthetic(root / aesthetic.CLIP_VIT_L14.name, head, "cpu")
    assert model.clip.activation == vision.OFFICIAL_ACTIVATION == "gelu"


def test_linear_head_v1_loads_weight_and_bias_strictly(tmp_path):
    state = {"weight": torch.randn(1, 768), "bias": torch.randn(1)}
    torch.save(state, tmp_path / "sa_0_4_vit_l_14_linear.pth")
    head = aesthetic.load_linear_head(tmp_path / "sa_0_4_vit_l_14_linear.pth", "cpu")
    assert isinstance(head, torch.nn.Linear) and not head.training
    assert torch.equal(head.weight, state["weight"]) and torch.equal(head.bias, state["bias"])
    features = torch.randn(3, 768)
    want = features.double().numpy() @ state["weight"].double().numpy().T + float(state["bias"])
    np.testing.assert_allclose(head(features).detach().numpy(), want, rtol=1e-5, atol=1e-5)
    torch.save({"layers.0.weight": state["weight"], "layers.0.bias": state["bias"]},
               tmp_path / "mlp.pth")
    with pytest.raises(RuntimeError, match="Missing key|Unexpected key"):
        aesthetic.load_linear_head(tmp_path / "mlp.pth", "cpu")


if __name__ == "__main__":
    raise SystemExit(pytest.main([__file__, "-q"]))


def test_tensor_scores_are_pyiqa_laion_aes_on_the_preprocessed_tensor(checkpoints, loaded):
    tower, state, _ = checkpoints
    images = torch.rand(2, 3, 40, 40, generator=torch.Generator().manual_seed(3))
    pixels = torch.nn.functional.interpolate(images, size=(224, 224), mode="bicubic",
                                             align_corners=False, antialias=True)
    mean = torch.tensor((0.48145466, 0.4578275, 0.40821073))[:, None, None]
    std = torch.tensor((0.26862954, 0.26130258, 0.27577711))[:, None, None]
    with torch.no_grad():
        features = tower(pixel_values=(pixels - mean) / std).image_embeds.double().numpy()
    expected = tiny_clip.head_numpy(
        state, features / np.linalg.norm(features, axis=1, keepdims=True))
    got = aesthetic.tensor_scores(images, loaded, "cpu")
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-5)
    assert got[0] != got[1]
