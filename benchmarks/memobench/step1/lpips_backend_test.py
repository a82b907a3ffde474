"""--lpips_backend: GT_*_LPIPS runs the lpips package; the retired value "worldeval"
still runs it, with a warning."""

import dataclasses
import logging
import pathlib
import shutil

import lpips as lpips_package
import numpy as np
import pytest

from benchmarks.memobench.step1 import pixel
from benchmarks.memobench.step1 import prepare
from metrics.lpips import lpips
from metrics.lpips import tiny_lpips

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
    """The AlexNet and lin files are sha256-pinned; random ones need the pins off."""
    monkeypatch.setattr(lpips, "ALEXNET_SPEC", dataclasses.replace(lpips.ALEXNET_SPEC, sha256=""))
    monkeypatch.setattr(lpips, "LPIPS_ALEX_SPEC",
                        dataclasses.replace(lpips.LPIPS_ALEX_SPEC, sha256=""))


@pytest.mark.parametrize("lin", ["tiny", "real"])
def test_both_values_run_the_package(tmp_path, lin, unpinned, caplog):  # pylint: disable=unused-argument
    alexnet, lin_path = tiny_lpips.write_random_checkpoints(tmp_path, seed=7)
    if lin == "real":
        shutil.copyfile(REAL_LIN, lin_path)
    rng = np.random.default_rng(0)
    gen = [rng.integers(0, 256, (48, 64, 3), dtype=np.uint8) for _ in range(3)]
    gt = [rng.integers(0, 256, (72, 96, 3), dtype=np.uint8) for _ in range(3)]
    with caplog.at_level(logging.WARNING):
        package = _lpips_family(tmp_path, "lpips")
        assert not caplog.records
        retired = _lpips_family(tmp_path, "worldeval")
    assert "worldeval's own LPIPS was removed" in caplog.text
    direct = lpips.lpips_distance_pairs(lpips.load_lpips_alex(alexnet, lin_path), gt, gen)
    a, b = package.lpips_fn(gt, gen), retired.lpips_fn(gt, gen)
    assert len(a) == 3 and min(a) > 0
    assert a == b == direct
    for fam in (package, retired):
        assert fam.backend_for(pixel.LPIPS_IDS[0]) is prepare.LPIPS_BACKEND


def test_the_backend_names_the_package_and_keeps_the_lpips_rows_parity():
    backend = prepare.LPIPS_BACKEND
    assert backend.official and backend.name == "lpips-package-v0.1-alex"
    assert "lpips 0.1.4 LPIPS(net='alex')" in backend.implementation
    assert "re-implement" not in backend.note + backend.implementation
    assert backend.parity.verified and "lpips-v0.1-alex" in backend.parity.evidence
    assert set(prepare.LPIPS_BACKENDS) == {"lpips", "worldeval"}
    assert set(prepare.RETIRED_LPIPS_BACKENDS) == {"worldeval"}
    assert prepare.Step1Settings().lpips_backend == "lpips"


def test_missing_weights_name_the_backend(tmp_path):
    settings = prepare.Step1Settings(device="cpu", checkpoint_dir=str(tmp_path), offline=True)
    prepared = prepare.prepare(settings, pixel.LPIPS_IDS)
    reason, backend = prepared.unavailable[pixel.LPIPS_IDS[0]]
    assert backend.name == "lpips-package-v0.1-alex" and "LPIPS weights" in reason
    assert lpips.ALEXNET_SPEC.filename in reason or lpips.LPIPS_ALEX_SPEC.filename in reason
