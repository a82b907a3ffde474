"""Tests for metrics.depth.depth_anything with a tiny random Depth Anything saved by the test.

The model and the official preprocessor_config.json go through the real path:
<checkpoint_dir>/depth_anything_v2_small, metrics.checkpoints.resolver,
load_depth_anything. The processor's output is checked against a PIL + numpy
transcription of the slow DPT preprocessing written here.
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

from metrics.checkpoints import resolver
from metrics.depth import depth_anything
from metrics.depth import tiny_checkpoint


# Random weights cannot match the pinned sha256: the tests resolve them unpinned.
_UNPINNED = dataclasses.replace(depth_anything.DEPTH_ANYTHING_V2_SMALL, sha256="")


@pytest.fixture(scope="module")
def checkpoint_dir(tmp_path_factory):
    folder = tmp_path_factory.mktemp("ckpt")
    tiny_checkpoint.save_tiny_depth_anything(folder)
    return folder


@pytest.fixture(scope="module")
def loaded(checkpoint_dir):
    found = resolver.resolve(_UNPINNED, checkpoint_dir=str(checkpoint_dir), offline=True)
    return depth_anything.load_depth_anything(found.path, "cpu")


def _frames(count, height, width, seed):
    rng = np.random.default_rng(seed)
    return [rng.integers(0, 256, (height, width, 3), dtype=np.uint8) for _ in range(count)]


def _multiple_of_14(value):
    return round(value / 14) * 14


def _reference_pixels(frame_bgr):
    """Keep-aspect resize towards 518x518 (the axis needing the smaller change wins),
    each side rounded to a multiple of 14, PIL bicubic, /255, ImageNet mean/std."""
    height, width = frame_bgr.shape[:2]
    scale_h, scale_w = 518 / height, 518 / width
    scale = scale_w if abs(1 - scale_w) < abs(1 - scale_h) else scale_h
    size = (_multiple_of_14(scale * width), _multiple_of_14(scale * height))
    image = Image.fromarray(np.ascontiguousarray(frame_bgr[:, :, ::-1])).resize(
        size, Image.Resampling.BICUBIC)
    rgb = np.asarray(image).astype(np.float64) / 255
    mean, std = np.array([0.485, 0.456, 0.406]), np.array([0.229, 0.224, 0.225])
    return ((rgb - mean) / std).transpose(2, 0, 1)


def test_hub_is_offline():
    assert huggingface_hub.constants.HF_HUB_OFFLINE


def test_spec_matches_the_official_repository():
    spec = depth_anything.DEPTH_ANYTHING_V2_SMALL
    assert (spec.name, spec.filename, spec.hf_repo, spec.hf_revision, spec.snapshot) == (
        "depth_anything_v2_small", "model.safetensors",
        "depth-anything/Depth-Anything-V2-Small-hf", "5426e4f0f36572d16453bbda7a8389317b1bef99",
        True)
    assert spec.sha256 == "3152477ce0d8d6978d76b995120de97cb5b928701fd0f817769f59e249a16b70"


def test_the_pin_refuses_other_weights(checkpoint_dir):
    with pytest.raises(resolver.CheckpointUnavailable, match="expected sha256 3152477c"):
        resolver.resolve(depth_anything.DEPTH_ANYTHING_V2_SMALL,
                         checkpoint_dir=str(checkpoint_dir), offline=True)


def test_resolver_and_loader(loaded, checkpoint_dir):
    found = resolver.resolve(_UNPINNED, checkpoint_dir=str(checkpoint_dir), offline=True)
    assert (found.source, found.path) == ("checkpoint_dir",
                                          checkpoint_dir / "depth_anything_v2_small")
    model, processor = loaded
    assert not model.training
    assert all(p.dtype == torch.float32 for p in model.parameters())
    assert processor.backend == "pil" and type(processor).__name__ == "DPTImageProcessorPil"
    assert (processor.keep_aspect_ratio, processor.ensure_multiple_of) == (True, 14)


def test_loader_needs_the_processor_config(tmp_path):
    folder = tiny_checkpoint.save_tiny_depth_anything(tmp_path)
    (folder / "preprocessor_config.json").unlink()
    with pytest.raises(FileNotFoundError, match="preprocessor_config.json"):
        depth_anything.load_depth_anything(folder, "cpu")


@pytest.mark.parametrize("height,width,expected", [
    (360, 640, (294, 518)), (640, 360, (518, 294)), (100, 100, (518, 518)),
    (480, 640, (518, 686)), (333, 200, (518, 308)),
])
def test_processor_matches_numpy_transcription(loaded, height, width, expected):
    _, processor = loaded
    frames = _frames(2, height, width, seed=height * width)
    images = [Image.fromarray(np.ascontiguousarray(f[:, :, ::-1])) for f in frames]
    pixels = processor(images=images, return_tensors="pt")["pixel_values"]
    assert tuple(pixels.shape) == (2, 3) + expected
    for got, frame in zip(pixels.numpy(), frames):
        np.testing.assert_allclose(got, _reference_pixels(frame), atol=1e-5, rtol=0)


def test_depth_maps_at_model_output_resolution(loaded):
    model, processor = loaded
    depths = depth_anything.depth_maps(model, processor, _frames(3, 90, 160, seed=1), "cpu")
    assert [tuple(d.shape) for d in depths] == [(294, 518)] * 3
    assert all(d.dtype == torch.float32 and float(d.max()) > float(d.min()) >= 0 for d in depths)


def test_batched_depths_equal_per_frame_depths_in_one_call(loaded):
    model, processor = loaded
    frames = _frames(4, 72, 128, seed=2)
    calls = []
    handle = model.register_forward_hook(lambda m, a, kw, out: calls.append(kw), with_kwargs=True)
    try:
        batched = depth_anything.depth_maps(model, processor, frames, "cpu")
    finally:
        handle.remove()
    assert len(calls) == 1 and calls[0]["pixel_values"].shape[0] == 4
    for depth, frame in zip(batched, frames):
        single = depth_anything.depth_maps(model, processor, [frame], "cpu")[0]
        scale = float(single.abs().max())
        np.testing.assert_allclose(depth.numpy(), single.numpy(), atol=1e-5 * scale, rtol=0)


def test_frames_of_two_sizes_run_in_two_calls_in_order(loaded):
    model, processor = loaded
    small, large = _frames(1, 60, 80, seed=3)[0], _frames(1, 120, 80, seed=4)[0]
    depths = depth_anything.depth_maps(model, processor, [small, large, small], "cpu")
    assert [tuple(d.shape) for d in depths] == [(392, 518), (518, 350), (392, 518)]
    assert torch.allclose(depths[0], depths[2])


def test_depth_maps_reject_bad_frames(loaded):
    model, processor = loaded
    with pytest.raises(ValueError, match="at least one"):
        depth_anything.depth_maps(model, processor, [], "cpu")
    with pytest.raises(ValueError, match="uint8"):
        depth_anything.depth_maps(model, processor, [np.zeros((8, 8), np.uint8)], "cpu")


def test_reference_size_rule_examples():
    assert _multiple_of_14(291.375) == 294 and math.isclose(518 / 640 * 360, 291.375)


if __name__ == "__main__":
    raise SystemExit(pytest.main([__file__, "-q"]))
