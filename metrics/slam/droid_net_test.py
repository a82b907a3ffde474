"""droid_net.py: full-size keys against the official DroidNet's, the real loader on a
tiny droid.pth-format file, and the weight-free pieces against hand arithmetic."""

import json
import pathlib

import pytest
import torch

from metrics.slam import droid_net
from metrics.slam import tiny_droid_net

_KEYS = pathlib.Path(__file__).parent / "testdata" / "droid_net_keys.json"


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    path = tmp_path_factory.mktemp("ckpt") / "droid.pth"
    return tiny_droid_net.save_tiny(path), path


def test_full_size_keys_and_shapes_equal_the_official_droidnet():
    official = json.loads(_KEYS.read_text())
    with torch.device("meta"):
        ours = droid_net.DroidNet().state_dict()
    assert {k: list(v.shape) for k, v in ours.items()} == official["keys"]
    assert sum(v.numel() for v in ours.values()) == official["num_parameters"] == 4002565
    assert official["checkpoint_prefix"] == droid_net.PREFIX
    assert tuple(official["head_keys"]) == droid_net.HEAD_KEYS


def test_full_size_checkpoint_format_maps_onto_droidnet():
    official = json.loads(_KEYS.read_text())
    state = {}
    for key, shape in official["keys"].items():
        if key in droid_net.HEAD_KEYS:
            shape = [official["checkpoint_head_channels"]] + shape[1:]
        state[droid_net.PREFIX + key] = torch.empty(shape, device="meta")
    mapped = droid_net.from_checkpoint(state)
    assert {k: list(v.shape) for k, v in mapped.items()} == official["keys"]


def test_tiny_checkpoint_loads_through_the_real_loader(tiny):
    net, path = tiny
    raw = torch.load(path, weights_only=True)
    assert all(k.startswith("module.") for k in raw)
    assert raw["module.update.delta.2.weight"].shape[0] == 3
    loaded = droid_net.load_droid_net(path, config=tiny_droid_net.TINY)
    for key, value in net.state_dict().items():
        assert torch.equal(loaded.state_dict()[key], value), key
    torch.manual_seed(1)
    images = torch.randint(0, 256, (1, 2, 3, 32, 48)).float()
    fmaps, h, inp = loaded.extract_features(images)
    assert fmaps.shape == (1, 2, 8, 4, 6) and h.shape == inp.shape == (1, 2, 8, 4, 6)
    assert h.abs().max() <= 1 and inp.min() >= 0
    ii, jj = torch.tensor([0, 0, 1]), torch.tensor([1, 1, 0])
    corr = torch.randn(1, 3, tiny_droid_net.TINY.corr_planes, 4, 6)
    motion = torch.randn(1, 3, 4, 4, 6)
    out = loaded.update(h[:, ii], inp[:, ii], corr, motion, ii, jj)
    new_h, delta, weight, eta, upmask = out
    assert new_h.shape == (1, 3, 8, 4, 6) and delta.shape == weight.shape == (1, 3, 4, 6, 2)
    assert eta.shape == (1, 2, 4, 6) and upmask.shape == (1, 2, 576, 4, 6)
    assert weight.min() > 0 and weight.max() < 1 and eta.min() > 0
    # the third checkpoint channel (x100 random) is dropped, not used
    assert delta.abs().max() < 50


def test_loader_errors_name_the_file(tmp_path):
    bad = tmp_path / "droid.pth"
    torch.save({"module.fnet.conv1.weight": torch.zeros(1)}, bad)
    with pytest.raises(ValueError, match=r"droid.pth: not a DROID-SLAM checkpoint"):
        droid_net.load_droid_net(bad)
    net = droid_net.DroidNet(tiny_droid_net.TINY)
    torch.save(tiny_droid_net.official_format_state(net), bad)
    with pytest.raises(ValueError, match=r"droid.pth: does not fit DroidNet"):
        droid_net.load_droid_net(bad)  # full-size config on tiny weights


def test_mean_over_sources_groups_edges_by_source_frame():
    x = torch.arange(4.0).view(1, 4, 1, 1, 1)
    ii = torch.tensor([5, 2, 5, 5])
    got = droid_net.mean_over_sources(x, ii)
    assert got.flatten().tolist() == pytest.approx([1.0, (0 + 2 + 3) / 3])  # sources 2, 5


def test_convex_upsample_of_a_constant_is_constant_inside_and_zero_padded_at_borders():
    data = torch.full((1, 4, 5, 1), 7.0)
    mask = torch.randn(1, 576, 4, 5)
    up = droid_net.convex_upsample(data, mask)
    assert torch.allclose(up[:, 8:24, 8:32], torch.full((1, 16, 24, 1), 7.0))
    assert up[0, 0, 0, 0] < 7.0  # the 3x3 neighbourhood reaches the zero padding


def test_a_one_hot_centre_mask_picks_the_coarse_pixel():
    field = torch.arange(6.0).view(1, 2, 3, 1)
    pick_centre = torch.full((1, 9, 64, 2, 3), -1e4)
    pick_centre[:, 4] = 0  # the centre of the 3x3 neighbourhood
    up = droid_net.upsample_disparity(field.view(1, 1, 2, 3), pick_centre.view(1, 1, 576, 2, 3))
    assert torch.equal(up[0, 0, ::8, ::8], field[0, :, :, 0])
    assert torch.equal(up[0, 0, 7, 15], field[0, 0, 1, 0])


def test_full_size_outputs_equal_the_official_droidnet(tmp_path):
    """Official outputs recorded by droid_net_official_outputs.py on the same weights/inputs."""
    from metrics.slam import droid_net_parity_inputs as inputs  # pylint: disable=import-outside-toplevel
    official = json.loads((_KEYS.parent / "droid_net_official_outputs.json").read_text())
    inputs.write_checkpoint(tmp_path / "droid.pth")
    net = droid_net.load_droid_net(tmp_path / "droid.pth")
    images, corr, motion, ii, jj = inputs.tensors()
    with torch.no_grad():
        fmaps, hidden, inp = net.extract_features(images)
        outs = net.update(hidden[:, ii], inp[:, ii], corr, motion, ii, jj)
    names = ("fmaps", "net", "inp", "update_net", "delta", "weight", "eta", "upmask")
    for name, tensor in zip(names, (fmaps, hidden, inp) + outs):
        want, got = official["outputs"][name], inputs.summary(tensor)
        assert got["shape"] == want["shape"], name
        assert got["first"] == pytest.approx(want["first"], rel=1e-5, abs=1e-6), name
        for key in ("sum", "abs_sum"):
            assert got[key] == pytest.approx(want[key], rel=1e-5, abs=1e-4), (name, key)
