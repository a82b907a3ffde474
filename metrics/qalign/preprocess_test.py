"""CLIP preprocessing as the official scorer does it (square pad, bicubic, normalise)."""

import json

import numpy as np
import pytest
from PIL import Image

from metrics.qalign import preprocess


def test_pad_colour_is_the_truncated_clip_mean():
    assert preprocess.Preprocess().pad_colour == (122, 116, 104)


def test_a_wide_frame_is_padded_top_and_bottom_then_resized():
    prep = preprocess.Preprocess(size=8, crop_size=8)
    frame = np.full((2, 8, 3), 255, np.uint8)  # 8 wide, 2 high -> rows 3..4 of 8
    out = prep.frame(frame)
    assert out.shape == (3, 8, 8) and out.dtype == np.float32
    white = (1.0 - np.float32(preprocess.CLIP_MEAN[0])) / np.float32(preprocess.CLIP_STD[0])
    grey = (np.float32(122 / 255) - np.float32(preprocess.CLIP_MEAN[0])) / np.float32(
        preprocess.CLIP_STD[0])
    np.testing.assert_allclose(out[0, 0], grey, rtol=1e-6)
    np.testing.assert_allclose(out[0, 3:5, 2:6], white, rtol=1e-6)


def test_resize_is_pil_bicubic_and_scaling_is_float64_then_float32():
    rng = np.random.default_rng(0)
    frame = rng.integers(0, 256, (30, 30, 3), dtype=np.uint8)
    prep = preprocess.Preprocess(size=14, crop_size=14)
    resized = np.array(Image.fromarray(frame).resize((14, 14), Image.BICUBIC))
    want = ((resized * (1 / 255)).astype(np.float32) - np.array(preprocess.CLIP_MEAN, np.float32)
            ) / np.array(preprocess.CLIP_STD, np.float32)
    np.testing.assert_array_equal(prep.frame(frame), want.transpose(2, 0, 1))


def test_load_reads_the_snapshot_and_refuses_other_forms(tmp_path):
    assert preprocess.load(tmp_path) == preprocess.Preprocess()
    path = tmp_path / "preprocessor_config.json"
    path.write_text(json.dumps({"size": {"shortest_edge": 28}, "crop_size": 28, "resample": 2}))
    assert preprocess.load(tmp_path) == preprocess.Preprocess(size=28, crop_size=28, resample=2)
    path.write_text(json.dumps({"size": {"height": 20, "width": 30}}))
    with pytest.raises(ValueError, match="one integer edge"):
        preprocess.load(tmp_path)
    with pytest.raises(ValueError, match="RGB uint8"):
        preprocess.Preprocess().frame(np.zeros((4, 4), np.uint8))
