"""VideoMAE v2: worldeval's metrics/videomae equals the official VideoMAEv2 + cas_utils code
on the stored numbers, and vit.random_init reproduces the official constructor's weights."""

import numpy as np
import torch

from metrics.videomae import views as views_lib
from metrics.videomae import vit
from tools.calibration import official_numbers
from tools.calibration import parity_check
from tools.calibration import videomae_parity


def test_videomae_matches_the_official_run_and_the_table():
    parity_check.assert_rows(videomae_parity.run())


def test_random_init_reproduces_the_official_initialisation():
    """The CAS script as shipped scores with the constructor's random weights; ours draws
    the same ones (same torch, same seed), so its logits equal the official model's."""
    official = official_numbers.read(videomae_parity.OFFICIAL)
    wanted = official[(0, "random_init_logits")]
    views = views_lib.views(videomae_parity.clips_rgb()[0])[:3]  # the first 3 of 30
    model = vit.random_init(videomae_parity.TINY, seed=0)
    with torch.no_grad():
        ours = model(torch.from_numpy(views)).numpy().ravel()
    theirs = np.array([v for _, stat, v in wanted if stat in {f"at:{k}" for k in range(15)}])
    assert len(theirs) == 15 and np.abs(theirs).max() < 1e-3  # init_scale 0.001
    assert np.abs(theirs).max() > 1e-6
    np.testing.assert_allclose(ours, theirs, rtol=1e-5, atol=1e-10)
