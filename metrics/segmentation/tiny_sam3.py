"""Test support: a tiny random SAM-3 saved in the facebook/sam3 snapshot layout.

Every part of the real architecture is there (ViT with windowed and global attention,
FPN neck, CLIP text encoder, geometry encoder, DETR encoder/decoder with presence
token, dot-product scorer, mask decoder), each one layer deep and 16 wide, on 56x56
inputs (4x4 patches of 14) with 2 queries: ~76k parameters. The scorer's two
projections are re-drawn larger than the init's, so that the queries' scores differ.
With the default seed, on the fixture's R-phase frames one mask covers ~90% and the
other 60-76% of the frame: frames fall on either side of the 0.70 fallback bound, so
detection varies from frame to frame (and between RGB and BGR input). The tokenizer is
a CLIP byte-level BPE with the 512 byte tokens, a few merges and CLIP's special tokens.
"""

import pathlib

import torch
from transformers import CLIPTokenizer, Sam3Config, Sam3Model
from transformers.models.sam3 import configuration_sam3 as cfg

from metrics.segmentation import sam3

IMAGE_SIZE = 56
NUM_QUERIES = 2
_WIDTH = 16
_MERGES = (("r", "e"), ("re", "d</w>"), ("b", "a"), ("ba", "l"), ("bal", "l</w>"),
           ("s", "u"), ("su", "b"), ("sub", "j"), ("subj", "e"), ("subje", "c"),
           ("subjec", "t</w>"))


def _byte_symbols():
    """CLIP's byte -> printable-character table (bytes_to_unicode), in vocabulary order."""
    printable = (list(range(ord("!"), ord("~") + 1)) + list(range(ord("¡"), ord("¬") + 1))
                 + list(range(ord("®"), ord("ÿ") + 1)))
    extra = [256 + n for n in range(256 - len(printable))]
    return [chr(c) for c in printable + extra]


def tiny_tokenizer() -> CLIPTokenizer:
    symbols = _byte_symbols()
    vocab = symbols + [s + "</w>" for s in symbols] + ["".join(m) for m in _MERGES]
    vocab += ["<|startoftext|>", "<|endoftext|>"]
    return CLIPTokenizer(vocab={token: i for i, token in enumerate(vocab)},
                         merges=list(_MERGES))


def tiny_config(vocab_size: int, bos: int, eos: int, text_overrides=None) -> Sam3Config:
    """The tiny Sam3Config; `text_overrides` replace text-config fields (e.g. the
    official text tower's MLP ratio 4 and 512-wide projection for the parity kit)."""
    small = {"num_attention_heads": 2, "intermediate_size": 32}
    backbone = cfg.Sam3ViTConfig(hidden_size=_WIDTH, num_hidden_layers=2, image_size=IMAGE_SIZE,
                                 patch_size=14, window_size=2, global_attn_indexes=[1],
                                 pretrain_image_size=28, **small)
    text = {"vocab_size": vocab_size, "hidden_size": _WIDTH, "projection_dim": _WIDTH,
            "num_hidden_layers": 1, "max_position_embeddings": 32, "hidden_act": "gelu",
            "bos_token_id": bos, "eos_token_id": eos, "pad_token_id": eos, **small,
            **(text_overrides or {})}
    return Sam3Config(
        vision_config=cfg.Sam3VisionConfig(backbone_config=backbone, fpn_hidden_size=_WIDTH),
        text_config=text,
        geometry_encoder_config=cfg.Sam3GeometryEncoderConfig(hidden_size=_WIDTH, num_layers=1,
                                                              **small),
        detr_encoder_config=cfg.Sam3DETREncoderConfig(hidden_size=_WIDTH, num_layers=1, **small),
        detr_decoder_config=cfg.Sam3DETRDecoderConfig(hidden_size=_WIDTH, num_layers=1,
                                                      num_queries=NUM_QUERIES, **small),
        mask_decoder_config=cfg.Sam3MaskDecoderConfig(hidden_size=_WIDTH, num_attention_heads=2))


def save_tiny_sam3(checkpoint_dir, seed: int = 1, text_overrides=None) -> pathlib.Path:
    """Saves a random tiny model + tokenizer under <checkpoint_dir>/<SAM3.name>."""
    tokenizer = tiny_tokenizer()
    torch.manual_seed(seed)
    model = Sam3Model(tiny_config(len(tokenizer), tokenizer.bos_token_id,
                                  tokenizer.eos_token_id, text_overrides)).eval()
    torch.manual_seed(seed + 1)
    with torch.no_grad():
        scoring = model.dot_product_scoring
        for layer in (scoring.query_proj, scoring.text_proj):
            layer.weight.normal_(0.0, 0.3)
    folder = pathlib.Path(checkpoint_dir) / sam3.SAM3.name
    model.save_pretrained(str(folder))
    tokenizer.save_pretrained(str(folder))
    return folder
