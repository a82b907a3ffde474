"""motion_smoothness: the uint8-wraparound MSE (pinned), torchmetrics' default SSIM against
numbers torchmetrics 1.9.0 produced on committed pairs (testdata/, official_runs/
torchmetrics_ssim.py), LPIPS on [0, 1] input, the even/odd pairing, the normalisation,
and the family end to end with a tiny VFIMamba through the real loader."""

import dataclasses
import json
import pathlib
import types

import numpy as np
import pytest
import torch

from benchmarks.common import family
from benchmarks.worldscore import aspects
from benchmarks.worldscore import motion_smoothness as ms
from benchmarks.worldscore import motion_smoothness_metrics as msm
from benchmarks.worldscore import normalize
from metrics.interpolation import vfimamba
from metrics.checkpoints import resolver
from metrics.lpips import lpips
from metrics.lpips import tiny_lpips

# One thread: these small models spend more time in thread hand-offs than in arithmetic,
# and much more so on a loaded CI machine.
torch.set_num_threads(1)

TESTDATA = pathlib.Path(__file__).parent / "testdata"


def test_mse_wraps_modulo_256_as_the_official_code():
    mid = np.full((2, 2, 3), 10, np.uint8)
    gt = np.full((2, 2, 3), 11, np.uint8)
    assert msm.mse_uint8_wraparound(mid, gt) == 1.0  # (10 - 11) = 255; 255**2 % 256 = 1
    assert msm.mse_float(mid, gt) == 1.0
    gt[...] = 26  # 10 - 26 = 240 (mod 256); 240**2 = 57600 = 0 (mod 256)
    assert msm.mse_uint8_wraparound(mid, gt) == 0.0
    assert msm.mse_float(mid, gt) == 256.0
    gt[...] = 13  # 10 - 13 = 253; 253**2 = 64009 = 9 (mod 256)
    assert msm.mse_uint8_wraparound(mid, gt) == 9.0
    with pytest.raises(ValueError, match="uint8"):
        msm.mse_uint8_wraparound(mid.astype(np.int16), gt)


def test_ssim_equals_torchmetrics_defaults_with_inferred_data_range():
    pairs = np.load(TESTDATA / "motion_smoothness_pairs.npz")
    wanted = json.loads((TESTDATA / "motion_smoothness_torchmetrics.json").read_text())
    assert set(wanted) == {"full_range", "dark", "narrow_vs_wider", "identical"}
    for case, numbers in wanted.items():
        a, b = msm.to_tensor(pairs[case + "_0"]), msm.to_tensor(pairs[case + "_1"])
        assert msm.ssim_torchmetrics(a, b) == pytest.approx(numbers["ssim"], abs=1e-6), case
    # The inferred range matters: with data_range 1 torchmetrics gives another number.
    assert abs(wanted["dark"]["ssim"] - wanted["dark"]["ssim_data_range_1"]) > 1e-3


def test_ssim_window_is_gaussian_11_sigma_1_5():
    window = msm._gaussian_window(1, msm.SSIM_SIGMA, torch.float64, "cpu")  # pylint: disable=protected-access
    assert window.shape == (1, 1, 11, 11)
    row = window[0, 0, 5] / window[0, 0, 5].sum()
    want = np.exp(-(np.arange(-5, 6) ** 2) / (2 * 1.5 ** 2))
    np.testing.assert_allclose(row.numpy(), want / want.sum(), rtol=1e-12)


@pytest.fixture(scope="module", name="lpips_model")
def _lpips_model():
    torch.manual_seed(0)
    model = lpips.LearnedPerceptualImagePatchSimilarity().eval()
    with torch.no_grad():
        for lin in model.lins:  # the package's NetLinLayer: dropout, then the 1x1 conv
            lin.model[1].weight.uniform_(0, 1)
    return model


def test_lpips_is_fed_zero_one_and_not_normalised(lpips_model):
    g = torch.Generator().manual_seed(4)
    a, b = torch.rand(1, 3, 40, 40, generator=g), torch.rand(1, 3, 40, 40, generator=g)
    got = msm.lpips_torchmetrics(lpips_model, a, b)
    with torch.no_grad():
        package_style = float(lpips_model(a, b))  # lpips' |f| + 1e-10 normalisation
        mapped = msm.lpips_torchmetrics(lpips_model, 2 * a - 1, 2 * b - 1)
    assert got == pytest.approx(package_style, rel=1e-5)
    assert abs(got - mapped) > 1e-4  # feeding [-1, 1] (normalize=True) would change it
    assert msm.lpips_torchmetrics(lpips_model, a, a) == 0.0


def test_pairs_are_even_frames_against_the_odd_ones():
    assert ms.pairs(range(5)) == [(0, 1, 2), (2, 3, 4)]
    assert ms.pairs(range(6)) == [(0, 1, 2), (2, 3, 4)]  # frame 5 has no right neighbour
    assert ms.pairs(range(2)) == []


def test_normalisation_is_the_arithmetic_mean_of_three_min_max():
    metric = next(m for a in aspects.ASPECTS for m in a.metrics if m.name == "motion_smoothness")
    got = normalize.normalize(metric, [41.20070, 0.9612, 0.0114])
    want = ((1 - 41.2007 / 82.4014) + (0.9612 - 0.9224) / (1 - 0.9224) + (1 - 0.0114 / 0.0228)) / 3
    assert got == pytest.approx(want, rel=1e-9)


def test_family_end_to_end_with_a_tiny_model(tmp_path, lpips_model):
    torch.manual_seed(0)
    model = vfimamba.build(vfimamba.TINY)
    torch.save({"module." + k: v for k, v in model.state_dict().items()}, tmp_path / "v.pkl")
    rng = np.random.default_rng(0)
    frames = [rng.integers(0, 256, (36, 40, 3), dtype=np.uint8) for _ in range(5)]
    interp = ms.vfimamba_interpolator(vfimamba.load(tmp_path / "v.pkl", vfimamba.TINY), "cpu")
    mids = [interp(frames[a], frames[b]) for a, _, b in ms.pairs(frames)]
    assert all(m.shape == (36, 40, 3) and m.dtype == np.uint8 for m in mids)
    raw = ms.score(frames, interp, lpips_model)
    want = [np.mean([msm.mse_uint8_wraparound(m, frames[k]) for m, k in zip(mids, (1, 3))]),
            np.mean([msm.ssim_torchmetrics(msm.to_tensor(m), msm.to_tensor(frames[k]))
                     for m, k in zip(mids, (1, 3))])]
    assert raw[0] == pytest.approx(want[0]) and raw[1] == pytest.approx(want[1])
    assert ms.score(frames, interp, lpips_model, mse=ms.MSE_FLOAT)[0] != raw[0]
    with pytest.raises(family.FamilyUnavailable, match="at least 3 frames"):
        ms.score(frames[:2], interp, lpips_model)
    assert ms.backend(ms.MSE_FLOAT).official is False and ms.backend().official is True


def test_checkpoint_spec_names_the_hub_file():
    assert ms.VFIMAMBA.hf_repo == "MCG-NJU/VFIMamba_ckpts"
    assert ms.VFIMAMBA.filename == "ckpt/VFIMamba.pkl"
    assert "VFIMamba_ckpts" in ms.VFIMAMBA.fetch_command("/ckpt")


def test_build_resolves_the_checkpoints_and_scores_dynamic_instances(tmp_path, monkeypatch):
    """build() through the resolver (--checkpoint_dir layout of the fetch commands), the
    tiny VFIMamba through the real loader, random LPIPS files; static instances skipped."""
    monkeypatch.setattr(lpips, "ALEXNET_SPEC", dataclasses.replace(lpips.ALEXNET_SPEC, sha256=""))
    monkeypatch.setattr(lpips, "LPIPS_ALEX_SPEC",
                        dataclasses.replace(lpips.LPIPS_ALEX_SPEC, sha256=""))
    ckpt = tmp_path / "ckpt"
    tiny_lpips.write_random_checkpoints(ckpt, seed=1)
    torch.manual_seed(0)
    weights = ckpt / ms.VFIMAMBA.name / ms.VFIMAMBA.filename
    weights.parent.mkdir(parents=True)
    torch.save({"module." + k: v for k, v in vfimamba.build(vfimamba.TINY).state_dict().items()},
               weights)
    common = types.SimpleNamespace(device="cpu", offline=True, checkpoint_dir=str(ckpt),
                                   checkpoints={})
    config = types.SimpleNamespace(common=common, architectures={"vfimamba": vfimamba.TINY})
    fam = ms.build(config, ms.METRIC_IDS)
    assert fam.backend_for(ms.METRIC_IDS[0]).name == ms.BACKEND
    assert [c.id for c in fam.checkpoints_for(ms.METRIC_IDS[0])][0] == "MCG-NJU/VFIMamba_ckpts"
    rng = np.random.default_rng(1)
    frames = np.stack([rng.integers(0, 256, (36, 40, 3), dtype=np.uint8) for _ in range(5)])
    ctx = types.SimpleNamespace(frames=frames[::-1], frame_ids=[4, 3, 2, 1, 0],
                                frame_files=["f"] * 5, movement="dynamic")
    raw = fam.compute(ctx).columns[ms.METRIC_IDS[0]]
    assert len(raw) == 3 and 0 <= raw[0] < 256 and -1 <= raw[1] <= 1 and raw[2] >= 0
    assert fam.compute(types.SimpleNamespace(**{**vars(ctx), "movement": "static"})).columns == {}
    missing = types.SimpleNamespace(common=types.SimpleNamespace(**{
        **vars(common), "checkpoint_dir": str(tmp_path / "none")}), architectures={})
    with pytest.raises(resolver.CheckpointUnavailable, match="huggingface-cli download"):
        ms.build(missing, ms.METRIC_IDS)
