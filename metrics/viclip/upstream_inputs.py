"""The seeded inputs of the ViCLIP upstream record (testdata/viclip_upstream.json): the small
config of the official architecture, the weight and video seeds and digests, and the
official BPE file, on which Miradata 7ad0579's ViCLIP code was run.

Shared by //metrics/viclip:upstream_parity_test and //tools/calibration:viclip_parity_test,
which both recompute our side on them.
"""

import hashlib
import importlib.util
import pathlib

import torch

from metrics.viclip import model as model_lib

UPSTREAM = "metrics/viclip/testdata/viclip_upstream.json"
# The official depth, patch grid, frames, vocabulary and context; width 128, 2 heads.
SMALL = model_lib.ViClipConfig(
    image_size=224, patch_size=14, num_frames=8, vision_width=128, vision_layers=24,
    vision_heads=2, embed_dim=64, context_length=32, vocab_size=49408, text_width=128,
    text_layers=12, text_heads=2)
WEIGHT_SEED = 20261207
VIDEO_SEED = 20261203
VIDEO_SHAPE = (2, 8, 3, 224, 224)
BPE_SHA256 = "924691ac288e54409236115652ad4aa250f48203de50a9e4722a6ecd48d6804a"


def seeded_video() -> torch.Tensor:
    """(2, 8, 3, 224, 224) standard normal values, as normalised frames."""
    return torch.randn(VIDEO_SHAPE, generator=torch.Generator().manual_seed(VIDEO_SEED))


def state_digest(state) -> str:
    """sha256 over (key utf-8, then the float32 tensor's bytes) for every entry, in order."""
    digest = hashlib.sha256()
    for key, tensor in state.items():
        digest.update(key.encode())
        digest.update(tensor.detach().float().contiguous().numpy().tobytes())
    return digest.hexdigest()


def official_bpe_path() -> pathlib.Path:
    """open_clip's copy of OpenAI's bpe_simple_vocab_16e6.txt.gz (not imported, only found)."""
    spec = importlib.util.find_spec("open_clip")
    return pathlib.Path(list(spec.submodule_search_locations)[0]) / "bpe_simple_vocab_16e6.txt.gz"
