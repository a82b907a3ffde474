"""GroundingDINO architecture settings, as the IDEA-Research config files give them.

`SWINB` transcribes GroundingDINO's `groundingdino/config/GroundingDINO_SwinB.py` (the
file the official detection scripts load with `groundingdino_swinb_cogcoor.pth`) and the Swin
settings its `build_swin_transformer("swin_B_384_22k", 384)` picks: embed 128, depths
2/2/18/2, heads 4/8/16/32, window 12, three output levels (return_interm_indices 1, 2, 3)
plus one strided level, 900 queries, d_model 256, 6 + 6 layers, 8 heads, FFN 2048, 4
sampling points. Settings the config file fixes and both implementations assume
(two-stage "standard", sine position embedding with temperature 20, text enhancer,
fusion and text cross-attention on, shared decoder box heads, ReLU) are not fields.

`SWINT_OGC` transcribes `GroundingDINO_SwinT_OGC.py` (the file loaded with
`groundingdino_swint_ogc.pth`): the same settings but `backbone = "swin_T_224_1k"`, i.e.
embed 96, depths 2/2/6/2, heads 3/6/12/24, window 7, pretrain image size 224.

The text encoder's own architecture (BERT) is not here: like the official
`BertModel.from_pretrained(bert_base_uncased_path)`, it is read from the local
bert-base-uncased folder's `config.json`.
"""

import dataclasses
from typing import Tuple

from transformers import BertConfig
from transformers import GroundingDinoConfig
from transformers import SwinConfig


@dataclasses.dataclass(frozen=True)
class GroundingDinoArch:
    """The architecture numbers of one GroundingDINO variant (tests shrink them)."""

    swin_embed_dim: int = 128
    swin_depths: Tuple[int, ...] = (2, 2, 18, 2)
    swin_num_heads: Tuple[int, ...] = (4, 8, 16, 32)
    swin_window_size: int = 12
    swin_pretrain_image_size: int = 384
    hidden_dim: int = 256
    dim_feedforward: int = 2048
    nheads: int = 8
    enc_layers: int = 6
    dec_layers: int = 6
    num_queries: int = 900
    num_feature_levels: int = 4
    enc_n_points: int = 4
    dec_n_points: int = 4
    max_text_len: int = 256

    def to_transformers(self, text_config: BertConfig) -> GroundingDinoConfig:
        """The transformers GroundingDinoConfig of this architecture, eval settings."""
        backbone = SwinConfig(
            embed_dim=self.swin_embed_dim, depths=list(self.swin_depths),
            num_heads=list(self.swin_num_heads), window_size=self.swin_window_size,
            image_size=self.swin_pretrain_image_size, mlp_ratio=4.0, qkv_bias=True,
            hidden_act="gelu", layer_norm_eps=1e-5, use_absolute_embeddings=False,
            drop_path_rate=0.0, out_features=["stage2", "stage3", "stage4"])
        return GroundingDinoConfig(
            backbone_config=backbone, text_config=text_config,
            num_queries=self.num_queries, encoder_layers=self.enc_layers,
            decoder_layers=self.dec_layers, encoder_ffn_dim=self.dim_feedforward,
            decoder_ffn_dim=self.dim_feedforward, encoder_attention_heads=self.nheads,
            decoder_attention_heads=self.nheads, d_model=self.hidden_dim,
            activation_function="relu", dropout=0.0, attention_dropout=0.0,
            activation_dropout=0.0, num_feature_levels=self.num_feature_levels,
            encoder_n_points=self.enc_n_points, decoder_n_points=self.dec_n_points,
            two_stage=True, max_text_len=self.max_text_len, text_enhancer_dropout=0.0,
            fusion_droppath=0.0, fusion_dropout=0.0, embedding_init_target=True,
            query_dim=4, decoder_bbox_embed_share=True, two_stage_bbox_embed_share=False,
            positional_embedding_temperature=20, position_embedding_type="sine",
            layer_norm_eps=1e-5)


# GroundingDINO_SwinB.py (groundingdino_swinb_cogcoor.pth), full size.
SWINB = GroundingDinoArch()

# GroundingDINO_SwinT_OGC.py (groundingdino_swint_ogc.pth), full size: swin_T_224_1k.
SWINT_OGC = GroundingDinoArch(swin_embed_dim=96, swin_depths=(2, 2, 6, 2),
                              swin_num_heads=(3, 6, 12, 24), swin_window_size=7,
                              swin_pretrain_image_size=224)
