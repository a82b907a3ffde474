"""VFIMamba: the full-size state dict against the official model's (names, order and
shapes from a weight-free dump of MCG-NJU/VFIMamba's constructor, testdata/), the tiny
model saved in the released file layout and loaded through the real loader, the
InputPadder arithmetic and the fast-TTA average."""

import json
import pathlib

import numpy as np
import pytest
import torch

from metrics.interpolation import vfimamba

# One thread: these small models spend more time in thread hand-offs than in arithmetic,
# and much more so on a loaded CI machine.
torch.set_num_threads(1)

SHAPES = pathlib.Path(__file__).parent / "testdata" / "vfimamba_f32_state_dict_shapes.json"


@pytest.fixture(scope="module", name="tiny")
def _tiny():
    torch.manual_seed(0)
    model = vfimamba.build(vfimamba.TINY)
    generator = torch.Generator().manual_seed(1)
    with torch.no_grad():
        for value in model.state_dict().values():
            value.add_(torch.randn(value.shape, generator=generator) * 0.05)
    return model


def _released_layout(model) -> dict:
    state = {"module." + k: v for k, v in model.state_dict().items()}
    state["module.feature_bone.block3.blocks.0.attn_mask"] = torch.zeros(2, 2)  # dropped
    state["module.HW"] = torch.tensor([4, 4])  # dropped
    state["epoch"] = torch.tensor(3)  # no "module.": dropped
    return state


def test_full_size_names_order_and_shapes_equal_the_official_model():
    official = json.loads(SHAPES.read_text())
    with torch.device("meta"):
        model = vfimamba.build(vfimamba.FULL)
    ours = {k: list(v.shape) for k, v in model.state_dict().items()}
    assert list(ours) == list(official)
    assert ours == official
    assert sum(int(np.prod(s)) for s in official.values()) == 66_070_921


def test_tiny_model_round_trips_through_the_released_file_layout(tiny, tmp_path):
    path = tmp_path / "VFIMamba.pkl"
    torch.save(_released_layout(tiny), path)
    loaded = vfimamba.load(path, vfimamba.TINY)
    for key, value in tiny.state_dict().items():
        assert torch.equal(loaded.state_dict()[key], value), key
    frames = torch.rand(2, 1, 3, 40, 50, generator=torch.Generator().manual_seed(2))
    want = vfimamba.interpolate(tiny, frames[0], frames[1])
    assert torch.equal(vfimamba.interpolate(loaded, frames[0], frames[1]), want)
    assert want.shape == (1, 3, 40, 50) and 0 <= want.min() and want.max() <= 1


def test_loader_refuses_files_the_official_loader_would_refuse(tiny, tmp_path):
    plain = tmp_path / "plain.pkl"
    torch.save(tiny.state_dict(), plain)  # no DDP prefix: convert keeps nothing
    with pytest.raises(ValueError, match="module."):
        vfimamba.load(plain, vfimamba.TINY)
    other = tmp_path / "other.pkl"
    torch.save(_released_layout(tiny), other)
    with pytest.raises(ValueError, match="wrong shapes|missing"):
        vfimamba.load(other, vfimamba.VfimambaConfig(F=8, depth=(1, 1, 1, 1, 1)))
    with pytest.raises(FileNotFoundError, match="does not exist"):
        vfimamba.load(tmp_path / "absent.pkl", vfimamba.TINY)


def test_official_keys_is_the_official_convert():
    raw = {"module.a.module.b": 1, "x.module.c": 2, "module.attn_mask": 3,
           "module.d.HW": 4, "e": 5}
    assert vfimamba.official_keys(raw) == {"a.b": 1, "x.c": 2}


@pytest.mark.parametrize("size,want", [(32, (0, 0)), (45, (9, 10)), (64, (0, 0)),
                                       (70, (13, 13)), (33, (15, 16))])
def test_padding_is_the_input_padder(size, want):
    left, right, top, bottom = vfimamba.padding(size, size)
    assert (left, right) == want and (top, bottom) == want
    assert (size + left + right) % 32 == 0


def test_fast_tta_averages_the_rotated_prediction(tiny):
    g = torch.Generator().manual_seed(3)
    f0, f1 = torch.rand(1, 3, 32, 64, generator=g), torch.rand(1, 3, 32, 64, generator=g)
    pair = torch.cat([f0, f1], 1)
    with torch.no_grad():
        plain = tiny(pair, local=True)
        rotated = tiny(pair.flip(2).flip(3), local=True).flip(2).flip(3)
    got = vfimamba.interpolate(tiny, f0, f1)
    torch.testing.assert_close(got, (plain + rotated) / 2, rtol=1e-5, atol=1e-6)
    assert (plain - rotated).abs().max() > 1e-3  # the rotation matters: the test can fail
    no_local = vfimamba.interpolate(tiny, f0, f1, local=False)
    assert (no_local - got).abs().max() > 1e-4  # local refinement changes the result


def test_uint8_conversion_truncates():
    pred = torch.tensor([0.0, 0.999 / 255, 1.999 / 255, 1.0]).view(1, 1, 1, 4).expand(1, 3, 1, 4)
    assert vfimamba.tensor_to_frame(pred)[0, :, 0].tolist() == [0, 0, 1, 255]
    frame = np.arange(12, dtype=np.uint8).reshape(2, 2, 3)
    tensor = vfimamba.frame_to_tensor(frame)
    assert tensor.shape == (1, 3, 2, 2) and tensor.dtype == torch.float32
    assert torch.equal(tensor[0, 1], torch.tensor([[1, 4], [7, 10]]) / 255.0)
