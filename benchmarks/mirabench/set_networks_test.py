"""The networks' embeddings see the frames in the colour order their official code reads."""

import numpy as np

from benchmarks.mirabench import set_networks


def test_i3d_gets_rgb_frames_from_the_runners_bgr_decode():
    bgr = np.zeros((3, 4, 5, 3), np.uint8)
    bgr[..., 0] = 200  # blue in OpenCV's order
    seen = []

    def compute(frames, model):
        seen.append((frames, model))
        return np.arange(400, dtype=np.float32)

    out = set_networks.i3d_embedding(bgr, "model", compute)
    assert out.shape == (1, 400)
    (frames, model), = seen
    assert model == "model"
    np.testing.assert_array_equal(frames, bgr[..., ::-1])
    assert frames[0, 0, 0].tolist() == [0, 0, 200]  # blue last: RGB
    assert frames.flags["C_CONTIGUOUS"]
