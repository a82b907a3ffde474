"""CLIP ViT-L/14 (+ LAION head) and ViT-B/32: worldeval's metrics/clip equals open_clip."""

import open_clip

from tools.calibration import clip_parity
from tools.calibration import parity_check


def test_aesthetic_tower_and_head_match_open_clip_and_the_table():
    parity_check.assert_rows(clip_parity.run_aesthetic())


def test_vit_b32_similarity_matches_open_clip_and_the_table():
    parity_check.assert_rows(clip_parity.run_b32())


def test_the_official_configs_build_gelu_although_the_openai_tag_says_quick_gelu():
    # The quirk worldeval reproduces (metrics/clip/vision.py OFFICIAL_ACTIVATION): if a
    # later open_clip builds these configs with QuickGELU, this fails and so does parity.
    for arch in ("ViT-L-14", "ViT-B-32"):
        assert not open_clip.get_model_config(arch).get("quick_gelu", False)
        assert open_clip.get_pretrained_cfg(arch, "openai")["quick_gelu"] is True
