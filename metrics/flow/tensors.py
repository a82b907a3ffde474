"""Frame-to-tensor conversions shared by the flow backends and the warp error.

The official warp-error smoothness (spec §4.1) feeds RAFT and the warp with
`TF.to_tensor` of the RGB frame: floats in [0, 1], channels first, and no
[-1, 1] normalisation (quirk 3 in spec §12). RAFT needs sides that are
multiples of 8, so the official code pads the bottom and right edges by
repeating the last row/column.
"""

import numpy as np
import torch
import torch.nn.functional as F

from metrics import device as device_lib

RAFT_SIZE_MULTIPLE = 8


def to_unit_rgb(frames_bgr, device=None):
    """Converts BGR uint8 frames to RGB float32 tensors in [0, 1].

    Equal, value for value, to stacking `torchvision.transforms.functional.
    to_tensor` of each frame after a BGR->RGB conversion.

    Args:
        frames_bgr: Array of shape (B, H, W, 3) and dtype uint8 (BGR, as
            OpenCV decodes), or a sequence of (H, W, 3) uint8 arrays of one
            size.
        device: Where the tensor goes (default: the CPU); the uint8 frames are sent to
            a CUDA device from pinned host memory (metrics.device.to_device).

    Returns:
        Float32 tensor of shape (B, 3, H, W).

    Raises:
        ValueError: If the frames are not uint8 with 3 channels.
    """
    frames = np.asarray(frames_bgr)
    if frames.dtype != np.uint8 or frames.ndim != 4 or frames.shape[-1] != 3:
        raise ValueError(
            "expected BGR uint8 frames of shape (B, H, W, 3), got dtype "
            f"{frames.dtype} and shape {frames.shape}")
    rgb = np.ascontiguousarray(frames[..., ::-1])
    tensor = torch.from_numpy(rgb).permute(0, 3, 1, 2)
    return device_lib.to_device(tensor, device).to(torch.float32).div(255)


def pad_to_multiple(images, multiple=RAFT_SIZE_MULTIPLE):
    """Pads the bottom and right edges by replication to a multiple of `multiple`.

    Args:
        images: Tensor of shape (B, C, H, W).
        multiple: Positive int that the padded H and W are multiples of.

    Returns:
        Tensor of shape (B, C, H', W'), H' and W' the smallest multiples of
        `multiple` that are >= H and W; `images` itself when no padding is needed.

    Raises:
        ValueError: If images is not 4-D or multiple is not positive.
    """
    if images.dim() != 4:
        raise ValueError(f"expected a (B, C, H, W) tensor, got shape {tuple(images.shape)}")
    if multiple <= 0:
        raise ValueError(f"multiple must be positive, got {multiple}")
    height, width = images.shape[-2:]
    pad_h = (multiple - height % multiple) % multiple
    pad_w = (multiple - width % multiple) % multiple
    if pad_h == 0 and pad_w == 0:
        return images
    # F.pad's order is (left, right, top, bottom) for the last two dimensions.
    return F.pad(images, (0, pad_w, 0, pad_h), mode="replicate")


def centred_padding(height: int, width: int, multiple: int):
    """(left, right, top, bottom) that pad H and W up to multiples of `multiple`, split
    [pad // 2, pad - pad // 2] (the InputPadder of RAFT's "sintel" mode and of AMT)."""
    if multiple <= 0:
        raise ValueError(f"multiple must be positive, got {multiple}")
    pad_h = (-height) % multiple
    pad_w = (-width) % multiple
    return pad_w // 2, pad_w - pad_w // 2, pad_h // 2, pad_h - pad_h // 2
