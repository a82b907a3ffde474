"""SEA-RAFT's CUDA float16 autocast (flow.calc_flow, flow.SeaRaftFlow) without a GPU: the
official call's `torch.amp.autocast(device_type="cuda")` is entered enabled exactly when
the frames are on a CUDA device and autocast is asked for, with CUDA autocast's float16,
around the network only; the flow comes back as float32 numpy whatever the network's
dtype. The `[cuda]` case runs the tiny model on a real GPU (metrics/slam/cuda/gpu_check.sh
runs it and fails where it was skipped)."""

import types

import numpy as np
import pytest
import torch

from metrics.flow.sea_raft import config
from metrics.flow.sea_raft import flow as flow_lib
from metrics.flow.sea_raft import model
from metrics.flow.sea_raft import tiny_checkpoint
from metrics.testing import autocast_recorder

TINY = config.tiny()


_Recorder = autocast_recorder.AutocastRecorder


class _FakeNet:
    """The network: records whether autocast was on around it; a zero flow."""

    def __init__(self, recorder, dtype=torch.float32):
        self.config, self.recorder, self.dtype, self.seen = TINY, recorder, dtype, []

    def __call__(self, img1, img2):
        self.seen.append(self.recorder.active)
        return torch.zeros((1, 2) + tuple(img1.shape[-2:]), dtype=self.dtype)


def _on_device(device_type):
    """flow.network_input standing in: a real tensor whose .device reads `device_type`."""
    def network_input(image, scale):
        del scale
        return types.SimpleNamespace(device=torch.device(device_type), shape=image.shape)
    return network_input


@pytest.mark.parametrize("device,asked,enabled", [
    ("cuda", True, True), ("cuda", False, False), ("cpu", True, False), ("cpu", False, False)])
def test_autocast_is_on_exactly_on_cuda_when_asked(monkeypatch, device, asked, enabled):
    recorder = _Recorder()
    monkeypatch.setattr(torch.amp, "autocast", recorder)
    monkeypatch.setattr(flow_lib, "network_input", _on_device(device))
    net = _FakeNet(recorder)
    flow_lib.calc_flow(net, torch.zeros(1, 3, 16, 24), torch.zeros(1, 3, 16, 24), asked)
    assert len(recorder.calls) == 1
    call = recorder.calls[0]
    assert call["device_type"] == "cuda" and call["enabled"] is enabled
    # No dtype given: CUDA autocast's default, float16 (the official call's).
    assert call["dtype"] is None and torch.get_autocast_dtype("cuda") == torch.float16
    assert net.seen == [True]  # the network runs inside it (disabled: a no-op)
    assert not recorder.active  # and only the network: the rescale runs after it


def test_a_float16_network_output_comes_back_float32(monkeypatch):
    monkeypatch.setattr(flow_lib, "calc_flow", lambda *args: torch.ones(
        (1, 2, 8, 12), dtype=torch.float16))
    net = model.SeaRaft(TINY).eval()
    got = flow_lib.SeaRaftFlow(net)(np.zeros((8, 12, 3), np.uint8),
                                   np.zeros((8, 12, 3), np.uint8))
    assert got.dtype == np.float32 and got.shape == (8, 12, 2)


def test_on_cpu_the_real_network_runs_float32_with_autocast_asked(monkeypatch):
    net = model.SeaRaft(TINY)
    net.load_state_dict(tiny_checkpoint.seeded_state_dict(TINY, seed=5))
    dtypes = _conv_output_dtypes(net.eval())
    frames = np.random.default_rng(0).integers(0, 256, (2, 257, 273, 3), dtype=np.uint8)
    got = flow_lib.SeaRaftFlow(net, autocast=True)(frames[0], frames[1])
    assert dtypes and set(dtypes) == {torch.float32}
    assert got.dtype == np.float32 and np.isfinite(got).all()


def _conv_output_dtypes(net):
    dtypes = []
    for module in net.modules():
        if isinstance(module, torch.nn.Conv2d):
            module.register_forward_hook(lambda m, i, out: dtypes.append(out.dtype))
    return dtypes


@pytest.mark.skipif(not torch.cuda.is_available(), reason="[cuda] needs a GPU")
def test_cuda_runs_the_convolutions_in_float16_and_returns_float32():
    """[cuda] The real thing: float16 convolutions under autocast and a finite float32
    flow (autocast off: every convolution float32)."""
    net = model.SeaRaft(TINY)
    net.load_state_dict(tiny_checkpoint.seeded_state_dict(TINY, seed=5))
    net = net.eval().to("cuda")
    dtypes = _conv_output_dtypes(net)
    frames = np.random.default_rng(0).integers(0, 256, (2, 257, 273, 3), dtype=np.uint8)
    half = flow_lib.SeaRaftFlow(net, autocast=True)(frames[0], frames[1])
    assert torch.float16 in dtypes
    dtypes.clear()
    full = flow_lib.SeaRaftFlow(net, autocast=False)(frames[0], frames[1])
    assert set(dtypes) == {torch.float32}
    assert half.dtype == full.dtype == np.float32 and np.isfinite(half).all()
