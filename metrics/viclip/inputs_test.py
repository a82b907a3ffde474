"""metrics.viclip.inputs against numpy / PIL-free transcriptions of the official rules."""

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from metrics.viclip import inputs


@pytest.mark.parametrize("vlen, want", [
    (16, [0, 2, 4, 6, 8, 10, 12, 14]), (100, [5, 18, 30, 43, 55, 68, 80, 93]),
    (9, [0, 1, 2, 3, 4, 5, 6, 7]), (3, [0, 1, 2, 2, 2, 2, 2, 2]), (1, [0] * 8)])
def test_middle_indices(vlen, want):
    assert inputs.middle_frame_indices(vlen) == want
    edges = [int(e) for e in np.linspace(0, vlen, min(8, vlen) + 1)]
    mids = [(a + b - 1) // 2 for a, b in zip(edges[:-1], edges[1:])]
    assert want[:len(mids)] == mids


def test_context_tokens_keep_eot_last_and_pad_with_zeros():
    assert inputs.context_tokens([5, 6], sot=1, eot=2, context_length=6) == [1, 5, 6, 2, 0, 0]
    long = inputs.context_tokens(list(range(10, 50)), sot=1, eot=2)
    assert len(long) == 32 and long[0] == 1 and long[-1] == 2 and long[1:31] == list(range(10, 40))
    exact = inputs.context_tokens(list(range(10, 40)), sot=1, eot=2)  # 32 tokens: no cut
    assert exact[-2:] == [39, 2]


@pytest.mark.parametrize("antialias", [False, True])
def test_pixel_values_are_tensor_bicubic_then_crop_then_clip_normalised(antialias):
    frames = np.random.default_rng(0).integers(0, 256, (2, 60, 90, 3), dtype=np.uint8)
    got = inputs.pixel_values(frames, antialias=antialias)
    assert got.shape == (2, 3, 224, 224)
    x = torch.from_numpy(frames).permute(0, 3, 1, 2).float()
    resized = F.interpolate(x, size=(224, 336), mode="bicubic", align_corners=False,
                            antialias=antialias).round().clamp(0, 255)
    mean = torch.tensor(inputs.CLIP_MEAN)[:, None, None]
    std = torch.tensor(inputs.CLIP_STD)[:, None, None]
    want = (resized[..., :, 56:280] / 255.0 - mean) / std
    torch.testing.assert_close(got, want, rtol=0, atol=1e-5)
    other = inputs.pixel_values(frames, antialias=not antialias)
    assert (other - got).abs().max() > 0.01  # the setting changes the input


def test_bad_input():
    with pytest.raises(ValueError, match="uint8"):
        inputs.pixel_values(np.zeros((2, 8, 8), np.uint8))
    with pytest.raises(ValueError, match=">= 1 frame"):
        inputs.middle_frame_indices(0)
