"""metrics.flow.raft_things: the official RAFT key layout onto torchvision's raft_large.

tiny_raft_things (testdata/raft_things_keys.txt) lists every key and shape of the official full-size
checkpoint layout (made weight-free from the official RAFT code, see its header). The
checkpoint used here is built from that list with random tensors (each norm3 the same
tensor as its downsample.1, as the official module saves it), written with torch.save and
loaded through load_raft_things. Full-size parity against the official RAFT code on the
same random weights (random BatchNorm statistics too), 20 iterations, 130x190 and 180x320
frames: max |flow difference| 0.0 (bit-identical on CPU).
"""

import numpy as np
import pytest
import torch
from torchvision.models.optical_flow import raft_large

from metrics.flow import raft_things
from metrics.flow import tiny_raft_things
from metrics.flow import tensors

@pytest.fixture(scope="module")
def official_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("raft") / "raft-things.pth"
    return path, tiny_raft_things.write_official_file(path, seed=11)


def test_full_size_key_list_maps_one_to_one_onto_raft_large():
    layout = tiny_raft_things.official_layout()
    target = {k: tuple(v.shape) for k, v in raft_large(weights=None).state_dict().items()}
    mapped = {}
    for key, shape in layout.items():
        name = raft_things.official_key_to_torchvision(key[len("module."):])
        if name is None:
            assert ".norm3." in key
            continue
        assert name not in mapped
        mapped[name] = shape
    assert mapped == target
    assert len(layout) - len(mapped) == 10  # norm3 of cnet layer2.0 / layer3.0 (5 tensors each)
    # A few names spelled out, independently of the rules.
    for official, ours in [("fnet.conv1.weight", "feature_encoder.convnormrelu.0.weight"),
                           ("cnet.layer2.0.norm3.bias", None),
                           ("cnet.layer3.0.downsample.1.running_var",
                            "context_encoder.layer3.0.downsample.1.running_var"),
                           ("fnet.layer1.1.conv2.bias", "feature_encoder.layer1.1.convnormrelu2.0.bias"),
                           ("update_block.encoder.convf1.weight",
                            "update_block.motion_encoder.convflow1.0.weight"),
                           ("update_block.gru.convq2.bias",
                            "update_block.recurrent_block.convgru2.convq.bias"),
                           ("update_block.mask.2.weight", "mask_predictor.conv.weight")]:
        assert raft_things.official_key_to_torchvision(official) == ours


def test_official_file_loads_strictly_with_every_tensor_in_place(official_file):
    path, state = official_file
    model = raft_things.load_raft_things(path, "cpu")
    assert not model.training
    got = model.state_dict()
    for key, value in state.items():
        name = raft_things.official_key_to_torchvision(key[len("module."):])
        if name is not None:
            assert torch.equal(got[name], value), key


class _Recorder(torch.nn.Module):
    """Stands in for raft_large: returns [image1 - image2, image1] and records the call."""

    def forward(self, image1, image2, num_flow_updates):
        self.updates = num_flow_updates
        return [image1 - image2, image1]


def test_flow_pads_centred_scales_to_unit_range_and_keeps_the_padded_size():
    rng = np.random.default_rng(2)
    a = torch.from_numpy(rng.integers(0, 256, (1, 3, 123, 133)).astype(np.float32))
    b = torch.roll(a, 2, dims=3)
    assert tensors.centred_padding(123, 133, 8) == (1, 2, 2, 3)
    model = _Recorder()
    got = raft_things.flow(model, a, b)
    assert model.updates == 20 and got.shape == (1, 3, 128, 136)
    padded = np.pad(a[0].numpy(), ((0, 0), (2, 3), (1, 2)), mode="edge")
    want = 2 * (padded / np.float32(255.0)) - np.float32(1.0)
    np.testing.assert_array_equal(got[0].numpy(), want)  # the last prediction, as is


@pytest.mark.parametrize("damage", ["prefix", "norm3", "unknown"])
def test_bad_checkpoints_are_clear_errors(official_file, tmp_path, damage):
    state = dict(official_file[1])
    if damage == "prefix":
        state = {k[len("module."):]: v for k, v in state.items()}
        match = "lacks the 'module.' prefix"
    elif damage == "norm3":
        state["module.cnet.layer2.0.norm3.weight"] = state["module.cnet.layer2.0.norm3.weight"] + 1
        match = "does not equal its downsample.1 twin"
    else:
        state["module.fnet.extra.weight"] = torch.zeros(1)
        match = "not a parameter of RAFT"
    path = tmp_path / "bad.pth"
    torch.save(state, path)
    with pytest.raises(ValueError, match=match):
        raft_things.load_raft_things(path, "cpu")
