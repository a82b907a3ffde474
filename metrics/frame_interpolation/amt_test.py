"""metrics.frame_interpolation.amt against the upstream AMT-S numbers and its loader's rules.

testdata/amt_s_parity.json holds the upstream network's outputs (MCG-NKU/AMT @ 70f988fb)
on random weights that tiny_amt regenerates from the seed here; in the scratch run
that produced it our module's max |diff| from upstream was 0.0 in every case (CPU float32).
The weights are random, so this checks the architecture and the forward, not trained
behaviour; a wrong key, shape, window order, resize or merge moves the samples by far
more than the tolerance.
"""

import json

import numpy as np
import pytest
import torch

from metrics.frame_interpolation import amt
from metrics.frame_interpolation import tiny_amt

torch.set_num_threads(1)
_EMBT = torch.tensor(0.5).float().view(1, 1, 1, 1)


@pytest.fixture(scope="module")
def checkpoint(tmp_path_factory):
    path = tmp_path_factory.mktemp("amt") / "amt-s.pth"
    tiny_amt.write_official_file(path, seed=json.loads(tiny_amt.PARITY.read_text())["seed"])
    return path


@pytest.fixture(scope="module")
def model(checkpoint):
    return amt.load_amt_s(checkpoint, "cpu")


def test_the_official_layout_is_amt_s(model):
    layout = tiny_amt.official_layout()
    assert len(layout) == 213 and sum(int(np.prod(s)) for s in layout.values()) == 2_990_543
    assert {k: tuple(v.shape) for k, v in model.state_dict().items()} == layout


@pytest.mark.parametrize("case", json.loads(tiny_amt.PARITY.read_text())["cases"],
                         ids=lambda c: f"{c['height']}x{c['width']}@{c['scale_factor']}")
def test_imgt_pred_matches_upstream(model, case):
    height, width = case["height"], case["width"]
    img0, img1 = tiny_amt.parity_pair(height, width)
    with torch.no_grad():
        pred = model(img0, img1, _EMBT, scale_factor=case["scale_factor"], eval=True)["imgt_pred"]
    c, y, x = tiny_amt.sample_indices(height, width)
    np.testing.assert_allclose(pred[0, c, y, x].numpy(), case["official_samples"], atol=2e-5)
    np.testing.assert_allclose(pred.mean((0, 2, 3)).numpy(), case["official_channel_means"],
                               atol=2e-6)
    assert pred.std().item() == pytest.approx(case["official_std"], abs=2e-6)
    clamped = ((pred == 0) | (pred == 1)).float().mean().item()
    assert clamped == pytest.approx(case["official_clamped_fraction"], abs=1e-3)


def test_output_is_the_input_size_in_unit_range(model):
    img0, img1 = tiny_amt.parity_pair(128, 160)
    with torch.no_grad():
        out = model(img0, img1, _EMBT, scale_factor=1.0, eval=True)
    assert list(out) == ["imgt_pred"]
    pred = out["imgt_pred"]
    assert pred.shape == (1, 3, 128, 160) and pred.dtype == torch.float32
    assert 0.0 <= pred.min().item() and pred.max().item() <= 1.0
    assert ((pred > 0) & (pred < 1)).float().mean().item() > 0.8  # the clamp bites ~10%
    with pytest.raises(ValueError, match="eval"):
        model(img0, img1, _EMBT, eval=False)
    with pytest.raises(ValueError, match="128 px"):
        model(img0, img1, _EMBT, scale_factor=0.5, eval=True)  # 64 x 80: upstream gives NaN


def test_a_checkpoint_that_does_not_fit_is_refused_naming_the_file(tmp_path):
    state = tiny_amt.random_official_state(seed=1)
    renamed = dict(state)
    renamed["decoder1.convblock.2.weight_x"] = renamed.pop("decoder1.convblock.2.weight")
    path = tmp_path / "renamed.pth"
    torch.save({"state_dict": renamed}, str(path))
    with pytest.raises(ValueError, match="(?s)renamed.pth.*does not fit AMT-S") as e:
        amt.load_amt_s(path, "cpu")
    assert "decoder1.convblock.2.weight" in str(e.value)

    reshaped = dict(state, **{"comb_block.1.weight": torch.zeros(9)})
    torch.save({"state_dict": reshaped}, str(tmp_path / "reshaped.pth"))
    with pytest.raises(ValueError, match="(?s)reshaped.pth.*comb_block.1.weight"):
        amt.load_amt_s(tmp_path / "reshaped.pth", "cpu")

    torch.save(state, str(tmp_path / "bare.pth"))  # upstream reads ckpt['state_dict']
    with pytest.raises(ValueError, match="bare.pth.*no 'state_dict'"):
        amt.load_amt_s(tmp_path / "bare.pth", "cpu")

    (tmp_path / "text.pth").write_text("not a checkpoint")
    with pytest.raises(ValueError, match="text.pth"):
        amt.load_amt_s(tmp_path / "text.pth", "cpu")
