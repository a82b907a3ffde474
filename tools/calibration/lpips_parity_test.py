"""LPIPS (AlexNet): worldeval's metrics/lpips (the package model loaded from the files)
equals the lpips package built by its own constructor on the same files."""

import torch

from tools.calibration import lpips_parity
from tools.calibration import parity_check


def test_lpips_matches_the_lpips_package_and_the_table():
    parity_check.assert_rows(lpips_parity.run())


def test_the_package_model_read_the_random_trunk_file(tmp_path):
    theirs, ours = lpips_parity.build_pair(tmp_path)
    # The package's slice1 starts with AlexNet's first conv: the file's, not ImageNet's.
    assert torch.equal(theirs.net.slice1[0].weight, ours.package_model.net.slice1[0].weight)
    assert torch.equal(theirs.lin0.model[1].weight, ours.lins[0].model[1].weight)
