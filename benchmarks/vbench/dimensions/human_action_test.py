"""human_action's model side: the UMT transforms against a transcription written here (and
their quirks pinned), VBench's class list out of the pinned wheel, and compute() end to end
on a tiny UMT read through the real loader. The network and the transforms against the
official code on full-size weights: //tools/calibration:vbench_umt_parity_test."""

import pathlib

import cv2
import numpy as np
import pytest
import torch

from benchmarks.vbench import dimension
from benchmarks.vbench.dimensions import human_action
from metrics.umt import loader
from metrics.umt import tiny_umt

MEAN = np.array([0.485, 0.456, 0.406])
STD = np.array([0.229, 0.224, 0.225])


def _frames(count, height, width, seed=0):
    rng = np.random.default_rng(seed)
    return rng.integers(0, 256, size=(count, height, width, 3), dtype=np.uint8)


def _transcribed(frames, size, offsets):
    """Resize to `size` (w, h) with cv2 bilinear, crop 224 at `offsets`, /255, ImageNet
    normalisation in float64; (3, T, 224, 224)."""
    resized = [cv2.resize(f, size, interpolation=cv2.INTER_LINEAR) for f in frames]
    top, left = offsets
    crop = np.stack([r[top:top + 224, left:left + 224] for r in resized]) / 255.0
    return ((crop - MEAN) / STD).transpose(3, 0, 1, 2)


@pytest.mark.parametrize("height,width,size,offsets", [
    (240, 320, (341, 256), (16, 58)),    # 256*320/240 = 341.3; (341-224)/2 = 58.5 -> 58
    (360, 640, (455, 256), (16, 116)),   # 455.1; 115.5 -> 116 (half to even)
    (320, 240, (256, 341), (58, 16)),    # portrait
    (240, 355, (378, 256), (16, 77)),    # 378.67 truncated, not rounded
    (300, 300, (256, 256), (16, 16)),    # square: both sides 256
])
def test_clip_tensor_matches_the_transcription(height, width, size, offsets):
    frames = _frames(3, height, width)
    assert human_action.resized_size(height, width) == (size[1], size[0])
    ours = human_action.clip_tensor(frames)
    assert ours.dtype == torch.float32 and ours.shape == (3, 3, 224, 224)
    np.testing.assert_allclose(ours.numpy(), _transcribed(frames, size, offsets), atol=2e-6)


def test_the_quirks_are_pinned():
    assert human_action.resized_size(240, 355) == (256, 378)  # int(), not round()
    assert human_action.crop_offsets(256, 341) == (16, 58)    # round(58.5) = 58
    assert human_action.crop_offsets(256, 455) == (16, 116)   # round(115.5) = 116
    # A short side of 256 is not resized (upstream returns the frames as they are).
    frames = _frames(2, 256, 300)
    ours = human_action.clip_tensor(frames)
    expected = ((frames[:, 16:240, 38:262] / 255.0 - MEAN) / STD).transpose(3, 0, 1, 2)
    np.testing.assert_allclose(ours.numpy(), expected, atol=2e-6)
    with pytest.raises(ValueError, match="uint8"):
        human_action.clip_tensor(frames.astype(np.float32))


def test_the_scaling_is_float32_division_of_the_widened_values():
    """ClipToTensor widens to float32 then divides by 255 in float32; Normalize subtracts
    and divides by float32 mean and std: bit for bit."""
    frames = _frames(2, 280, 256, seed=1)  # short side 256: not resized
    ours = human_action.clip_tensor(frames)
    x = torch.from_numpy(frames[:, 28:252, 16:240].copy()).permute(3, 0, 1, 2).float() / 255
    mean = torch.tensor(MEAN, dtype=torch.float32)[:, None, None, None]
    std = torch.tensor(STD, dtype=torch.float32)[:, None, None, None]
    assert torch.equal(ours, (x - mean) / std)


def test_the_official_categories_come_from_the_wheel():
    names = human_action.official_categories()
    assert len(names) == 400
    assert names[0] == "riding a bike" and names[399] == "playing badminton"


@pytest.fixture(scope="module")
def tiny_model(tmp_path_factory):
    path = tmp_path_factory.mktemp("umt") / "l16_ptk710_ftk710_ftk400_f16_res224.pth"
    tiny_umt.write_checkpoint(path, tiny_umt.TINY, seed=7)
    model, _ = loader.load_umt(path, "cpu", tiny_umt.TINY)
    return model


def test_compute_end_to_end(tiny_model):
    rgb = _frames(20, 240, 320, seed=2)
    names = human_action.official_categories()
    picked = rgb[[0, 1, 2, 3, 5, 6, 7, 8, 10, 11, 12, 13, 15, 16, 17, 18]]  # 16 middle of 20
    with torch.no_grad():
        logits = tiny_model(human_action.clip_tensor(picked)[None])
    values, indices = torch.topk(torch.sigmoid(logits), 5, dim=1)
    top = int(indices[0, 0])
    kept = [names[int(i)] for p, i in zip(values[0].tolist(), indices[0].tolist())
            if round(p, 4) >= 0.85]
    for label in (names[top], "abseiling" if names[top] != "abseiling" else "archery"):
        video = dimension.Video(rgb, 8.0, pathlib.Path(f"/v/a person is {label}-0.mp4"))
        got = human_action.compute(video, tiny_model)
        correct = label in kept
        assert got == dimension.Value(video_results=correct,
                                      extras={"cor_num_per_video": int(correct)})


def test_compute_counts_a_confident_match(tiny_model):
    """With class 0's logit raised far above the rest, "riding a bike" is kept and wins."""
    rgb = _frames(5, 360, 640, seed=3)  # fewer than 16 frames: the last one repeated
    with torch.no_grad():
        tiny_model.head.bias[0] += 20.0
    try:
        got = human_action.compute(
            dimension.Video(rgb, 8.0, pathlib.Path("/v/a person is riding a bike-3.mp4")),
            tiny_model)
        other = human_action.compute(
            dimension.Video(rgb, 8.0, pathlib.Path("/v/a person is marching-3.mp4")),
            tiny_model)
    finally:
        with torch.no_grad():
            tiny_model.head.bias[0] -= 20.0
    assert got == dimension.Value(True, {"cor_num_per_video": 1})
    assert other == dimension.Value(False, {"cor_num_per_video": 0})


def test_compute_refuses_a_model_of_another_class_count(tiny_model):
    rgb = _frames(4, 256, 256)
    video = dimension.Video(rgb, 8.0, pathlib.Path("/v/x-0.mp4"))
    with pytest.raises(ValueError, match=r"expected logits \(1, 3\)"):
        human_action.compute(video, tiny_model, names={0: "a", 1: "b", 2: "c"})
