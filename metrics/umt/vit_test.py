"""metrics.umt.vit: UMT's position table against the official get_sinusoid_encoding_table,
the full-size layout against the official state dict, and the tiny network's forward."""

import json
import pathlib

import numpy as np
import pytest
import torch

from metrics.umt import tiny_umt
from metrics.umt import vit

TESTDATA = pathlib.Path(__file__).parent / "testdata"
# Written by the official modeling_finetune.get_sinusoid_encoding_table(n, 16, frames,
# pre_n_position=1568) and VisionTransformer(vit_large_patch16_224's arguments, VBench's
# create_model kwargs).state_dict() (Vchitect/VBench @45e79ec, torch 2.14.1 CPU); see
# tools/calibration/vbench_umt_official.json for the run.
TABLES = TESTDATA / "umt_official_tables.npz"
STATE = TESTDATA / "umt_l16_k400_official_state_dict.json"


def _config(frames, grid, dim=16):
    return vit.with_size(vit.UMT_L16_K400, img_size=16 * grid, embed_dim=dim, frames=frames,
                         num_heads=2, depth=1)


@pytest.mark.parametrize("frames,grid", [
    (8, 2),    # spatial resampling only (14x14 -> 2x2)
    (2, 2),    # spatial, then temporal (8 -> 2)
    (16, 14),  # temporal only: VBench's layout
    (4, 16),   # upsampled grid, fewer frames
])
def test_the_position_table_is_the_official_one(frames, grid):
    official = np.load(TABLES)
    name = f"table_n{frames * grid * grid}_d16_f{frames}"
    config = _config(frames, grid)
    ours = vit.position_table(config)
    np.testing.assert_array_equal(ours.numpy(), official[name])
    assert vit.table_is_parameter(config) == bool(official[name + "_is_parameter"])


def test_the_plain_sinusoid_would_differ():
    """VideoMAE's table (no resampling from the 8-frame layout) is not UMT's."""
    official = np.load(TABLES)["table_n3136_d16_f16"]
    plain = vit.videomae_vit.sinusoid_table(3136, 16).numpy()
    assert np.abs(plain - official).max() > 0.1


def test_full_size_layout_is_the_official_state_dict():
    official = {k: tuple(v) for k, v in json.loads(STATE.read_text()).items()}
    assert tiny_umt.official_shapes(vit.UMT_L16_K400) == official
    assert list(tiny_umt.official_shapes(vit.UMT_L16_K400)) == list(official)  # order too
    with torch.device("meta"):
        model = vit.UmtViT(vit.UMT_L16_K400)
    assert {k: tuple(v.shape) for k, v in model.state_dict().items()} == official


def test_build_refuses_a_table_flag_the_official_model_does_not_have():
    with pytest.raises(ValueError, match="learnable_pos_embed must be True"):
        vit.build(vit.VitConfig(patch_size=16, embed_dim=16, depth=1, num_heads=2,
                                frames=16, tubelet_size=1, learnable_pos_embed=False))
    config = vit.with_size(vit.UMT_L16_K400, embed_dim=16, depth=1, num_heads=2, frames=8)
    assert not config.learnable_pos_embed  # 1568 positions: a plain tensor upstream
    model = vit.build(config)
    assert "pos_embed" not in model.state_dict()
    assert torch.equal(model.pos_embed, vit.position_table(config))


def test_the_tiny_network_reads_vbench_clips():
    model = vit.build(tiny_umt.TINY)
    model.load_state_dict(tiny_umt.random_state(tiny_umt.TINY, seed=1), strict=False)
    with torch.no_grad():
        logits = model(torch.zeros(1, 3, 16, 224, 224))
    assert logits.shape == (1, 400)
    with pytest.raises(ValueError, match="expected clips"):
        model(torch.zeros(1, 3, 8, 224, 224))
