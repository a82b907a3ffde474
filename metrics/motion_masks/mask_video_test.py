"""Tests for metrics.motion_masks.mask_video: the lossy mask-file round trip."""

import cv2
import numpy as np
import pytest

from metrics.motion_masks import mask_video


def _masks(seed, count=8, shape=(49, 65)):
    rng = np.random.default_rng(seed)
    masks = np.zeros((count,) + shape, np.uint8)
    for t in range(1, count):
        y, x = rng.integers(0, shape[0] - 12), rng.integers(0, shape[1] - 12)
        masks[t, y:y + 11, x:x + 9] = 255
    return masks


def _decode(path):
    return np.stack(list(mask_video.iter_video_frames(path)))


def _write_like_opencv_users(path, masks, fps):
    """Odd-size frames handed straight to a writer opened at the even size."""
    height, width = masks.shape[1:]
    writer = cv2.VideoWriter(
        str(path), cv2.VideoWriter_fourcc(*"mp4v"), fps, (width - width % 2, height - height % 2),
        isColor=False,
    )
    for mask in masks:
        writer.write(mask)
    writer.release()


def test_round_trip_is_lossy_three_channel_bgr(tmp_path):
    masks = _masks(0)
    path = tmp_path / "m.mp4"
    assert mask_video.write_mask_video(path, masks, fps=8, fourcc="mp4v") == 8
    decoded = _decode(path)
    assert decoded.dtype == np.uint8 and decoded.shape == (8, 48, 64, 3)
    capture = cv2.VideoCapture(str(path))
    assert capture.get(cv2.CAP_PROP_FPS) == 8.0
    capture.release()
    # Lossy: grey levels other than 0/255 appear.
    assert not np.array_equal(decoded[..., 0], masks[:, :48, :64])
    assert len(np.unique(decoded)) > 2


def test_decoded_channels_can_differ(tmp_path):
    # Busy masks: the decoder's YUV -> BGR conversion leaves B, G, R of a grey
    # frame a level apart here and there, so 3-channel and channel-0 masks differ.
    rng = np.random.default_rng(2)  # this seed shows it with OpenCV 4.14's FFmpeg
    masks = (rng.random((6, 48, 64)) > 0.7).astype(np.uint8) * 255
    path = tmp_path / "busy.mp4"
    mask_video.write_mask_video(path, masks, fps=8, fourcc="mp4v")
    decoded = _decode(path)
    assert not np.array_equal(decoded[..., 0], decoded[..., 1])


def test_odd_size_is_cropped_like_opencv_does(tmp_path):
    masks = _masks(1)  # 49 x 65
    ours, theirs = tmp_path / "cropped.mp4", tmp_path / "opencv.mp4"
    mask_video.write_mask_video(ours, masks, fps=8, fourcc="mp4v")
    _write_like_opencv_users(theirs, masks, 8)
    a, b = _decode(ours), _decode(theirs)
    assert a.shape == (8, 48, 64, 3)
    assert np.array_equal(a, b)


def test_even_size_kept_and_generator_input(tmp_path):
    masks = _masks(2, shape=(48, 64))
    path = tmp_path / "g.mp4"
    assert mask_video.write_mask_video(path, (m for m in masks), fps=30, fourcc="mp4v") == 8
    assert _decode(path).shape == (8, 48, 64, 3)


def test_errors(tmp_path):
    with pytest.raises(ValueError, match="no masks"):
        mask_video.write_mask_video(tmp_path / "e.mp4", [], fps=8, fourcc="mp4v")
    with pytest.raises(ValueError, match="2-D uint8"):
        mask_video.write_mask_video(tmp_path / "e.mp4", [np.zeros((8, 8, 3), np.uint8)], fps=8, fourcc="mp4v")
    with pytest.raises(ValueError, match="expected"):
        mask_video.write_mask_video(
            tmp_path / "e.mp4", [np.zeros((8, 8), np.uint8), np.zeros((8, 10), np.uint8)],
            fps=8, fourcc="mp4v",
        )
    with pytest.raises(OSError, match="cannot open video"):
        list(mask_video.iter_video_frames(tmp_path / "missing.mp4"))
