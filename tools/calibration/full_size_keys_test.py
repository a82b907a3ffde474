"""Key mapping at full size: a real checkpoint's names and shapes fit our loaders."""

import pytest

from tools.calibration import full_size_keys


@pytest.mark.parametrize("check", [
    full_size_keys.image_reward_problems, full_size_keys.rn50_problems,
    full_size_keys.dinov2_problems, full_size_keys.sam3_problems,
    full_size_keys.clip_l14_problems], ids=lambda f: f.__name__)
def test_official_full_size_layout_fits_our_loader(check):
    assert check() == []


def test_differences_name_each_kind_of_mismatch():
    ours = {"a": (1,), "b": (2, 3), "c": (4,)}
    theirs = {"a": (1,), "b": (3, 2), "d": (4,)}
    assert full_size_keys.differences(ours, theirs) == [
        "only ours: c", "only official: d", "b: ours (2, 3), official (3, 2)"]


def test_the_stored_lists_are_the_full_sizes():
    assert full_size_keys.official("imagereward")["blip.visual_encoder.pos_embed"] == (1, 197, 1024)
    assert full_size_keys.official("dinov2")["pos_embed"] == (1, 1370, 768)
    assert full_size_keys.official("rn50")["visual.attnpool.positional_embedding"] == (50, 2048)
    sam3 = full_size_keys.official("sam3")
    assert sam3["backbone.vision_backbone.trunk.pos_embed"] == (1, 577, 1024)
    assert full_size_keys.official("imagereward_med_config")["vocab_size"] == 30524
