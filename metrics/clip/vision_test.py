"""Tests for metrics.clip.vision with tiny random CLIP snapshots saved by the test.

Snapshots go through the real path: save_pretrained (config.json +
model.safetensors), found by metrics.checkpoints.resolver as a snapshot, loaded by
load_clip_vision. References run the in-memory models on pixels prepared by
metrics.clip.reference_transform (PIL/numpy), independently of image_transform.
"""

import json

import pytest
from safetensors.torch import load_file
from safetensors.torch import save_file
import torch

from metrics.checkpoints import resolver
from metrics.clip import tiny_clip
from metrics.clip import reference_transform
from metrics.clip import vision
from metrics.testing.isolation import no_real_caches  # noqa: F401  (autouse fixture)

_SPEC = resolver.CheckpointSpec(name="tiny_clip", filename="model.safetensors",
                                hf_repo="example/tiny-clip", snapshot=True)


@pytest.fixture(scope="module")
def tower(tmp_path_factory):
    """(in-memory CLIPVisionModelWithProjection, checkpoint_dir holding its snapshot)."""
    root = tmp_path_factory.mktemp("ckpt")
    model = tiny_clip.write_vision_snapshot(root / _SPEC.name, seed=1)
    return model, root


def _frames(count, seed=0):
    sizes = [(64, 80), (90, 60), (48, 48), (70, 111)]
    return [reference_transform.smooth_frame(*sizes[i % len(sizes)], seed=seed + i)
            for i in range(count)]


def _reference_embeddings(model, frames):
    """Independent preprocessing, one model call per frame, float32 L2-normalised."""
    rows = []
    for frame in frames:
        pixels = torch.from_numpy(reference_transform.reference_pixels(frame))[None]
        with torch.no_grad():
            feature = model(pixel_values=pixels).image_embeds.float()[0]
        rows.append(feature / feature.norm())
    return torch.stack(rows)


def test_resolved_snapshot_loads_strictly(tower):
    model, root = tower
    found = resolver.resolve(_SPEC, checkpoint_dir=str(root), offline=True)
    assert found.source == "checkpoint_dir" and found.path == root / _SPEC.name
    loaded = vision.load_clip_vision(found.path, "cpu")
    assert not loaded.model.training and loaded.image_size == 224 and loaded.embed_dim == 768
    expected = model.state_dict()
    got = loaded.model.state_dict()
    assert got.keys() == expected.keys()
    assert all(torch.equal(got[k], expected[k]) for k in expected)


def test_embeddings_match_the_model_on_independent_pixels(tower):
    model, root = tower
    loaded = vision.load_clip_vision(root / _SPEC.name, "cpu", activation="quick_gelu")
    frames = _frames(3)
    got = vision.image_embeddings(loaded, frames)
    assert got.shape == (3, 768) and got.dtype == torch.float32
    torch.testing.assert_close(got.norm(dim=-1), torch.ones(3))
    torch.testing.assert_close(got, _reference_embeddings(model, frames), rtol=1e-5, atol=1e-6)
    # Different frames give different directions: the pixels reach the model.
    assert float(got[0] @ got[1]) < 0.999


def test_batching_equals_per_frame(tower):
    _, root = tower
    loaded = vision.load_clip_vision(root / _SPEC.name, "cpu")
    frames = _frames(5, seed=3)
    batched = vision.image_embeddings(loaded, frames, batch_size=2)  # 2 + 2 + 1.
    single = torch.cat([vision.image_embeddings(loaded, [f], batch_size=1) for f in frames])
    torch.testing.assert_close(batched, single, rtol=1e-5, atol=1e-6)


def test_activation_is_applied(tower):
    model, root = tower
    x = torch.linspace(-4, 4, 101)
    quick = vision.load_clip_vision(root / _SPEC.name, "cpu", activation="quick_gelu")
    gelu = vision.load_clip_vision(root / _SPEC.name, "cpu", activation="gelu")
    assert vision.OFFICIAL_ACTIVATION == "gelu" and gelu.activation == "gelu"
    act_quick = quick.model.vision_model.encoder.layers[0].mlp.activation_fn
    act_gelu = gelu.model.vision_model.encoder.layers[0].mlp.activation_fn
    torch.testing.assert_close(act_quick(x), x * torch.sigmoid(1.702 * x))
    torch.testing.assert_close(act_gelu(x), 0.5 * x * (1 + torch.erf(x / 2 ** 0.5)))
    frames = _frames(2)
    emb_quick = vision.image_embeddings(quick, frames)
    emb_gelu = vision.image_embeddings(gelu, frames)
    torch.testing.assert_close(emb_quick, _reference_embeddings(model, frames),
                               rtol=1e-5, atol=1e-6)
    assert float((emb_quick - emb_gelu).abs().max()) > 1e-4
    with pytest.raises(ValueError, match="activation must be one of"):
        vision.load_clip_vision(root / _SPEC.name, "cpu", activation="relu")


def test_full_clip_snapshot_takes_the_vision_tower_and_top_level_projection(tmp_path):
    clip = tiny_clip.write_clip_snapshot(tmp_path / "clip", projection_dim=768, seed=2)
    config = json.loads((tmp_path / "clip" / "config.json").read_text())
    assert config["model_type"] == "clip" and config["projection_dim"] == 768
    saved = load_file(str(tmp_path / "clip" / "model.safetensors"))
    assert any(k.startswith("text_model.") for k in saved)
    loaded = vision.load_clip_vision(tmp_path / "clip", "cpu", activation="quick_gelu")
    assert loaded.embed_dim == 768
    torch.testing.assert_close(loaded.model.visual_projection.weight,
                               clip.visual_projection.weight, rtol=0, atol=0)
    frames = _frames(2, seed=9)
    pixels = torch.stack([torch.from_numpy(reference_transform.reference_pixels(f))
                          for f in frames])
    with torch.no_grad():
        pooled = clip.vision_model(pixel_values=pixels).pooler_output
        expected = clip.visual_projection(pooled)
    expected = expected / expected.norm(dim=-1, keepdim=True)
    torch.testing.assert_close(vision.image_embeddings(loaded, frames), expected,
                               rtol=1e-5, atol=1e-6)


def test_position_ids_in_old_checkpoints_are_ignored(tower, tmp_path):
    _, root = tower
    folder = tmp_path / "old"
    folder.mkdir()
    (folder / "config.json").write_text((root / _SPEC.name / "config.json").read_text())
    state = load_file(str(root / _SPEC.name / "model.safetensors"))
    state["vision_model.embeddings.position_ids"] = torch.arange(50)[None]
    save_file(state, str(folder / "model.safetensors"))
    vision.load_clip_vision(folder, "cpu")


@pytest.mark.parametrize("damage,match", [
    ("drop", "does not fit its config"),
    ("extra", "unexpected key 'extra.weight'"),
    ("reshape", "does not fit its config"),
])
def test_damaged_weights_are_rejected(tower, tmp_path, damage, match):
    _, root = tower
    folder = tmp_path / "damaged"
    folder.mkdir()
    (folder / "config.json").write_text((root / _SPEC.name / "config.json").read_text())
    state = load_file(str(root / _SPEC.name / "model.safetensors"))
    if damage == "drop":
        state.pop("visual_projection.weight")
    elif damage == "extra":
        state["extra.weight"] = torch.zeros(1)
    else:
        state["visual_projection.weight"] = torch.zeros(512, 32)
    save_file(state, str(folder / "model.safetensors"))
    with pytest.raises(ValueError, match=match):
        vision.load_clip_vision(folder, "cpu")


def test_not_a_clip_snapshot(tmp_path):
    with pytest.raises(ValueError, match="config.json"):
        vision.load_clip_vision(tmp_path, "cpu")
    (tmp_path / "config.json").write_text(json.dumps({"model_type": "bert"}))
    with pytest.raises(ValueError, match="model_type clip or clip_vision_model"):
        vision.load_clip_vision(tmp_path, "cpu")


def test_missing_weights_file(tower, tmp_path):
    _, root = tower
    (tmp_path / "config.json").write_text((root / _SPEC.name / "config.json").read_text())
    with pytest.raises(ValueError, match="expected model.safetensors"):
        vision.load_clip_vision(tmp_path, "cpu")


def test_image_embeddings_rejects_bad_arguments(tower):
    _, root = tower
    loaded = vision.load_clip_vision(root / _SPEC.name, "cpu")
    with pytest.raises(ValueError, match="batch_size"):
        vision.image_embeddings(loaded, _frames(1), batch_size=0)
    with pytest.raises(ValueError, match="at least one frame"):
        vision.image_embeddings(loaded, [])


def test_missing_snapshot_offline_names_the_fetch_command(tmp_path):
    with pytest.raises(resolver.CheckpointUnavailable) as info:
        resolver.resolve(_SPEC, checkpoint_dir=str(tmp_path / "empty"), offline=True)
    assert ("huggingface-cli download example/tiny-clip --revision main --local-dir "
            f"{tmp_path / 'empty'}/tiny_clip") in str(info.value)


if __name__ == "__main__":
    raise SystemExit(pytest.main([__file__, "-q"]))
