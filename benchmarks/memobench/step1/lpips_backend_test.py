"""--lpips_backend: worldeval's LPIPS and the lpips package give MemoBench the same numbers."""

import dataclasses
import pathlib
import shutil

import lpips as lpips_package
import numpy as np
import pytest

from benchmarks.memobench.step1 import pixel
from benchmarks.memobench.step1 import prepare
from metrics.lpips import lpips
from metrics.lpips import random_checkpoints

REAL_LIN = pathlib.Path(lpips_package.__file__).parent / "weights" / "v0.1" / "alex.pth"


def _lpips_family(root, backend):
    settings = prepare.Step1Settings(device="cpu", checkpoint_dir=str(root), offline=True,
                                     lpips_backend=backend)
    prepared = prepare.prepare(settings, pixel.LPIPS_IDS)
    assert not prepared.unavailable, prepared.unavailable
    (fam,) = prepared.families
    return fam


@pytest.fixture(name="unpinned")
def _unpinned(monkeypatch):
    """The AlexNet file is sha256-pinned; a random one needs the pin off."""
    monkeypatch.setattr(lpips, "ALEXNET_SPEC", dataclasses.replace(lpips.ALEXNET_SPEC, sha256=""))


@pytest.mark.parametrize("lin", ["tiny", "real"])
def test_both_backends_give_equal_lpips(tmp_path, lin, unpinned):  # pylint: disable=unused-argument
    _, lin_path = random_checkpoints.write_random_checkpoints(tmp_path, seed=7)
    if lin == "real":
        shutil.copyfile(REAL_LIN, lin_path)
    rng = np.random.default_rng(0)
    gen = [rng.integers(0, 256, (48, 64, 3), dtype=np.uint8) for _ in range(3)]
    gt = [rng.integers(0, 256, (72, 96, 3), dtype=np.uint8) for _ in range(3)]
    ours, package = (_lpips_family(tmp_path, b) for b in ("worldeval", "lpips"))
    a, b = np.array(ours.lpips_fn(gt, gen)), np.array(package.lpips_fn(gt, gen))
    assert a.shape == (3,) and np.all(a > 0)
    np.testing.assert_allclose(b, a, rtol=1e-5, atol=0)
    names = {f.backend_for(pixel.LPIPS_IDS[0]).name for f in (ours, package)}
    assert names == {"lpips-v0.1-alex", "lpips-package-v0.1-alex"}


def test_the_package_backend_is_official_with_the_lpips_rows_parity():
    package, ours = prepare.LPIPS_PACKAGE_BACKEND, prepare.LPIPS_BACKEND
    assert package.official and package.name != ours.name
    assert package.parity == ours.parity  # the rows whose reference is the package
    assert set(prepare.LPIPS_BACKENDS) == {"worldeval", "lpips"}


def test_missing_weights_name_the_chosen_backend(tmp_path):
    settings = prepare.Step1Settings(device="cpu", checkpoint_dir=str(tmp_path), offline=True,
                                     lpips_backend="lpips")
    prepared = prepare.prepare(settings, pixel.LPIPS_IDS)
    reason, backend = prepared.unavailable[pixel.LPIPS_IDS[0]]
    assert backend.name == "lpips-package-v0.1-alex" and "LPIPS weights" in reason
    assert lpips.ALEXNET_SPEC.filename in reason or lpips.LPIPS_ALEX_SPEC.filename in reason
