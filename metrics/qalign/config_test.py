"""Reading the official config.json layout."""

import pytest

from metrics.qalign import config as config_lib


def test_the_official_layout_round_trips_and_defaults_are_the_official_ones():
    assert config_lib.from_dict(config_lib.to_dict(config_lib.TINY)) == config_lib.TINY
    assert config_lib.from_dict({"model_type": "mplug_owl2"}) == config_lib.FULL
    assert config_lib.FULL.vision.grid == 32 == config_lib.FULL.abstractor.grid_size


def test_fields_are_read_and_unused_ones_ignored():
    cfg = config_lib.from_dict({
        "model_type": "mplug_owl2", "rms_norm_eps": 1e-5, "pretraining_tp": 1,
        "rope_scaling": None, "num_key_value_heads": None, "torch_dtype": "bfloat16",
        "visual_config": {"visual_model": {"hidden_act": "quick_gelu", "image_size": 448,
                                           "layer_norm_eps": 1e-6, "use_flash_attn": False},
                          "visual_abstractor": {"grid_size": None, "num_learnable_queries": 64}}})
    assert cfg.rms_norm_eps == 1e-5 and cfg.kv_heads == 32
    assert cfg.abstractor.grid_size == 32 and cfg.vision.image_size == 448


def test_other_models_and_rope_scaling_are_refused():
    with pytest.raises(ValueError, match="model_type 'llama'"):
        config_lib.from_dict({"model_type": "llama"})
    with pytest.raises(ValueError, match="rope_scaling"):
        config_lib.from_dict({"model_type": "mplug_owl2",
                              "rope_scaling": {"type": "linear", "factor": 2.0}})
