"""CLIP cosine similarity between generated frames and reference frames at given index pairs.

Each frame goes through metrics.clip.vision (open_clip's OpenAI preprocessing, then
`encode_image`, L2-normalised); a pair's similarity is the dot product of its two unit
embeddings, in [-1, 1], computed on the CPU unless a device is given (as a numpy dot
product would). All the pairs' images go through the tower in one call. Which pairs to
compare, and how their similarities combine, is the caller's choice.
"""

from typing import Callable, List, Sequence, Tuple

import numpy as np
import torch

from metrics.checkpoints import resolver
from metrics.clip import vision

CLIP_VIT_B32 = resolver.CheckpointSpec(
    name="clip_vit_base_patch32",
    filename="model.safetensors",
    hf_repo="openai/clip-vit-base-patch32",
    snapshot=True,
    license="MIT",
)

# Called once with the reference indices of all pairs (repeats possible); returns those
# reference frames (BGR uint8, any size) in that order.
ReferenceFramesAt = Callable[[List[int]], Sequence[np.ndarray]]


def pair_similarities(gen_frames: Sequence[np.ndarray], reference_frames_at: ReferenceFramesAt,
                      pairs: Sequence[Tuple[int, int]], model: vision.ClipVision,
                      device=None) -> List[float]:
    """The CLIP cosine similarity of each (reference index, generated index) pair.

    Args:
        gen_frames: The generated frames, (N, H, W, 3) uint8 BGR.
        reference_frames_at: See ReferenceFramesAt.
        pairs: (reference index, generated index) of each pair.
        model: A CLIP image tower (metrics.clip.vision.load_clip_vision).
        device: Where the cosines are computed; None: the CPU (the embeddings come
            from the model's device).

    Returns:
        One cosine per pair, in [-1, 1]; [] without pairs (the model is not called).

    Raises:
        ValueError: A generated index out of range, or reference_frames_at returned the
            wrong number of frames.
    """
    pairs = list(pairs)
    for _, gen in pairs:
        if not 0 <= gen <= len(gen_frames) - 1:
            raise ValueError(f"generated index {gen} out of range for {len(gen_frames)} frames")
    if not pairs:
        return []
    reference = list(reference_frames_at([ref for ref, _ in pairs]))
    if len(reference) != len(pairs):
        raise ValueError(f"reference_frames_at returned {len(reference)} frames for "
                         f"{len(pairs)} indices")
    images = reference + [gen_frames[gen] for _, gen in pairs]
    embeddings = vision.image_embeddings(model, images, batch_size=len(images))
    embeddings = embeddings.to(torch.device(device) if device is not None else "cpu")
    cosines = (embeddings[:len(pairs)] * embeddings[len(pairs):]).sum(dim=-1)
    return [float(c) for c in cosines]
