"""Tests for metrics.flow.tensors against torchvision's to_tensor and numpy padding."""

import cv2
import numpy as np
import pytest
import torch
from torchvision.transforms import functional as TF

from metrics import device as device_lib
from metrics.flow import tensors


def _frames(count, height, width, seed=0):
    rng = np.random.default_rng(seed)
    return rng.integers(0, 256, (count, height, width, 3), dtype=np.uint8)


def test_to_unit_rgb_equals_to_tensor_of_the_rgb_frame():
    frames = _frames(3, 7, 9)
    expected = torch.stack([TF.to_tensor(cv2.cvtColor(f, cv2.COLOR_BGR2RGB)) for f in frames])
    got = tensors.to_unit_rgb(frames)
    assert got.dtype == torch.float32 and got.shape == (3, 3, 7, 9)
    assert torch.equal(got, expected)
    # Channel 0 is red, i.e. the BGR frame's last channel, in [0, 1].
    assert torch.equal(got[:, 0], torch.from_numpy(frames[..., 2]).float() / 255)
    assert float(got.min()) >= 0.0 and float(got.max()) <= 1.0


def test_to_unit_rgb_accepts_a_list_of_frames():
    frames = _frames(2, 4, 5, seed=1)
    assert torch.equal(tensors.to_unit_rgb(list(frames)), tensors.to_unit_rgb(frames))


@pytest.mark.parametrize("bad", [
    np.zeros((1, 4, 4, 3), np.float32),
    np.zeros((4, 4, 3), np.uint8),
    np.zeros((1, 4, 4, 4), np.uint8),
])
def test_to_unit_rgb_rejects_other_inputs(bad):
    with pytest.raises(ValueError, match="BGR uint8"):
        tensors.to_unit_rgb(bad)


@pytest.mark.parametrize("height,width,want", [
    (60, 76, (64, 80)), (64, 80, (64, 80)), (1, 9, (8, 16)), (124, 130, (128, 136))])
def test_pad_to_multiple_replicates_bottom_and_right(height, width, want):
    images = torch.rand(2, 3, height, width, generator=torch.Generator().manual_seed(2))
    padded = tensors.pad_to_multiple(images)
    assert tuple(padded.shape[-2:]) == want
    pad = ((0, 0), (0, 0), (0, want[0] - height), (0, want[1] - width))
    expected = np.pad(images.numpy(), pad, mode="edge")
    assert np.array_equal(padded.numpy(), expected)


def test_pad_to_multiple_other_multiple_and_errors():
    images = torch.zeros(1, 1, 5, 5)
    assert tuple(tensors.pad_to_multiple(images, 4).shape) == (1, 1, 8, 8)
    with pytest.raises(ValueError, match="multiple"):
        tensors.pad_to_multiple(images, 0)
    with pytest.raises(ValueError, match="B, C, H, W"):
        tensors.pad_to_multiple(torch.zeros(3, 5, 5))


if __name__ == "__main__":
    raise SystemExit(pytest.main([__file__, "-q"]))


def test_to_device_pins_nothing_for_the_cpu(monkeypatch):
    def no_pinning(self):
        raise AssertionError("pin_memory called for a CPU target")

    monkeypatch.setattr(torch.Tensor, "pin_memory", no_pinning)
    frames = _frames(2, 4, 5, seed=2)
    tensor = torch.from_numpy(frames)
    for target in (None, "cpu", torch.device("cpu")):
        moved = device_lib.to_device(tensor, target)
        assert moved.device.type == "cpu" and not moved.is_pinned()
        assert torch.equal(moved, tensor)
    assert torch.equal(tensors.to_unit_rgb(frames, "cpu"), tensors.to_unit_rgb(frames))


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device")
def test_to_device_sends_the_same_values_to_cuda_from_pinned_memory():
    frames = _frames(3, 7, 9, seed=3)
    got = tensors.to_unit_rgb(frames, "cuda")
    assert got.device.type == "cuda"
    assert torch.equal(got.cpu(), tensors.to_unit_rgb(frames))
    tensor = torch.from_numpy(frames).permute(0, 3, 1, 2)  # not contiguous, as to_unit_rgb's
    moved = device_lib.to_device(tensor, "cuda")
    assert moved.stride() == tensor.stride() and torch.equal(moved.cpu(), tensor)
