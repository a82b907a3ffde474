"""RTMDet: the official architecture's size, the checkpoint loader on a tiny random file
in the official format, and the post-processing against a numpy transcription."""

import numpy as np
import pytest
import torch

from metrics.pose import cspnext
from metrics.pose import rtmdet
from metrics.pose import tiny_models

# mmpose projects/rtmpose/README.md: RTMDet-m 24.66 M parameters (shared head convs once).
RTMDET_M_PARAMS = 24_663_447


def test_full_size_architecture_has_the_published_parameter_count():
    with torch.device("meta"):
        model = rtmdet.RTMDet(rtmdet.RtmdetConfig())
    assert sum(p.numel() for p in model.parameters()) == RTMDET_M_PARAMS
    keys = model.state_dict().keys()
    assert "bbox_head.cls_convs.2.1.conv.weight" in keys  # shared, still saved per level
    assert "bbox_head.cls_convs.2.1.bn.running_mean" in keys
    assert model.bbox_head.cls_convs[2][1].conv is model.bbox_head.cls_convs[0][1].conv
    assert "backbone.stage4.1.conv1.conv.weight" in keys  # SPPBottleneck
    assert "backbone.stage4.2.attention.fc.weight" in keys  # channel attention


def _sigmoid(x):
    return 1 / (1 + np.exp(-x))


def _reference(config, scores, dists, factor):
    """mmdet's per-level top-k, decode, clamp, rescale and single-class NMS, in numpy."""
    boxes, probs = [], []
    for s, d, stride in zip(scores, dists, config.strides):
        h, w = s.shape[-2:]
        p = _sigmoid(s.reshape(-1).astype(np.float64))
        d = d.reshape(4, -1).T
        ys, xs = np.divmod(np.arange(h * w), w)
        order = [i for i in np.argsort(-p, kind="stable") if p[i] > config.score_thr]
        order = order[:config.nms_pre]
        x, y = xs[order] * stride, ys[order] * stride
        boxes.append(np.stack([x - d[order, 0], y - d[order, 1], x + d[order, 2],
                               y + d[order, 3]], -1))
        probs.append(p[order])
    boxes, probs = np.concatenate(boxes), np.concatenate(probs)
    boxes[:, 0::2] = boxes[:, 0::2].clip(0, 640)
    boxes[:, 1::2] = boxes[:, 1::2].clip(0, 640)
    boxes = boxes / [factor[0], factor[1], factor[0], factor[1]]
    keep_wh = (boxes[:, 2] > boxes[:, 0]) & (boxes[:, 3] > boxes[:, 1])
    boxes, probs = boxes[keep_wh], probs[keep_wh]
    kept, order = [], list(np.argsort(-probs, kind="stable"))
    area = (boxes[:, 2] - boxes[:, 0]) * (boxes[:, 3] - boxes[:, 1])
    while order:
        i = order.pop(0)
        kept.append(i)
        iw = np.clip(np.minimum(boxes[i, 2], boxes[order, 2])
                     - np.maximum(boxes[i, 0], boxes[order, 0]), 0, None)
        ih = np.clip(np.minimum(boxes[i, 3], boxes[order, 3])
                     - np.maximum(boxes[i, 1], boxes[order, 1]), 0, None)
        iou = iw * ih / (area[i] + area[order] - iw * ih)
        order = [j for j, o in zip(order, iou) if o <= config.iou_threshold]
    kept = kept[:config.max_per_img]
    return boxes[kept], probs[kept]


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    path = tmp_path_factory.mktemp("rtmdet") / "rtmdet_tiny.pth"
    saved = tiny_models.save_tiny_rtmdet(path, seed=3, cls_bias=-2.0)
    return path, saved, rtmdet.load_rtmdet(path, "cpu", tiny_models.TINY_RTMDET)


def _assert_same_rows(boxes, scores, ref_boxes, ref_scores):
    """The same (score, box) rows up to order within near-equal scores: float32 vs
    float64 sigmoids may swap two scores 1e-7 apart, which only permutes rows."""
    rows = np.concatenate([np.asarray(scores, np.float64)[:, None], boxes], 1)
    ref = np.concatenate([np.asarray(ref_scores, np.float64)[:, None], ref_boxes], 1)
    assert rows.shape == ref.shape
    unused = list(range(len(ref)))
    for row in rows:
        close = [j for j in unused if abs(ref[j, 0] - row[0]) <= 1e-5
                 and np.abs(ref[j, 1:] - row[1:]).max() <= 1e-2]
        assert close, f"row {row} has no match in the reference"
        unused.remove(close[0])


def _frames():
    """Square noise frames: no padding, so no two priors see the same pixels (a padded
    area, or any flat area, gives exact score ties, whose order no implementation fixes)."""
    rng = np.random.default_rng(1)
    frames = rng.integers(0, 256, (2, 160, 160, 3), dtype=np.uint8)
    return frames


def test_detect_matches_the_numpy_transcription(tiny):
    _, saved, detector = tiny
    frames = _frames()
    found = detector.detect(frames)
    assert len(found) == 2
    factor = (4.0, 4.0)
    from metrics.pose import letterbox  # pylint: disable=import-outside-toplevel
    for frame, (boxes, scores, labels) in zip(frames, found):
        padded, got_factor = letterbox.letterbox(frame)
        assert got_factor == factor
        x = torch.from_numpy(padded).permute(2, 0, 1)[None].float()
        x = (x - torch.tensor(rtmdet.MEAN_BGR).view(1, 3, 1, 1)) / torch.tensor(
            rtmdet.STD_BGR).view(1, 3, 1, 1)
        with torch.no_grad():
            s, d = saved(x)
        ref_boxes, ref_scores = _reference(tiny_models.TINY_RTMDET,
                                           [t[0].numpy() for t in s],
                                           [t[0].numpy() for t in d], factor)
        assert 1 < len(boxes) <= 100 and (labels == 0).all()
        assert boxes.dtype == np.float32
        np.testing.assert_allclose(scores, ref_scores, rtol=1e-5)
        _assert_same_rows(boxes, scores, ref_boxes, ref_scores)
        assert (np.diff(scores) <= 0).all()  # descending


def test_batching_does_not_change_boxes(tiny):
    path, _, _ = tiny
    frames = _frames()
    one = rtmdet.load_rtmdet(path, "cpu", tiny_models.TINY_RTMDET, batch_size=1)
    for (b1, s1, _), (b2, s2, _) in zip(one.detect(frames), tiny[2].detect(frames)):
        np.testing.assert_allclose(s1, s2, atol=1e-5)
        _assert_same_rows(b1, s1, b2, s2)


def test_loader_refuses_a_checkpoint_of_another_shape(tmp_path, tiny):
    path, _, _ = tiny
    with pytest.raises(ValueError, match="does not match the architecture"):
        rtmdet.load_rtmdet(path, "cpu", rtmdet.RtmdetConfig(
            backbone=cspnext.CSPNeXtConfig(deepen_factor=0.33, widen_factor=0.25)))
    state = torch.load(str(path), weights_only=False)["state_dict"]
    del state["bbox_head.rtm_reg.1.bias"]
    torch.save({"state_dict": state}, str(tmp_path / "missing.pth"))
    with pytest.raises(ValueError, match=r"missing\.pth.*missing: \['bbox_head.rtm_reg.1"):
        rtmdet.load_rtmdet(tmp_path / "missing.pth", "cpu", tiny_models.TINY_RTMDET)
    (tmp_path / "junk.pth").write_bytes(b"not a checkpoint")
    with pytest.raises(ValueError, match="junk.pth: expected an OpenMMLab RTMDet"):
        rtmdet.load_rtmdet(tmp_path / "junk.pth", "cpu", tiny_models.TINY_RTMDET)
    with pytest.raises(FileNotFoundError, match="nope.pth"):
        rtmdet.load_rtmdet(tmp_path / "nope.pth", "cpu", tiny_models.TINY_RTMDET)


def test_distances_are_exp_of_the_regression_times_stride():
    """mmdet 3.2.0's rtmdet_m config inherits exp_on_reg=True from rtmdet_l (the
    official run's numbers); a later mmdet sets False for -m. Pinned here."""
    assert rtmdet.RtmdetConfig().exp_on_reg
    head = rtmdet.RTMDetSepBNHead(tiny_models.TINY_RTMDET).eval()
    with torch.no_grad():
        for conv in head.rtm_reg:
            conv.weight.zero_()
            conv.bias.fill_(float(np.log(2.0)))
        feats = [torch.randn(1, 16, 80 // 2 ** i, 80 // 2 ** i) for i in range(3)]
        _, distances = head(feats)
    for dist, stride in zip(distances, (8, 16, 32)):
        torch.testing.assert_close(dist, torch.full_like(dist, 2.0 * stride))
