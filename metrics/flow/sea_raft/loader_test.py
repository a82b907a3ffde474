"""load_sea_raft on a tiny seeded model saved in the official file formats."""

import numpy as np
import pytest
import torch

from metrics.flow.sea_raft import config
from metrics.flow.sea_raft import loader
from metrics.flow.sea_raft import model
from metrics.flow.sea_raft import tiny_checkpoint

TINY = config.tiny()


def _images(seed=0, size=(136, 128)):
    rng = np.random.default_rng(seed)
    return [torch.from_numpy(rng.uniform(0, 255, size=(1, 3) + size).astype(np.float32))
            for _ in range(2)]


def _reference(state):
    net = model.SeaRaft(TINY)
    net.load_state_dict(state)
    with torch.no_grad():
        return net.eval()(*_images())


@pytest.mark.parametrize("name", ["Tartan-tiny.pth", "model.safetensors"])
def test_official_formats_load_strictly_and_give_the_same_flow(tmp_path, name):
    state = tiny_checkpoint.seeded_state_dict(TINY, seed=3)
    path = tiny_checkpoint.save(state, tmp_path / name, TINY)
    net = loader.load_sea_raft(path, "cpu", TINY)
    assert not net.training
    for key, value in net.state_dict().items():
        assert torch.equal(value, state[key]), key
    with torch.no_grad():
        flow = net(*_images())
    assert flow.shape == (1, 2, 136, 128)
    assert float(flow.abs().max()) > 0.1  # the seeded weights give a non-trivial flow
    torch.testing.assert_close(flow, _reference(state), rtol=0, atol=0)


def test_another_seed_gives_another_flow(tmp_path):
    flows = []
    for seed in (0, 1):
        path = tiny_checkpoint.save(tiny_checkpoint.seeded_state_dict(TINY, seed),
                                    tmp_path / f"{seed}.pth")
        with torch.no_grad():
            flows.append(loader.load_sea_raft(path, "cpu", TINY)(*_images()))
    assert float((flows[0] - flows[1]).abs().max()) > 1e-2


def test_default_config_is_full_size_spring_m(tmp_path):
    path = tiny_checkpoint.save(tiny_checkpoint.seeded_state_dict(TINY), tmp_path / "t.pth")
    with pytest.raises(ValueError, match=r"spring|wrong shape|missing") as error:
        loader.load_sea_raft(path, "cpu")
    assert str(path) in str(error.value)


def test_missing_unexpected_and_misshapen_tensors_are_named(tmp_path):
    state = tiny_checkpoint.seeded_state_dict(TINY)
    del state["flow_head.2.bias"]
    state["module.extra"] = torch.zeros(1)
    state["init_conv.bias"] = torch.zeros(3)
    path = tiny_checkpoint.save(state, tmp_path / "bad.pth")
    with pytest.raises(ValueError) as error:
        loader.load_sea_raft(path, "cpu", TINY)
    message = str(error.value)
    for fragment in ("1 missing", "flow_head.2.bias", "1 unexpected", "module.extra",
                     "init_conv.bias (3,)"):
        assert fragment in message


def test_not_a_state_dict_and_absent_files(tmp_path):
    with pytest.raises(FileNotFoundError, match="does not exist"):
        loader.load_sea_raft(tmp_path / "absent.pth", "cpu", TINY)
    (tmp_path / "junk.pth").write_bytes(b"not a checkpoint")
    with pytest.raises(ValueError, match="junk.pth: expected a SEA-RAFT state dict"):
        loader.load_sea_raft(tmp_path / "junk.pth", "cpu", TINY)
    torch.save({"model": {"a": torch.zeros(1)}}, tmp_path / "nested.pth")
    with pytest.raises(ValueError, match="flat dict of tensors"):
        loader.load_sea_raft(tmp_path / "nested.pth", "cpu", TINY)


def test_the_hub_safetensors_file_holds_one_name_per_shared_tensor(tmp_path):
    state = tiny_checkpoint.seeded_state_dict(TINY, seed=3)
    path = tiny_checkpoint.save(state, tmp_path / "model.safetensors", TINY)
    stored = loader.read_state_dict(path)
    assert "fnet.layer2.0.bn3.weight" in stored
    assert "fnet.layer2.0.downsample.1.weight" not in stored
    assert len(stored) == len(state) - 4 * 5  # 4 strided blocks x 5 BatchNorm tensors
