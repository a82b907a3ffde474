"""DROID-SLAM's CUDA float16 autocast policy (droid_video.Amp) without a GPU: as upstream
(droid_video's docstring), the loop runs under `torch.autocast(device_type="cuda")`
(float16) and keeps float16 feature buffers exactly on a CUDA device; on any other device
nothing is autocast and every buffer is float32. The `[cuda]` case checks the policy on a
real GPU (metrics/slam/cuda/gpu_check.sh runs it and fails where it was skipped)."""

import types

import numpy as np
import pytest
import torch

from metrics.slam import droid_net
from metrics.slam import droid_tracker
from metrics.slam import droid_video
from metrics.slam import tiny_droid_net
from metrics.testing import autocast_recorder

# droid_tracker_test's official arguments, on a short sequence.
ARGS = types.SimpleNamespace(
    buffer=512, filter_thresh=0.01, warmup=8, beta=0.3, keyframe_thresh=4.0,
    frontend_thresh=16.0, frontend_window=25, frontend_radius=2, frontend_nms=1,
    backend_thresh=22.0, backend_radius=2, backend_nms=3, upsample=True)
INTERNALS = types.SimpleNamespace(
    frontend_max_factors=48, frontend_max_age=25, frontend_iters=(4, 2), init_iters=(8, 8),
    init_neighborhood_radius=3, init_proximity_rad=2, init_proximity_nms=2,
    init_proximity_beta=0.25, backend_factors_per_keyframe=16, filler_batch=16,
    filler_iters=6, frontend_ba=(1e-4, 0.1), backend_ba=(1e-5, 1e-2), damping_scale=0.2,
    damping_eps=1e-7)


_Recorder = autocast_recorder.AutocastRecorder


@pytest.mark.parametrize("device,enabled,dtype", [
    ("cuda", True, torch.float16), ("cuda:0", True, torch.float16),
    (torch.device("cuda", 1), True, torch.float16), ("cpu", False, torch.float32)])
def test_the_policy_follows_the_device(monkeypatch, device, enabled, dtype):
    recorder = _Recorder()
    monkeypatch.setattr(torch, "autocast", recorder)
    amp = droid_video.Amp(device)
    assert amp.enabled is enabled and amp.feature_dtype == dtype
    with amp.autocast():
        pass
    if enabled:  # no dtype given: CUDA autocast's default, float16 (upstream's)
        assert recorder.calls == [{"device_type": "cuda", "dtype": None, "enabled": True}]
        assert torch.get_autocast_dtype("cuda") == torch.float16
    else:
        assert recorder.calls == []


def _frames(n=10, step=3, seed=0):
    """A random texture panned `step` px per frame: n frames of 64 x 64 BGR uint8."""
    tex = (np.random.default_rng(seed).random((64, 64 + step * n, 3)) * 255).astype(np.uint8)
    return [(t, torch.as_tensor(np.ascontiguousarray(tex[:, step * t:step * t + 64]))
             .permute(2, 0, 1)[None], torch.tensor([60.0, 60.0, 32.0, 32.0]))
            for t in range(n)]


@pytest.fixture(scope="module")
def net(tmp_path_factory):
    torch.set_num_threads(1)
    path = tmp_path_factory.mktemp("ckpt") / "droid.pth"
    tiny_droid_net.save_tiny(path, seed=0)
    return droid_net.load_droid_net(path, "cpu", tiny_droid_net.TINY)


def test_the_tracker_keeps_its_features_in_the_policys_dtype(monkeypatch, net):
    class _HalfFeatures(droid_video.Amp):  # CUDA's buffers, without CUDA
        def __init__(self, device):
            super().__init__(device)
            self.feature_dtype = torch.float16
    built = droid_tracker.DroidTracker(net, ARGS, INTERNALS, (64, 64), 4)
    assert {built.video.fmaps.dtype, built.video.nets.dtype, built.video.inps.dtype} == {
        torch.float32}
    monkeypatch.setattr(droid_video, "Amp", _HalfFeatures)
    half = droid_tracker.DroidTracker(net, ARGS, INTERNALS, (64, 64), 4)
    assert {half.video.fmaps.dtype, half.video.nets.dtype, half.video.inps.dtype} == {
        torch.float16}
    assert half.video.poses.dtype == half.video.disps.dtype == torch.float32


def test_a_cpu_run_never_enters_autocast_and_stays_float32(monkeypatch, net):
    recorder = _Recorder()
    monkeypatch.setattr(torch, "autocast", recorder)
    out = droid_tracker.track_sequence(net, _frames(), ARGS, INTERNALS, (5, 10))
    assert recorder.calls == []
    assert out.trajectory.dtype == np.float32 and np.isfinite(out.trajectory).all()
    assert out.target.dtype == out.coords1.dtype == torch.float32


@pytest.mark.skipif(not torch.cuda.is_available(), reason="[cuda] needs a GPU")
def test_cuda_policy_runs_convolutions_in_float16():
    """[cuda] The policy on a real GPU: float16 feature buffers, a convolution inside its
    autocast runs in float16 and none outside it."""
    amp = droid_video.Amp("cuda")
    video = droid_video.DepthVideo((64, 64), 4, 8, 8, "cuda", amp.feature_dtype)
    assert video.fmaps.dtype == torch.float16 and video.fmaps.is_cuda
    conv = torch.nn.Conv2d(3, 4, 3).cuda()
    x = torch.rand(1, 3, 16, 16, device="cuda")
    with amp.autocast():
        assert conv(x).dtype == torch.float16
    assert conv(x).dtype == torch.float32
