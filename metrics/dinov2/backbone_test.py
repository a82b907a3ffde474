"""Tests for metrics.dinov2.backbone with a tiny random DINOv2 saved by the test.

The tiny model keeps the real checkpoint's layout (patch 14, a 518 px = 37x37 position
grid) and goes through the real path: save_pretrained under <checkpoint_dir>/dinov2_base,
metrics.checkpoints.resolver, load_dinov2. References are written here independently:
the preprocessing with PIL + numpy, the hub's position-table resampling with a numpy
bicubic kernel.
"""

import dataclasses
import os

os.environ["HF_HUB_OFFLINE"] = "1"  # before huggingface_hub reads it at import
# pylint: disable=wrong-import-position

import math

import huggingface_hub.constants
import numpy as np
import pytest
import torch
from PIL import Image
from transformers import Dinov2Model

from metrics.checkpoints import resolver
from metrics.dinov2 import backbone
from metrics.dinov2 import tiny_checkpoint

_HIDDEN = tiny_checkpoint.HIDDEN_SIZE
# Random weights cannot match the pinned sha256: the tests resolve them unpinned.
_UNPINNED = dataclasses.replace(backbone.DINOV2_BASE, sha256="")


@pytest.fixture(scope="module")
def checkpoint_dir(tmp_path_factory):
    folder = tmp_path_factory.mktemp("ckpt")
    tiny_checkpoint.save_tiny_dinov2(folder)
    return folder


@pytest.fixture(scope="module")
def model(checkpoint_dir):
    found = resolver.resolve(_UNPINNED, checkpoint_dir=str(checkpoint_dir), offline=True)
    return backbone.load_dinov2(found.path, "cpu")


def _cubic_weights(t, a=-0.75):
    """Keys cubic-convolution weights of the 4 taps at offsets -1, 0, 1, 2."""
    def near(x):  # |x| <= 1
        return ((a + 2) * x - (a + 3)) * x * x + 1

    def far(x):  # 1 < |x| < 2
        return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a
    return [far(t + 1), near(t), near(1 - t), far(2 - t)]


def _bicubic_matrix(size_in, size_out, inverse_scale):
    """(size_out, size_in) resampling matrix, align_corners=False, edge taps clamped."""
    matrix = np.zeros((size_out, size_in))
    for i in range(size_out):
        src = (i + 0.5) * inverse_scale - 0.5
        base = math.floor(src)
        for offset, weight in zip((-1, 0, 1, 2), _cubic_weights(src - base)):
            matrix[i, min(max(base + offset, 0), size_in - 1)] += weight
    return matrix


def _numpy_hub_table(table, grid, offset):
    table = np.asarray(table, dtype=np.float64)[0]
    side = int(round(math.sqrt(table.shape[0] - 1)))
    patches = table[1:].reshape(side, side, -1)
    weights = _bicubic_matrix(side, grid, side / (grid + offset))
    resampled = np.einsum("ij,jkd,lk->ild", weights, patches, weights)
    return np.concatenate([table[:1], resampled.reshape(grid * grid, -1)])[None]


def _reference_pixels(frame_bgr):
    """Resize(256, bicubic) + CenterCrop(224) + ToTensor + Normalize, with PIL and numpy."""
    height, width = frame_bgr.shape[:2]
    short, long = min(height, width), max(height, width)
    new_long = int(256 * long / short)
    size = (256, new_long) if width == short else (new_long, 256)  # PIL (width, height)
    image = Image.fromarray(np.ascontiguousarray(frame_bgr[:, :, ::-1])).resize(
        size, Image.Resampling.BICUBIC)
    rgb = np.asarray(image).astype(np.float32) / np.float32(255)
    top = int(round((rgb.shape[0] - 224) / 2.0))
    left = int(round((rgb.shape[1] - 224) / 2.0))
    crop = rgb[top:top + 224, left:left + 224]
    mean = np.array([0.485, 0.456, 0.406], dtype=np.float32)
    std = np.array([0.229, 0.224, 0.225], dtype=np.float32)
    return ((crop - mean) / std).transpose(2, 0, 1)


def _frames(count, height, width, seed):
    rng = np.random.default_rng(seed)
    return [rng.integers(0, 256, (height, width, 3), dtype=np.uint8) for _ in range(count)]


def test_hub_is_offline():
    assert huggingface_hub.constants.HF_HUB_OFFLINE


def test_resolver_finds_the_snapshot_folder(checkpoint_dir):
    found = resolver.resolve(_UNPINNED, checkpoint_dir=str(checkpoint_dir), offline=True)
    assert found.source == "checkpoint_dir"
    assert found.path == checkpoint_dir / "dinov2_base"
    assert (found.path / "config.json").is_file()


def test_spec_matches_the_official_hf_twin():
    spec = backbone.DINOV2_BASE
    assert (spec.name, spec.filename, spec.hf_repo, spec.hf_revision, spec.snapshot) == (
        "dinov2_base", "model.safetensors", "facebook/dinov2-base",
        "f9e44c814b77203eaa57a6bdbbd535f21ede1415", True)
    assert spec.sha256 == "d73036b56966966d07975d696bde331762f37297e2f095de8cea0040c3aa0841"
    assert ("huggingface-cli download facebook/dinov2-base --revision "
            "f9e44c814b77203eaa57a6bdbbd535f21ede1415") in spec.fetch_command("/ckpt")


def test_the_pin_refuses_other_weights(checkpoint_dir):
    with pytest.raises(resolver.CheckpointUnavailable, match="expected sha256 d73036b5"):
        resolver.resolve(backbone.DINOV2_BASE, checkpoint_dir=str(checkpoint_dir), offline=True)


def test_loaded_model_is_eval_float32_with_hub_position_table(model, checkpoint_dir):
    assert not model.training
    assert all(p.dtype == torch.float32 for p in model.parameters())
    table = model.embeddings.position_embeddings
    assert tuple(table.shape) == (1, 257, _HIDDEN)
    original = Dinov2Model.from_pretrained(str(checkpoint_dir / "dinov2_base"))
    source = original.embeddings.position_embeddings.detach()
    assert tuple(source.shape) == (1, 1 + 37 * 37, _HIDDEN)
    expected = _numpy_hub_table(source.numpy(), 16, 0.1)
    np.testing.assert_allclose(table.detach().numpy(), expected, atol=5e-5, rtol=0)
    # transformers' own resampling (size=(16, 16)) is offset 0: a different table.
    hf_table = original.embeddings.interpolate_pos_encoding(torch.zeros(1, 257, _HIDDEN), 224, 224)
    np.testing.assert_allclose(hf_table.detach().numpy(), _numpy_hub_table(source.numpy(), 16, 0.0),
                               atol=5e-5, rtol=0)
    assert np.abs(hf_table.detach().numpy() - expected).max() > 1e-2


def test_position_table_of_a_224_grid_is_kept(tmp_path):
    folder = tiny_checkpoint.save_tiny_dinov2(tmp_path, image_size=224)
    loaded = backbone.load_dinov2(folder, "cpu")
    original = Dinov2Model.from_pretrained(str(folder))
    assert torch.equal(loaded.embeddings.position_embeddings,
                       original.embeddings.position_embeddings)


def test_non_square_position_grid_is_rejected():
    with pytest.raises(ValueError, match="square"):
        backbone.hub_position_embeddings(torch.zeros(1, 1 + 12, 4), 16)


@pytest.mark.parametrize("height,width", [(360, 640), (640, 360), (300, 301), (224, 224)])
def test_preprocess_matches_numpy_transcription(height, width):
    frames = _frames(2, height, width, seed=height + width)
    pixels = backbone.preprocess(frames)
    assert tuple(pixels.shape) == (2, 3, 224, 224) and pixels.dtype == torch.float32
    for got, frame in zip(pixels.numpy(), frames):
        np.testing.assert_allclose(got, _reference_pixels(frame), atol=1e-5, rtol=0)


def test_preprocess_rejects_bad_frames():
    with pytest.raises(ValueError, match="at least one"):
        backbone.preprocess([])
    with pytest.raises(ValueError, match="uint8"):
        backbone.preprocess([np.zeros((32, 32, 3), dtype=np.float32)])


def test_patch_tokens_shape_norm_and_reference(model):
    frames = _frames(3, 180, 320, seed=1)
    tokens = backbone.patch_tokens(model, frames, "cpu")
    assert tuple(tokens.shape) == (3, 256, _HIDDEN)
    np.testing.assert_allclose(tokens.norm(dim=-1).numpy(), 1.0, atol=1e-5)
    pixels = torch.from_numpy(np.stack([_reference_pixels(f) for f in frames]))
    with torch.no_grad():
        hidden = model(pixel_values=pixels).last_hidden_state
    assert tuple(hidden.shape) == (3, 257, _HIDDEN)  # CLS + 256 patches, no registers
    expected = hidden[:, 1:] / hidden[:, 1:].norm(dim=-1, keepdim=True)
    np.testing.assert_allclose(tokens.numpy(), expected.numpy(), atol=1e-4, rtol=0)


def test_batched_tokens_equal_per_frame_tokens(model):
    frames = _frames(4, 120, 200, seed=2)
    batched = backbone.patch_tokens(model, frames, "cpu")
    single = torch.cat([backbone.patch_tokens(model, [f], "cpu") for f in frames])
    np.testing.assert_allclose(batched.numpy(), single.numpy(), atol=1e-5, rtol=0)


if __name__ == "__main__":
    raise SystemExit(pytest.main([__file__, "-q"]))
