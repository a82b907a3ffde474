"""imaging_quality on a tiny random MUSIQ (pyiqa's file format, read by load_musiq) against
the official `longer` preprocessing and per-frame loop around the same network."""

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from benchmarks.vbench.dimensions import fixtures
from benchmarks.vbench.dimensions import imaging_quality
from metrics.iqa import musiq
from metrics.iqa import tiny_musiq


@pytest.fixture(scope="module")
def model(tmp_path_factory):
    path = tmp_path_factory.mktemp("musiq") / "musiq_spaq_ckpt-358bb6af.pth"
    tiny_musiq.write_checkpoint(path, tiny_musiq.TINY, seed=7)
    return musiq.load_musiq(path, "cpu", tiny_musiq.TINY)


def reference(rgb: np.ndarray, net, size=None) -> float:
    """load_video's float tensor, optional bilinear resize (antialias off), / 255, one
    frame per call, Python-float running sum / T."""
    x = torch.from_numpy(rgb.astype(np.float32)).permute(0, 3, 1, 2)
    if size is not None:
        x = F.interpolate(x, size=size, mode="bilinear", align_corners=False, antialias=False)
    x = x / 255.0
    total = 0.0
    with torch.no_grad():
        for i in range(len(x)):
            total += float(net(x[i:i + 1]))
    return total / len(x)


def test_small_frames_are_not_resized(model):
    rgb = fixtures.frames(3, seed=6)
    value = imaging_quality.compute(fixtures.video(rgb), model, batch_size=2)
    assert value.video_results == pytest.approx(reference(rgb, model), abs=1e-4)
    assert value.extras == {} and value.pooled is None
    assert 1 < value.video_results < 99  # the 0-100 scale: no ÷100 per video


def test_longer_side_over_512_is_shrunk_to_int_sizes(model):
    # 300 x 561: s = 512 / 561, (int(273.8), int(511.99...)) = (273, 511), not 274 x 512.
    rgb = fixtures.frames(2, 300, 561, seed=7)
    shapes = []
    hook = model.register_forward_pre_hook(lambda m, args: shapes.append(tuple(args[0].shape)))
    try:
        value = imaging_quality.compute(fixtures.video(rgb), model)
    finally:
        hook.remove()
    assert {s[2:] for s in shapes} == {(273, 511)}
    ours = value.video_results
    assert ours == pytest.approx(reference(rgb, model, (273, 511)), abs=1e-4)
    assert abs(ours - reference(rgb, model, (274, 512))) > 1e-3
