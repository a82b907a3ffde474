"""The lpips package path (load_lpips_alex + lpips_distance_pairs) against the distances
worldeval's former torch LPIPS computed at commit 0b761c8 (testdata/).

Every distance is recomputed here, on the files the table names: the random AlexNet
and lin weights of write_random_checkpoints(seed=0), and the alex.pth v0.1 that the
lpips 0.1.4 wheel ships.
"""

import hashlib
import json
import pathlib

import lpips as lpips_package
import numpy as np
import pytest

from metrics.lpips import lpips
from metrics.lpips import tiny_lpips

TABLE = pathlib.Path(__file__).parent / "testdata" / "lpips_v01_alex_0b761c8.json"
PACKAGED_LIN = pathlib.Path(lpips_package.__file__).parent / "weights" / "v0.1" / "alex.pth"
PACKAGED_LIN_SHA256 = "df73285e"  # the table's lin file (lpips 0.1.4's v0.1 alex.pth)
ATOL = 1e-6
CASES = json.loads(TABLE.read_text())["cases"]


def _frames(seed, count, height, width):
    rng = np.random.default_rng(seed)
    return [rng.integers(0, 256, (height, width, 3), dtype=np.uint8) for _ in range(count)]


@pytest.fixture(scope="module", name="files")
def _files(tmp_path_factory):
    alexnet, random_lin = tiny_lpips.write_random_checkpoints(
        tmp_path_factory.mktemp("checkpoints"), seed=0)
    return alexnet, {"random_seed0": random_lin, "packaged_alex_v0.1": PACKAGED_LIN}


def test_the_packaged_lin_file_is_the_tables():
    assert hashlib.sha256(PACKAGED_LIN.read_bytes()).hexdigest().startswith(PACKAGED_LIN_SHA256)


@pytest.mark.parametrize("case", CASES, ids=[f"{c['lin']}-{c['case']}" for c in CASES])
def test_the_package_gives_the_stored_distances(files, case):
    alexnet, lins = files
    model = lpips.load_lpips_alex(alexnet, lins[case["lin"]], "cpu")
    assert isinstance(model.package_model, lpips_package.LPIPS)
    gt, gen = _frames(*case["gt"]), _frames(*case["gen"])
    # The table's call: the first pair once more, batches of 2 (a batch boundary inside).
    got = np.array(lpips.lpips_distance_pairs(model, gt + gt[:1], gen + gen[:1], batch_size=2))
    want = np.array(case["distances"])
    assert got.shape == want.shape and np.all(got > 0.05)
    max_abs = float(np.max(np.abs(got - want)))
    print(f"{case['lin']} {case['case']}: max abs difference {max_abs:.3g}")
    np.testing.assert_allclose(got, want, rtol=0, atol=ATOL)


if __name__ == "__main__":
    raise SystemExit(pytest.main([__file__, "-q"]))
