"""metrics.i3d.clip_logits on a tiny random InceptionI3d: each frame resized alone, the
clip scaled to [-1, 1] in (1, 3, T, 224, 224), against the network called by hand."""

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from metrics.i3d import clip_logits
from metrics.i3d import inception_i3d


@pytest.fixture(scope="module")
def model():
    torch.manual_seed(2)
    return inception_i3d.InceptionI3d(400, width_divisor=64).eval()


class _Flatten(torch.nn.Module):
    """A stand-in network: its "logits" are the clip it receives, flattened."""

    def __init__(self):
        super().__init__()
        self.anchor = torch.nn.Parameter(torch.zeros(1))

    def forward(self, video):
        return video.flatten(1)


def test_the_network_gets_each_frame_resized_and_the_clip_scaled_to_plus_minus_one():
    frames = np.random.default_rng(1).integers(0, 256, (9, 30, 41, 3), dtype=np.uint8)
    frames[0] = 0
    frames[1] = 255
    video = torch.from_numpy(frames).float().permute(0, 3, 1, 2)
    video = F.interpolate(video, size=(224, 224), mode="bilinear", align_corners=False)
    want = (video.permute(1, 0, 2, 3) / 255 * 2 - 1)[None]
    got = clip_logits.logits(list(frames), _Flatten())
    np.testing.assert_allclose(got, want.flatten().numpy(), atol=1e-6)
    got = got.reshape(3, 9, 224, 224)
    assert got[:, 0].max() == -1 and got[:, 1].min() == 1


def test_a_tiny_i3d_gives_its_time_averaged_logits(model):
    frames = np.random.default_rng(2).integers(0, 256, (9, 30, 41, 3), dtype=np.uint8)
    got = clip_logits.logits(list(frames), model)
    assert got.shape == (400,) and got.dtype == np.float32 and np.all(np.isfinite(got))


def test_too_few_frames_is_an_error(model):
    frames = list(np.zeros((8, 16, 16, 3), np.uint8))
    with pytest.raises(ValueError, match="at least 9 frames"):
        clip_logits.logits(frames, model)
