"""droid_net.py: full-size keys against the official DroidNet's, the real loader on a
tiny droid.pth-format file, the weight-free pieces against hand arithmetic, and the
full-size outputs (and corr.CorrBlock's pyramid) element-wise against stored official ones."""

import hashlib
import json
import pathlib

import numpy as np
import pytest
import torch

from metrics.slam import corr
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


# ---- full-size parity with the official network (stored official outputs) ----
# testdata/droid_net_official.{npz,json}: the official DroidNet (WorldScore 344983c's vendored
# DROID-SLAM = princeton-vl/DROID-SLAM@2dfd39f) run outside the repository on the seeded
# weights and inputs of droid_net_parity_inputs; the JSON says how. Ours is recomputed here.
_TOLERANCE = 1e-5  # of max |official| over the whole tensor, float32 (tools/calibration/README.md)
_TENSORS = ("fmaps", "net", "inp", "update_net", "delta", "weight", "eta", "upmask",
            "corr_level0", "corr_level1", "corr_level2", "corr_level3")
_CORR_SHAPE = (1, 1, 128, 16, 24)  # the official CorrBlock also pools its last level: >= 16 px


def _digest(arrays) -> str:
    h = hashlib.sha256()
    for a in arrays:
        h.update(np.ascontiguousarray(a).tobytes())
    return h.hexdigest()


@pytest.fixture(scope="module")
def official_run(tmp_path_factory):
    """(metadata, stored official arrays, our tensors on the same weights and inputs)."""
    from metrics.slam import droid_net_parity_inputs as inputs  # pylint: disable=import-outside-toplevel
    meta = json.loads((_KEYS.parent / "droid_net_official.json").read_text())
    with np.load(_KEYS.parent / "droid_net_official.npz") as npz:
        stored = dict(npz)
    path = tmp_path_factory.mktemp("droid") / "droid.pth"
    inputs.write_checkpoint(path)
    raw = torch.load(path, weights_only=True)
    assert _digest(raw[k].numpy() for k in sorted(raw)) == meta["weights_sha256"], (
        "the seeded droid.pth changed (torch's init or DroidNet's parameter order): the stored "
        "official outputs no longer apply; rerun the official side (droid_net_official.json 'how')")
    images, volume, motion, ii, jj = inputs.tensors()
    assert _digest(t.numpy() for t in (images, volume, motion, ii, jj)) == meta["inputs_sha256"]
    net = droid_net.load_droid_net(path)
    with torch.no_grad():
        fmaps, hidden, inp = net.extract_features(images)
        outs = net.update(hidden[:, ii], inp[:, ii], volume, motion, ii, jj)
        gen = torch.Generator().manual_seed(2)  # weight-free: its own (larger) feature maps
        fmap1, fmap2 = (torch.randn(_CORR_SHAPE, generator=gen) for _ in range(2))
        pyramid = corr.CorrBlock(fmap1, fmap2, num_levels=4, radius=3).pyramid
    assert _digest(t.numpy() for t in (fmap1, fmap2)) == meta["corr_inputs_sha256"]
    computed = dict(zip(_TENSORS, (fmaps, hidden, inp) + tuple(outs) + tuple(pyramid)))
    return meta, stored, computed


def _sample(numel, meta):
    """The stored sample's flat indices: (i * prime) mod numel, i < sample_size."""
    return (np.arange(meta["sample_size"], dtype=np.int64) * meta["sample_multiplier"]) % numel


def _differences(name, tensor, stored, meta):
    """max |ours - official| of each stored part of `name`, and the scale max |official|."""
    assert list(tensor.shape) == stored[f"{name}.shape"].tolist(), name
    x = tensor.detach().double().numpy()
    mean, rms, scale = stored[f"{name}.stats"]
    flat = x.reshape(-1)
    picked = flat if len(stored[f"{name}.values"]) == flat.size else flat[_sample(flat.size, meta)]
    diffs = {"values": np.abs(picked - stored[f"{name}.values"]).max(),
             "mean": abs(x.mean() - mean), "rms": abs(np.sqrt((x * x).mean()) - rms),
             "max_abs": abs(np.abs(x).max() - scale)}
    for tag in "ab":
        dims = meta["tensors"][name][f"{tag}_reduces"]
        if dims is None:
            continue
        dims = tuple(dims)
        diffs[f"{tag}_mean"] = np.abs(x.mean(axis=dims).reshape(-1) - stored[f"{name}.{tag}_mean"]).max()
        diffs[f"{tag}_rms"] = np.abs(np.sqrt((x * x).mean(axis=dims)).reshape(-1)
                                     - stored[f"{name}.{tag}_rms"]).max()
    return diffs, scale


def test_the_stored_official_data_covers_every_tensor(official_run):
    meta, stored, _ = official_run
    assert tuple(meta["tensors"]) == _TENSORS
    for name in _TENSORS:
        n = int(np.prod(stored[f"{name}.shape"]))
        values = stored[f"{name}.values"]
        assert values.dtype == np.float32 and np.isfinite(values).all(), name
        if len(values) < n:  # a sample of >= 1024 distinct elements, and its marginal stats
            assert len(np.unique(_sample(n, meta))) == len(values) >= 1024, name
            assert {f"{name}.{t}_{s}" for t in "ab" for s in ("mean", "rms")} <= set(stored), name
        else:
            assert len(values) == n, name
        assert stored[f"{name}.stats"][2] > 0, name  # not an all-zero output


@pytest.mark.parametrize("name", _TENSORS)
def test_full_size_outputs_equal_the_official_droidnet(official_run, name):
    """Every stored value (all of delta, weight, eta and correlation level 3; 1024 sampled
    elements of the others, plus their mean / RMS per channel and per pixel, or per source
    and per target pixel) and the whole tensor's mean, RMS and max |x|, within 1e-5 of
    max |official|."""
    meta, stored, computed = official_run
    diffs, scale = _differences(name, computed[name], stored, meta)
    worst = max(diffs, key=diffs.get)
    assert diffs[worst] <= _TOLERANCE * scale, (name, worst, diffs[worst] / scale)


def test_the_check_sees_what_sums_and_first_values_did_not(official_run):
    """Two swapped feature pixels keep every sum and the first values; this check fails."""
    meta, stored, computed = official_run
    swapped = computed["fmaps"].clone()
    swapped[0, 1, :, 3, [4, 5]] = swapped[0, 1, :, 3, [5, 4]]
    assert torch.equal(swapped.sum(), computed["fmaps"].sum())
    diffs, scale = _differences("fmaps", swapped, stored, meta)
    assert diffs["b_mean"] > 100 * _TOLERANCE * scale
    nudged = computed["update_net"].clone()
    nudged[0, 2, 77, 5, 9] += 0.01 * float(stored["update_net.stats"][2])  # one element
    diffs, scale = _differences("update_net", nudged, stored, meta)
    assert max(diffs.values()) > _TOLERANCE * scale
