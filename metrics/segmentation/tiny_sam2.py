"""A tiny random SAM 2.1 in the official checkpoint format, for tests and parity checks.

The architecture is Hiera-L's with a narrow, 5-block trunk and one small memory-attention
layer (the mask decoder, prompt encoder, memory encoder and 1024 px input keep their
official sizes: the official image predictor hard-codes the 1024 px feature sizes). The
official code builds the same model with these hydra overrides of sam2.1_hiera_l.yaml:
`OFFICIAL_OVERRIDES`.
"""

import dataclasses
import pathlib

import torch

from metrics.segmentation import sam2_config
from metrics.segmentation import sam2_keys

TINY = dataclasses.replace(
    sam2_config.HIERA_L, embed_dim=8, num_heads=1, stages=(1, 1, 2, 1),
    global_att_blocks=(3,), window_spec=(8, 4, 4, 2), memory_attention_layers=1,
    memory_attention_ff=64)

# The video predictor alone also runs at a small input size (tests that track a clip).
TINY_128 = dataclasses.replace(TINY, image_size=128)

OFFICIAL_OVERRIDES = (
    "++model.image_encoder.trunk.embed_dim=8", "++model.image_encoder.trunk.num_heads=1",
    "++model.image_encoder.trunk.stages=[1,1,2,1]",
    "++model.image_encoder.trunk.global_att_blocks=[3]",
    "++model.image_encoder.trunk.window_spec=[8,4,4,2]",
    "++model.image_encoder.neck.backbone_channel_list=[64,32,16,8]",
    "++model.memory_attention.num_layers=1",
    "++model.memory_attention.layer.dim_feedforward=64")


def save_tiny_sam2(path, seed: int = 0, noise: float = 0.05,
                   config: sam2_config.Sam2Architecture = TINY,
                   object_bias: float = 0.0) -> pathlib.Path:
    """Writes {"model": official-keyed state dict} of a seeded random model to `path`.

    transformers' initialisation leaves many tensors zero or one (embeddings, layer
    scales, norms); seeded Gaussian noise of std `noise` on every tensor makes each of
    them matter. `object_bias` is added to the object-score head's last bias, so that
    tracked objects stay "present" (propagated masks from the memory path, not empty).
    """
    # pylint: disable=import-outside-toplevel
    from transformers import Sam2VideoModel
    torch.manual_seed(seed)
    model = Sam2VideoModel(sam2_config.video_config(config))
    generator = torch.Generator().manual_seed(seed + 1)
    state = {}
    for name, tensor in model.state_dict().items():
        if tensor.is_floating_point():
            tensor = tensor + torch.randn(tensor.shape, generator=generator) * noise
        state[name] = tensor.contiguous()
    # the two copies of the prompt encoder's Gaussian matrix are one tensor officially
    state["shared_image_embedding.positional_embedding"] = \
        state["prompt_encoder.shared_embedding.positional_embedding"]
    path = pathlib.Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    official = sam2_keys.to_official(state)
    official["sam_mask_decoder.pred_obj_score_head.layers.2.bias"] += object_bias
    torch.save({"model": official}, str(path))
    return path
