"""Tests for metrics.flow.raft with a tiny random RAFT-large saved by the test.

The random weights go through the real path: saved under the official file
name, found by metrics.checkpoints.resolver, loaded by load_raft. The reference
flows run the in-memory model on inputs prepared here with numpy (RGB flip,
/255, edge padding), independently of metrics.flow.tensors.
"""

import dataclasses

import numpy as np
import pytest
import torch
from torchvision.models.optical_flow import raft_large

from metrics.checkpoints import resolver
from metrics.flow import raft
from metrics.testing.isolation import no_real_caches  # noqa: F401  (autouse fixture)

# RAFT's correlation pyramid needs >= 128 px per side after padding; 124x130
# pads to 128x136, exercising the bottom/right replicate padding.
_HEIGHT, _WIDTH = 124, 130
_UNPINNED = dataclasses.replace(raft.RAFT_LARGE, sha256="")


@pytest.fixture(scope="module")
def random_raft(tmp_path_factory):
    """(model in eval mode, checkpoint folder holding its state dict)."""
    torch.manual_seed(1234)
    model = raft_large(weights=None, progress=False).eval()
    folder = tmp_path_factory.mktemp("ckpt")
    torch.save(model.state_dict(), folder / raft.RAFT_LARGE.filename)
    return model, folder


def _pairs(count, seed):
    rng = np.random.default_rng(seed)
    shape = (_HEIGHT, _WIDTH, 3)
    return [(rng.integers(0, 256, shape, dtype=np.uint8),
             rng.integers(0, 256, shape, dtype=np.uint8)) for _ in range(count)]


def _reference_flow(model, frame_a, frame_b):
    """Official preprocessing written with numpy, then one model call."""
    def prepare(frame):
        rgb = frame[:, :, ::-1].astype(np.float32) / np.float32(255)
        pad = ((0, -_HEIGHT % 8), (0, -_WIDTH % 8), (0, 0))
        padded = np.pad(rgb, pad, mode="edge")
        return torch.from_numpy(np.ascontiguousarray(padded.transpose(2, 0, 1)))[None]
    with torch.no_grad():
        flow = model(prepare(frame_a), prepare(frame_b))[-1]
    assert flow.shape[-2:] == (128, 136)
    return flow[0, :, :_HEIGHT, :_WIDTH]


def test_spec_is_torchvision_default():
    assert raft.RAFT_LARGE.filename in raft.RAFT_LARGE.url
    assert raft.RAFT_LARGE.filename.endswith(f"-{raft.RAFT_LARGE.sha256}.pth")


def test_resolved_random_checkpoint_loads_strictly(random_raft):
    model, folder = random_raft
    found = resolver.resolve(_UNPINNED, checkpoint_dir=str(folder))
    assert found.source == "checkpoint_dir"
    assert found.path == folder / raft.RAFT_LARGE.filename
    loaded = raft.load_raft(found.path, "cpu")
    assert not loaded.training
    expected = model.state_dict()
    got = loaded.state_dict()
    assert got.keys() == expected.keys()
    assert all(torch.equal(got[k], expected[k]) for k in expected)


def test_pinned_spec_rejects_the_random_file(random_raft):
    _, folder = random_raft
    with pytest.raises(resolver.CheckpointUnavailable,
                       match=r"expected sha256 ff5fadd5\.\.\., found [0-9a-f]{64}"):
        raft.resolve_raft(checkpoint_dir=str(folder), offline=True)


def test_missing_checkpoint_offline_names_the_fetch_command(tmp_path):
    with pytest.raises(resolver.CheckpointUnavailable) as info:
        raft.resolve_raft(checkpoint_dir=str(tmp_path / "empty"), offline=True)
    message = str(info.value)
    assert "--offline" in message
    assert ("curl -L https://download.pytorch.org/models/raft_large_C_T_SKHT_V2-ff5fadd5.pth"
            in message)


@pytest.mark.parametrize("damage", ["drop", "extra"])
def test_load_is_strict(random_raft, tmp_path, damage):
    model, _ = random_raft
    state = dict(model.state_dict())
    if damage == "drop":
        state.pop(next(iter(state)))
    else:
        state["unexpected.weight"] = torch.zeros(1)
    path = tmp_path / "bad.pth"
    torch.save(state, path)
    with pytest.raises(RuntimeError, match="Missing key|Unexpected key"):
        raft.load_raft(path, "cpu")


def test_flows_equal_the_model_run_directly(random_raft):
    model, folder = random_raft
    loaded = raft.load_raft(folder / raft.RAFT_LARGE.filename, "cpu")
    pairs = _pairs(2, seed=5)
    flows = raft.RaftFlow(loaded, "cpu", batch_size=2)(pairs)
    assert flows.shape == (2, 2, _HEIGHT, _WIDTH) and flows.dtype == torch.float32
    assert torch.isfinite(flows).all() and float(flows.abs().max()) > 0.1
    for i, (a, b) in enumerate(pairs):
        torch.testing.assert_close(flows[i], _reference_flow(model, a, b), rtol=1e-5, atol=1e-5)
    # Swapping the frames changes the flow: the pair order reaches the model.
    swapped = raft.RaftFlow(loaded, "cpu")([(b, a) for a, b in pairs[:1]])
    assert float((swapped[0] - flows[0]).abs().max()) > 1e-3


def test_batching_equals_per_pair(random_raft):
    model, _ = random_raft
    pairs = _pairs(3, seed=6)
    batched = raft.RaftFlow(model, "cpu", batch_size=2)(pairs)  # Batches of 2 and 1.
    single = raft.RaftFlow(model, "cpu", batch_size=1)(pairs)
    assert batched.shape == single.shape == (3, 2, _HEIGHT, _WIDTH)
    torch.testing.assert_close(batched, single, rtol=1e-5, atol=1e-5)


def test_raft_flow_rejects_bad_arguments(random_raft):
    model, _ = random_raft
    with pytest.raises(ValueError, match="batch_size"):
        raft.RaftFlow(model, "cpu", batch_size=0)
    with pytest.raises(ValueError, match="at least one"):
        raft.RaftFlow(model, "cpu")([])


if __name__ == "__main__":
    raise SystemExit(pytest.main([__file__, "-q"]))
