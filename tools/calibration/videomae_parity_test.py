"""VideoMAE v2: worldeval's metrics/videomae equals the official VideoMAEv2 + cas_utils code
on the stored numbers, and vit.random_init reproduces the official constructor's weights."""

import numpy as np
import torch

from metrics.videomae import classifier
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


def test_loader_equals_the_official_finetune_block(tmp_path):
    """run_class_finetuning's --finetune block, run unchanged on a "module" file with
    `_orig_mod.backbone.` keys and a learned 12 x 12 table, against our loader: the same
    16 x 16 resampled table and the same logits."""
    official = official_numbers.read(videomae_parity.OFFICIAL)
    path = tmp_path / videomae_parity.LEARNED_CHECKPOINT
    torch.save(videomae_parity.learned_prefixed_state(), path)
    loaded = classifier.load_videomae_classifier(path, "cpu", videomae_parity.TINY_LEARNED)
    assert loaded.report.state_key == "module" and loaded.report.resampled_pos_embed
    views = views_lib.views(videomae_parity.clips_rgb()[0])[:6]
    for name, ours in (("loader_pos_embed", loaded.model.pos_embed),
                       ("loader_logits", loaded.logits(views))):
        wanted = official[(0, name)]
        theirs = np.array([v for _, _, v in wanted])
        got = official_numbers.stats_like(torch.as_tensor(ours), wanted)
        np.testing.assert_allclose(got, theirs, rtol=1e-5, atol=1e-6 * np.abs(theirs).max())
