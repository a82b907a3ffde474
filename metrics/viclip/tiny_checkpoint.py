"""Tiny random ViCLIP files in the official formats, for tests.

`write_checkpoint`: a random metrics.viclip.model.ViClip at TINY sizes (224 px input as the
metric feeds it, 56 px patches: a 4 x 4 grid) saved as the
official {'model': state_dict} (every parameter drawn, none left at its zero init).
`write_bpe`: a gzipped CLIP BPE vocabulary in the official layout (a version header, then
one merge per line) with TINY_MERGES, so TINY's vocabulary is 512 + merges + 2 ids.
"""

import gzip

import torch

from metrics.viclip import loader
from metrics.viclip import model as model_lib

TINY_MERGES = (("c", "a"), ("ca", "t</w>"), ("d", "o"), ("do", "g</w>"), ("t", "h"),
               ("th", "e</w>"), ("s", "k"), ("sk", "y</w>"))
TINY = model_lib.ViClipConfig(
    image_size=224, patch_size=56, num_frames=8, vision_width=32, vision_layers=2,
    vision_heads=2, embed_dim=16, context_length=32, vocab_size=512 + len(TINY_MERGES) + 2,
    text_width=32, text_layers=2, text_heads=2)


def random_model(config: model_lib.ViClipConfig = TINY, seed: int = 0) -> model_lib.ViClip:
    """A ViClip with every parameter drawn from a seeded normal (LayerNorm gains near 1)."""
    model = model_lib.ViClip(config)
    generator = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for name, param in model.named_parameters():
            noise = torch.randn(param.shape, generator=generator)
            if ".ln_" in name and name.endswith("weight"):
                param.copy_(1 + 0.1 * noise)
            elif name.endswith(("proj", "projection")):
                param.copy_(noise * param.shape[0] ** -0.5)
            else:
                param.copy_(0.1 * noise)
    return model.eval()


def write_checkpoint(path, config: model_lib.ViClipConfig = TINY, seed: int = 0
                     ) -> model_lib.ViClip:
    """Saves a random ViClip at `path` in the official format; returns the model."""
    model = random_model(config, seed)
    loader.write_official(model, path)
    return model


def write_bpe(path, merges=TINY_MERGES) -> None:
    """Writes a gzipped BPE vocabulary (header line, then "a b" merges)."""
    with gzip.open(str(path), "wt", encoding="utf-8") as f:
        f.write("#version: 0.2 (tiny test vocabulary)\n")
        f.write("".join(f"{a} {b}\n" for a, b in merges))
