"""SAM 2.1 architecture settings and their transformers configs (no weights, no I/O).

`HIERA_L` transcribes the official `configs/sam2.1/sam2.1_hiera_l.yaml` (facebookresearch
sam2 as vendored in Grounded-SAM-2, the copy tools/calibration/README.md names) with the post-processing overrides
that `build_sam2` / `build_sam2_video_predictor` add by default
(`dynamic_multimask_via_stability`, delta 0.05, threshold 0.98; the video predictor also
`binarize_mask_from_pts_for_mem_enc` and `fill_hole_area=8`). Tests shrink it with
`dataclasses.replace`; every other field keeps the official value.
`HIERA_B_PLUS` transcribes `configs/sam2.1/sam2.1_hiera_b+.yaml` (facebookresearch sam2's
file; the calibration README names the vendored copy read): it sets only the trunk's
embed_dim 112 and num_heads 2 (neck channels [896, 448, 224, 112]), so the trunk takes
the `Hiera` defaults of sam2/modeling/backbones/hieradet.py: stages (2, 3, 16, 3),
global_att_blocks (12, 16, 20), window_spec (8, 4, 14, 7), window_pos_embed_bkg (14, 14);
everything else equals the Hiera-L file.
"""

import dataclasses
from typing import Tuple

BACKEND_NAME = "sam2.1-hiera-large"


@dataclasses.dataclass(frozen=True)
class Sam2Architecture:
    """The fields of the official config that shape the model (official names in comments)."""
    embed_dim: int = 144                                 # trunk.embed_dim
    num_heads: int = 2                                   # trunk.num_heads
    stages: Tuple[int, ...] = (2, 6, 36, 4)              # trunk.stages
    global_att_blocks: Tuple[int, ...] = (23, 33, 43)    # trunk.global_att_blocks
    window_spec: Tuple[int, ...] = (8, 4, 16, 8)         # trunk.window_spec
    window_pos_embed_bkg: Tuple[int, int] = (7, 7)       # window_pos_embed_bkg_spatial_size
    image_size: int = 1024                               # model.image_size
    memory_attention_layers: int = 4                     # memory_attention.num_layers
    memory_attention_ff: int = 2048                      # layer.dim_feedforward
    num_maskmem: int = 7                                 # model.num_maskmem
    fill_hole_area: int = 8                              # video predictor override
    # build_sam2*(apply_postprocessing=True), the default: dynamic_multimask_via_stability
    # in the mask decoder and binarize_mask_from_pts_for_mem_enc (with fill_hole_area=8);
    # False: neither (and the predictor's own fill_hole_area default, 0).
    postprocessing: bool = True

    @property
    def stage_dims(self) -> Tuple[int, ...]:
        """Hiera doubles the width (and heads) at each stage."""
        return tuple(self.embed_dim * 2 ** i for i in range(len(self.stages)))


HIERA_L = Sam2Architecture()
HIERA_B_PLUS = Sam2Architecture(embed_dim=112, num_heads=2, stages=(2, 3, 16, 3),
                                global_att_blocks=(12, 16, 20), window_spec=(8, 4, 14, 7),
                                window_pos_embed_bkg=(14, 14))
# What `build_sam2_video_predictor(..., apply_postprocessing=False)` builds from it.
HIERA_B_PLUS_NO_POSTPROCESSING = dataclasses.replace(HIERA_B_PLUS, postprocessing=False,
                                                     fill_hole_area=0)
BACKEND_NAME_B_PLUS = "sam2.1-hiera-base-plus"


def _vision_config(arch: Sam2Architecture):
    # pylint: disable=import-outside-toplevel  (transformers is heavy; configs only here)
    from transformers import Sam2HieraDetConfig, Sam2VisionConfig
    hiera = Sam2HieraDetConfig(
        hidden_size=arch.embed_dim, num_attention_heads=arch.num_heads,
        image_size=[arch.image_size, arch.image_size],
        blocks_per_stage=list(arch.stages), embed_dim_per_stage=list(arch.stage_dims),
        num_attention_heads_per_stage=[arch.num_heads * 2 ** i for i in range(len(arch.stages))],
        window_size_per_stage=list(arch.window_spec),
        global_attention_blocks=list(arch.global_att_blocks),
        window_positional_embedding_background_size=list(arch.window_pos_embed_bkg))
    size = arch.image_size // 4
    return Sam2VisionConfig(backbone_config=hiera,
                            backbone_channel_list=list(reversed(arch.stage_dims)),
                            backbone_feature_sizes=[[size, size], [size // 2, size // 2],
                                                    [size // 4, size // 4]])


def image_config(arch: Sam2Architecture = HIERA_L):
    """transformers `Sam2Config` (the image predictor's model) for `arch`."""
    from transformers import Sam2Config, Sam2MaskDecoderConfig, Sam2PromptEncoderConfig
    return Sam2Config(vision_config=_vision_config(arch),
                      prompt_encoder_config=Sam2PromptEncoderConfig(image_size=arch.image_size),
                      mask_decoder_config=Sam2MaskDecoderConfig(
                          dynamic_multimask_via_stability=arch.postprocessing))


def video_config(arch: Sam2Architecture = HIERA_L):
    """transformers `Sam2VideoConfig` (the video predictor's model) for `arch`."""
    from transformers import Sam2VideoConfig
    from transformers.models.sam2_video.configuration_sam2_video import (
        Sam2VideoMaskDecoderConfig, Sam2VideoPromptEncoderConfig)
    feat = arch.image_size // 16
    return Sam2VideoConfig(
        vision_config=_vision_config(arch),
        prompt_encoder_config=Sam2VideoPromptEncoderConfig(image_size=arch.image_size),
        mask_decoder_config=Sam2VideoMaskDecoderConfig(
            dynamic_multimask_via_stability=arch.postprocessing),
        image_size=arch.image_size, num_maskmem=arch.num_maskmem,
        memory_attention_num_layers=arch.memory_attention_layers,
        memory_attention_feed_forward_hidden_size=arch.memory_attention_ff,
        memory_attention_rope_feat_sizes=[feat, feat])
