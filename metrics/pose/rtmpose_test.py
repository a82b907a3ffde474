"""RTMPose: the official architecture's size, the gated attention unit against numpy, and
the estimator (crop, BGR->RGB, normalise, flip test, decode, back to the image) on a tiny
random checkpoint in the official format against an independent reconstruction."""

import cv2
import numpy as np
import pytest
import torch

from metrics.pose import rtmpose
from metrics.pose import tiny_models

# mmpose projects/rtmpose/README.md: RTMPose-m 13.59 M parameters.
RTMPOSE_M_PARAMS = 13_587_611


def test_full_size_architecture_has_the_published_parameter_count():
    with torch.device("meta"):
        model = rtmpose.TopdownRTMPose(rtmpose.RtmposeConfig())
    assert sum(p.numel() for p in model.parameters()) == RTMPOSE_M_PARAMS
    shapes = {k: tuple(v.shape) for k, v in model.state_dict().items()}
    assert shapes["head.final_layer.weight"] == (17, 768, 7, 7)
    assert shapes["head.mlp.1.weight"] == (256, 48)
    assert shapes["head.gau.uv.weight"] == (2 * 512 + 128, 256)
    assert shapes["head.cls_x.weight"] == (384, 256)
    assert shapes["head.cls_y.weight"] == (512, 256)


def _scale_norm(x, g, eps=1e-5):
    norm = np.linalg.norm(x, axis=-1, keepdims=True) * x.shape[-1] ** -0.5
    return x / np.maximum(norm, eps) * g


def _silu(x):
    return x / (1 + np.exp(-x))


def test_gated_attention_unit_matches_numpy():
    torch.manual_seed(0)
    gau = rtmpose.GatedAttentionUnit(dims=8, s=4, expansion_factor=2)
    with torch.no_grad():
        for p in gau.parameters():
            p.copy_(torch.randn(p.shape))
    x = torch.randn(2, 5, 8)
    with torch.no_grad():
        got = gau(x).numpy()
    w = {k: v.numpy().astype(np.float64) for k, v in gau.state_dict().items()}
    xn = x.numpy().astype(np.float64)
    uv = _silu(_scale_norm(xn, w["ln.g"]) @ w["uv.weight"].T)
    u, v, base = uv[..., :16], uv[..., 16:32], uv[..., 32:]
    q = base * w["gamma"][0] + w["beta"][0]
    k = base * w["gamma"][1] + w["beta"][1]
    kernel = np.square(np.maximum(q @ k.transpose(0, 2, 1) / 2.0, 0))
    want = xn * w["res_scale.scale"] + (u * (kernel @ v)) @ w["o.weight"].T
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    path = tmp_path_factory.mktemp("rtmpose") / "rtmpose_tiny.pth"
    saved = tiny_models.save_tiny_rtmpose(path, seed=5)
    return saved, rtmpose.load_rtmpose(path, "cpu", tiny_models.TINY_RTMPOSE)


def test_keypoints_match_an_independent_reconstruction(tiny):
    saved, estimator = tiny
    rng = np.random.default_rng(2)
    image = rng.integers(0, 256, (120, 160, 3), dtype=np.uint8)
    box = np.array([30, 20, 90, 100], np.float32)  # 60 x 80 -> 75 x 100 (already 3:4)
    points, scores = estimator.keypoints([(image, box), (image, np.array(
        [0, 0, 160, 120], np.float32))])
    assert points.shape == (2, 17, 2) and scores.shape == (2, 17)
    # independent: crop by the plain scale-and-shift matrix, RGB, normalise, flip test
    s = 256 / 100.0
    matrix = np.array([[s, 0, 96 - 60 * s], [0, s, 128 - 60 * s]])
    crop = cv2.warpAffine(image, matrix, (192, 256), flags=cv2.INTER_LINEAR)
    rgb = crop[..., ::-1].astype(np.float32)
    x = (rgb - np.array(rtmpose.MEAN_RGB, np.float32)) / np.array(rtmpose.STD_RGB, np.float32)
    x = torch.from_numpy(np.ascontiguousarray(x.transpose(2, 0, 1)))[None]
    with torch.no_grad():
        sx, sy = (t.numpy() for t in saved(x))
        fx, fy = (t.numpy() for t in saved(torch.flip(x, [3])))
    flip = [0, 2, 1, 4, 3, 6, 5, 8, 7, 10, 9, 12, 11, 14, 13, 16, 15]
    ax, ay = (sx + fx[:, flip, ::-1]) / 2, (sy + fy[:, flip]) / 2
    want_scores = np.minimum(ax.max(-1), ay.max(-1))[0]
    locs = np.stack([ax.argmax(-1), ay.argmax(-1)], -1)[0] / 2.0
    locs[want_scores <= 0] = -0.5
    want = locs / s + [60 - 96 / s, 60 - 128 / s]
    np.testing.assert_allclose(scores[0], want_scores, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(points[0], want, atol=1e-3)
    assert np.ptp(points[0][:, 0]) > 0  # not a degenerate network
    # batch independence: the same box alone gives the same answer
    alone, alone_scores = estimator.keypoints([(image, box)])
    np.testing.assert_allclose(alone[0], points[0], atol=1e-3)
    np.testing.assert_allclose(alone_scores[0], scores[0], rtol=1e-4, atol=1e-5)


def test_loader_refuses_a_detector_checkpoint(tmp_path):
    path = tmp_path / "det.pth"
    tiny_models.save_tiny_rtmdet(path)
    with pytest.raises(ValueError, match=r"det\.pth: does not match.*unexpected"):
        rtmpose.load_rtmpose(path, "cpu", tiny_models.TINY_RTMPOSE)
