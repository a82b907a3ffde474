"""The official SAM 2.1 key names map onto transformers' models, at full Hiera-L size."""

import json
import pathlib

import pytest
import torch
from transformers import Sam2Model, Sam2VideoModel

from metrics.segmentation import sam2_config
from metrics.segmentation import sam2_keys

_KEYS = pathlib.Path(__file__).with_name("sam2_hiera_l_official_keys.json")
_KEYS_B_PLUS = pathlib.Path(__file__).with_name("sam2_hiera_b_plus_official_keys.json")


def _official_meta(path=_KEYS):
    keys = json.loads(path.read_text())["keys"]
    return {k: torch.empty(shape, device="meta") for k, shape in keys.items()}


def _shapes(state):
    return {k: tuple(v.shape) for k, v in state.items()}


def test_the_official_hiera_l_file_fills_transformers_video_model_exactly():
    official = _official_meta()
    assert len(official) == 903  # the official SAM2VideoPredictor's state dict
    with torch.device("meta"):
        video = Sam2VideoModel(sam2_config.video_config(sam2_config.HIERA_L))
        image = Sam2Model(sam2_config.image_config(sam2_config.HIERA_L))
    mapped = _shapes(sam2_keys.to_transformers(official))
    assert mapped == _shapes(video.state_dict())
    image_keys = _shapes(image.state_dict())
    assert {k: mapped[k] for k in image_keys} == image_keys


def test_the_official_hiera_b_plus_file_fills_transformers_video_model_exactly():
    official = _official_meta(_KEYS_B_PLUS)
    assert len(official) == 615  # 24 trunk blocks (2+3+16+3), 2 with a stage projection
    assert list(official["image_encoder.trunk.pos_embed"].shape) == [1, 112, 14, 14]
    with torch.device("meta"):
        video = Sam2VideoModel(sam2_config.video_config(sam2_config.HIERA_B_PLUS))
    assert _shapes(sam2_keys.to_transformers(official)) == _shapes(video.state_dict())


def test_the_inverse_gives_back_the_official_names_and_tensors():
    official = {k: torch.randn(v.shape) if v.numel() < 5000 else torch.zeros(1)
                for k, v in _official_meta().items() if "trunk.blocks" not in k}
    back = sam2_keys.to_official(sam2_keys.to_transformers(official))
    assert back.keys() == official.keys()
    assert all(torch.equal(back[k], official[k]) for k in official)


def test_point_embeddings_stack_in_label_order():
    state = {f"sam_prompt_encoder.point_embeddings.{k}.weight": torch.full((1, 3), float(k))
             for k in range(4)}
    out = sam2_keys.to_transformers(state)
    assert out["prompt_encoder.point_embed.weight"][:, 0].tolist() == [0, 1, 2, 3]


def test_mlp_layers_become_proj_in_layers_proj_out():
    state = {f"obj_ptr_proj.layers.{k}.weight": torch.zeros(1) for k in range(3)}
    state.update({f"sam_prompt_encoder.point_embeddings.{k}.weight": torch.zeros(1, 1)
                  for k in range(4)})
    assert sorted(sam2_keys.to_transformers(state))[:3] == [
        "object_pointer_proj.layers.0.weight", "object_pointer_proj.proj_in.weight",
        "object_pointer_proj.proj_out.weight"]


def test_an_unknown_key_is_an_error_naming_it():
    with pytest.raises(ValueError, match="image_encoder.trunk.extra"):
        sam2_keys.to_transformers({"image_encoder.trunk.extra.weight": torch.zeros(1)})


def test_the_configs_carry_the_official_post_processing_overrides():
    for config in (sam2_config.image_config(), sam2_config.video_config()):
        decoder = config.mask_decoder_config
        assert decoder.dynamic_multimask_via_stability
        assert (decoder.dynamic_multimask_stability_delta,
                decoder.dynamic_multimask_stability_thresh) == (0.05, 0.98)
    video = sam2_config.video_config()
    assert (video.num_maskmem, video.memory_attention_num_layers,
            video.memory_attention_rope_feat_sizes) == (7, 4, [64, 64])
    assert sam2_config.HIERA_L.fill_hole_area == 8
