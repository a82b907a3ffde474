"""The lpips package backend: the package's own LPIPS on our two files equals ours."""

import pathlib

import lpips as lpips_package
import numpy as np
import pytest
import torch

from metrics.lpips import lpips
from metrics.lpips import package_backend
from metrics.lpips import random_checkpoints

REAL_LIN = pathlib.Path(lpips_package.__file__).parent / "weights" / "v0.1" / "alex.pth"


def _frames(seed, count, height, width):
    rng = np.random.default_rng(seed)
    smooth = rng.integers(0, 256, (count, height // 8 + 1, width // 8 + 1, 3)).astype(np.uint8)
    return [np.ascontiguousarray(np.kron(f, np.ones((8, 8, 1), np.uint8))[:height, :width])
            for f in smooth]


@pytest.mark.parametrize("lin", ["random", "real"])
def test_package_backend_equals_ours_on_the_same_files(tmp_path, lin):
    alexnet, random_lin = random_checkpoints.write_random_checkpoints(tmp_path, seed=3)
    lin_path = random_lin if lin == "random" else REAL_LIN
    theirs = package_backend.load_package_lpips(alexnet, lin_path)
    mine = lpips.load_lpips_alex(alexnet, lin_path)
    gen = _frames(0, 5, 64, 96) + _frames(1, 3, 48, 40)
    gt = _frames(2, 5, 80, 120) + _frames(3, 3, 48, 40)  # resized down, and kept
    a = np.array(lpips.lpips_distance_pairs(theirs, gt, gen, batch_size=4))
    b = np.array(lpips.lpips_distance_pairs(mine, gt, gen, batch_size=4))
    assert a.shape == (8,) and np.all(a > 0)
    np.testing.assert_allclose(a, b, rtol=1e-5, atol=0)


def test_the_trunk_lands_in_the_package_modules(tmp_path):
    alexnet, lin_path = random_checkpoints.write_random_checkpoints(tmp_path, seed=4)
    model = package_backend.load_package_lpips(alexnet, lin_path).package_model
    state = torch.load(alexnet, weights_only=True)
    assert package_backend.trunk_key("features.0.weight") == "net.slice1.0.weight"
    assert package_backend.trunk_key("features.10.bias") == "net.slice5.10.bias"
    loaded = model.state_dict()
    for key, value in state.items():
        assert torch.equal(loaded[package_backend.trunk_key(key)], value), key


def test_a_wrong_lin_file_is_an_error_naming_it(tmp_path):
    alexnet, lin_path = random_checkpoints.write_random_checkpoints(tmp_path, seed=5)
    state = torch.load(lin_path, weights_only=True)
    state["lin9.model.1.weight"] = state.pop(lpips.LIN_KEYS[4])
    bad = tmp_path / "renamed.pth"
    torch.save(state, bad)
    with pytest.raises(ValueError, match="renamed.pth.*missing keys"):
        package_backend.load_package_lpips(alexnet, bad)
