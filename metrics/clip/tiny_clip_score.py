"""Test support: a tiny random CLIPModel snapshot with its CLIPProcessor files.

A 2-layer 32-wide text and vision tower (transformers' CLIP architecture) and a
byte-level BPE tokenizer with no merges (every byte its own token, the 512 byte tokens
with and without "</w>" plus the two specials), saved with save_pretrained as the hub
snapshot openai/clip-vit-base-patch16 is laid out (config.json, weights,
preprocessor_config.json, the tokenizer's files). As in openai/clip-vit-*'s config, the
text config keeps the legacy eos_token_id 2, so transformers pools at the argmax token id
(the EOT, the largest id; after truncation the largest id left).
"""

import pathlib

import torch
from transformers import CLIPConfig
from transformers import CLIPImageProcessor
from transformers import CLIPModel
from transformers import CLIPProcessor
from transformers import CLIPTokenizer
from transformers.convert_slow_tokenizer import bytes_to_unicode

MAX_POSITIONS = 16  # short, so that truncation is exercised


def _vocab() -> dict:
    chars = list(bytes_to_unicode().values())
    tokens = chars + [c + "</w>" for c in chars] + ["<|startoftext|>", "<|endoftext|>"]
    return {t: i for i, t in enumerate(tokens)}


def write_snapshot(folder, seed: int = 0) -> CLIPModel:
    folder = pathlib.Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    table = _vocab()
    vocab = len(table)
    tokenizer = CLIPTokenizer(vocab=table, merges=[], model_max_length=77)
    image_processor = CLIPImageProcessor(size={"shortest_edge": 32},
                                         crop_size={"height": 32, "width": 32})
    CLIPProcessor(image_processor=image_processor, tokenizer=tokenizer).save_pretrained(
        str(folder))
    torch.manual_seed(seed)
    config = CLIPConfig(
        text_config=dict(hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                         num_attention_heads=4, vocab_size=vocab,
                         max_position_embeddings=MAX_POSITIONS,
                         bos_token_id=vocab - 2, eos_token_id=2),
        vision_config=dict(hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                           num_attention_heads=4, image_size=32, patch_size=8),
        projection_dim=16)
    model = CLIPModel(config).eval()
    model.save_pretrained(str(folder))
    return model
