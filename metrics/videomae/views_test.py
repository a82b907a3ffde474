"""VideoMAE v2 test views: the index arithmetic against the spec's worked cases (§4.4),
and the tensors against a torch transcription of the official ClipToTensor/Normalize."""

import cv2
import numpy as np
import pytest
import torch

from metrics.videomae import views


def test_sampling_of_49_16_and_10_frame_clips():
    assert views.sampled_indices(49) == [0, 4, 8, 12, 16, 20, 24, 28, 32, 36, 40, 44, 48,
                                         48, 48, 48]
    assert views.sampled_indices(16) == [0, 4, 8, 12] + [12] * 12
    assert views.sampled_indices(10) == [0, 4, 8] + [8] * 13
    assert views.temporal_starts(16) == [0] * 10      # 49 frames: 10 identical views
    assert views.temporal_starts(31) == [0, 1, 3, 5, 6, 8, 10, 11, 13, 15]  # 121 frames
    with pytest.raises(ValueError):
        views.sampled_indices(0)


def test_resize_and_crops_landscape_portrait_square():
    assert views.resized_size(480, 720) == (224, 336)
    assert views.spatial_starts(224, 336) == [0, 56, 112]
    assert views.resized_size(480, 832) == (224, 388)
    assert views.spatial_starts(224, 388) == [0, 82, 164]
    assert views.resized_size(832, 480) == (388, 224)
    assert views.resized_size(224, 300) == (224, 300)  # short side already 224: kept
    assert views.spatial_starts(224, 224) == [0, 0, 0]


def _torch_view(frames_rgb, indices, size_hw, rows, cols):
    """One view the way the official tensors are made: a float64 numpy (C, T, H, W) clip,
    torch float32, div 255, then in-place sub/div by the per-channel mean/std."""
    h, w = size_hw
    clip = [cv2.resize(frames_rgb[i], (w, h), interpolation=cv2.INTER_LINEAR)[rows, cols]
            for i in indices]
    np_clip = np.zeros([3, len(clip), 224, 224])
    for i, img in enumerate(clip):
        np_clip[:, i] = img.transpose(2, 0, 1)
    tensor = torch.div(torch.from_numpy(np_clip).float(), 255)
    mean = torch.as_tensor(views.MEAN, dtype=torch.float32)[:, None, None, None]
    std = torch.as_tensor(views.STD, dtype=torch.float32)[:, None, None, None]
    return tensor.sub_(mean).div_(std).numpy()


def test_views_equal_hand_built_tensors():
    """Landscape 21 x 97 x 131: indices 0..20 step 4 + 10 repeats, resized to 224 x 302,
    crops at columns 0/39/78, all temporal views at 0. Portrait 70 x 131 x 97: 18 indices,
    temporal starts 0 (k<=4), 1 (k<=8), 2 (k=9); resized to 302 x 224, crops at rows
    0/39/78."""
    rng = np.random.default_rng(1)
    land = (rng.random((21, 97, 131, 3)) * 255).astype(np.uint8)
    got = views.views(land)
    assert got.shape == (30, 3, 16, 224, 224) and got.dtype == np.float32
    idx = [0, 4, 8, 12, 16, 20] + [20] * 10
    np.testing.assert_array_equal(got[1], _torch_view(land, idx, (224, 302), slice(None),
                                                      slice(39, 263)))
    np.testing.assert_array_equal(got[28], got[1])
    port = (rng.random((70, 131, 97, 3)) * 255).astype(np.uint8)
    got = views.views(port)
    idx = list(range(0, 70, 4))
    np.testing.assert_array_equal(got[29], _torch_view(port, idx[2:18], (302, 224),
                                                       slice(78, 302), slice(None)))
    np.testing.assert_array_equal(got[15], _torch_view(port, idx[1:17], (302, 224),
                                                       slice(0, 224), slice(None)))


def test_expected_rating():
    assert views.expected_rating([0, 0, 0, 0, 1], [0, .25, .5, .75, 1]) == 1.0
    assert views.expected_rating([.2] * 5, [0, .25, .5, .75, 1]) == pytest.approx(0.5)
    with pytest.raises(ValueError):
        views.expected_rating([.5, .5], [0, .25, .5])


def test_mean_softmax_is_scipys_per_view_then_the_mean():
    logits = np.array([[0.5, -1.0, 2.0, 0.0, 0.25], [3.0, 3.0, -2.0, 0.0, 1.0]], np.float32)
    by_hand = [np.exp(row.astype(np.float64)) / np.exp(row.astype(np.float64)).sum()
               for row in logits]
    np.testing.assert_allclose(views.mean_softmax(logits), np.mean(by_hand, axis=0),
                               rtol=1e-15)
    with pytest.raises(ValueError):
        views.mean_softmax(np.zeros((0, 5)))
