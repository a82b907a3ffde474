"""MUSIQ's multi-scale patch sequence: what the network reads instead of an image.

MUSIQ (Ke et al., ICCV 2021; google-research/musiq, as pyiqa 0.1.16 runs it in
`MUSIQ.forward` through `data/multiscale_trans_util.get_multiscale_patches`) cuts one
image into three groups of 32 x 32 patches and concatenates them into one sequence:

1. For each longer-side length of the config (224 and 384, in ascending order: the order
   is the scale id 0, 1), the image resized with its aspect kept: ratio = length /
   max(h, w), size (round(h * ratio), round(w * ratio)) with Python's round (half to
   even), bicubic interpolation (align_corners=False, no antialias, no clamping; small
   images are upscaled).
2. The image at its own size (scale id 2).

Each image is zero-padded TensorFlow-"SAME" style to whole patches (ceil(h / 32) rows,
ceil(w / 32) columns; the odd pixel of padding goes to the bottom / right) and split into
non-overlapping patches in row-major order, each flattened channel-first (3, 32, 32).
Every patch carries a hashed spatial position: its row and column are mapped onto a G x G
grid (G = 10) by nearest-neighbour, cell = row_cell * G + column_cell, where the cell of
index i among n is floor(i * float32(G / n)) (torch's "nearest" rule with an output size,
computed in float32), at most G - 1. The resized groups are zero-padded (or cut) to
ceil(length / 32)^2 entries (49 and 144); a padding entry has zero pixels, position 0,
scale id 0 and mask 0. The native-size group keeps every patch (max_seq_len_from_original_res
= -1 upstream). The pixels here are whatever the caller gives: MUSIQ maps [0, 1] input to
[-1, 1] before this step (metrics/iqa/musiq.py).
"""

import dataclasses
import math
from typing import Sequence, Tuple

import numpy as np
import torch
import torch.nn.functional as F


@dataclasses.dataclass(frozen=True)
class PatchSequence:
    """A batch of patch sequences, every entry of one length L.

    Attributes:
      pixels: float [N, L, 3, p, p] patch pixels.
      spatial: int64 [N, L] hashed grid cell of each patch.
      scale: int64 [N, L] scale id of each patch.
      mask: bool [N, L], False on padding entries.
    """

    pixels: torch.Tensor
    spatial: torch.Tensor
    scale: torch.Tensor
    mask: torch.Tensor


def aspect_size(height: int, width: int, longer_side: int) -> Tuple[int, int]:
    """(h, w) of the aspect-preserving resize whose longer side is `longer_side`."""
    ratio = longer_side / max(height, width)
    return round(height * ratio), round(width * ratio)


def grid_cells(count: int, grid_size: int) -> np.ndarray:
    """int64 [count]: the hash-grid cell (0 .. grid_size - 1) of each of `count` positions."""
    step = np.float32(grid_size) / np.float32(count)  # float32, as torch's nearest rule
    cells = np.floor(np.arange(count, dtype=np.float32) * step).astype(np.int64)
    return np.minimum(cells, grid_size - 1)


def hashed_positions(rows: int, cols: int, grid_size: int) -> torch.Tensor:
    """int64 [rows * cols]: row-major hashed spatial positions of a rows x cols patch grid."""
    row_cells = grid_cells(rows, grid_size)
    col_cells = grid_cells(cols, grid_size)
    return torch.from_numpy((row_cells[:, None] * grid_size + col_cells[None, :]).reshape(-1))


def split_patches(images: torch.Tensor, patch: int) -> Tuple[torch.Tensor, int, int]:
    """([N, rows * cols, C, patch, patch], rows, cols) of SAME-zero-padded `images` [N, C, H, W]."""
    n, c, h, w = images.shape
    rows, cols = math.ceil(h / patch), math.ceil(w / patch)
    extra_h, extra_w = rows * patch - h, cols * patch - w
    padded = F.pad(images, (extra_w // 2, extra_w - extra_w // 2,
                            extra_h // 2, extra_h - extra_h // 2))
    tiles = padded.reshape(n, c, rows, patch, cols, patch).permute(0, 2, 4, 1, 3, 5)
    return tiles.reshape(n, rows * cols, c, patch, patch), rows, cols


def _group(images, patch, grid_size, scale_id, length) -> PatchSequence:
    """One scale's patches; `length` >= 0 pads with zero entries or cuts, < 0 keeps all."""
    tiles, rows, cols = split_patches(images, patch)
    n, count = tiles.shape[:2]
    device = images.device  # every part of the sequence where the network runs
    spatial = hashed_positions(rows, cols, grid_size).to(device).expand(n, count)
    scale = torch.full((n, count), scale_id, dtype=torch.int64, device=device)
    mask = torch.ones((n, count), dtype=torch.bool, device=device)
    if length >= 0:
        keep, missing = min(count, length), max(0, length - count)
        tiles = torch.cat([tiles[:, :keep], tiles.new_zeros((n, missing) + tiles.shape[2:])], 1)
        spatial = F.pad(spatial[:, :keep], (0, missing))
        scale = F.pad(scale[:, :keep], (0, missing))
        mask = F.pad(mask[:, :keep], (0, missing))
    return PatchSequence(tiles, spatial, scale, mask)


def multiscale_sequence(images: torch.Tensor, longer_sides: Sequence[int] = (224, 384),
                        patch: int = 32, grid_size: int = 10,
                        native_length: int = -1) -> PatchSequence:
    """The concatenated multi-scale patch sequence of `images` (float [N, 3, H, W]).

    Args:
        images: The batch, every image of one size (already in the network's range).
        longer_sides: Longer-side lengths of the resized scales (sorted here).
        patch: Patch size and stride.
        grid_size: G of the G x G hashed spatial grid.
        native_length: Entries kept from the native-size image (< 0: all of them).

    Raises:
        ValueError: `images` is not a float [N, C, H, W] tensor.
    """
    if images.ndim != 4 or not images.is_floating_point():
        raise ValueError(f"expected float [N, C, H, W] images, got {tuple(images.shape)} "
                         f"{images.dtype}")
    h, w = images.shape[-2:]
    groups = []
    for scale_id, side in enumerate(sorted(longer_sides)):
        resized = F.interpolate(images, size=aspect_size(h, w, side), mode="bicubic",
                                align_corners=False)
        groups.append(_group(resized, patch, grid_size, scale_id, math.ceil(side / patch) ** 2))
    groups.append(_group(images, patch, grid_size, len(longer_sides), native_length))
    return PatchSequence(*(torch.cat([getattr(g, f.name) for g in groups], 1)
                           for f in dataclasses.fields(PatchSequence)))
