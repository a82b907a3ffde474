"""Sampling, correlation windows and the small encodings CoTracker3's update step uses.

Coordinates are pixels of the map being sampled (x, y), or (t, x, y) for a stack of
frames; sampling is bilinear (trilinear in t) with align_corners=True and border padding,
i.e. grid_sample after mapping pixel c of a size-n axis to 2c / max(n - 1, 1) - 1.

Quirk kept from co-tracker (`get_support_points`): a window's offsets form a
(2r+1) x (2r+1) array whose FIRST axis moves x and whose second moves y, the transpose of
an image patch. The learned correlation MLP reads the flattened window in that order.
"""

import math

import torch
import torch.nn.functional as F

from metrics.tracking.cotracker3 import config as config_lib


def sample(maps: torch.Tensor, points: torch.Tensor) -> torch.Tensor:
    """grid_sample of (B, C, H, W) at (x, y) or of (B, C, T, H, W) at (t, x, y) pixel points.

    Args:
        maps: (B, C, H, W) or (B, C, T, H, W).
        points: (B, ..., 2) or (B, ..., 3) matching the map's dimensionality.

    Returns:
        (B, C, ...) samples.
    """
    sizes = maps.shape[2:]
    if points.shape[-1] != len(sizes):
        raise ValueError(f"{len(sizes)}-d maps need {len(sizes)}-d points, got {points.shape}")
    if len(sizes) == 3:
        points = points[..., [1, 2, 0]]  # grid_sample wants (x, y, t)
    per_axis = torch.tensor([2 / max(n - 1, 1) for n in reversed(sizes)], device=points.device)
    grid = points * per_axis - 1
    return F.grid_sample(maps, grid, mode="bilinear", padding_mode="border", align_corners=True)


def window_offsets(radius: int, device=None) -> torch.Tensor:
    """(2r+1, 2r+1, 3) offsets (0, dx, dy); dx follows the first axis (see the quirk above)."""
    steps = torch.linspace(-radius, radius, 2 * radius + 1, device=device)
    along_first, along_second = torch.meshgrid(steps, steps, indexing="ij")
    return torch.stack([torch.zeros_like(along_first), along_first, along_second], dim=-1)


def query_windows(maps: torch.Tensor, query_points: torch.Tensor, radius: int) -> torch.Tensor:
    """Features around each query point in its own frame.

    Args:
        maps: (B, T, C, h, w) one pyramid level.
        query_points: (B, N, 3) (t, x, y) in this level's pixels.

    Returns:
        (B, N, K, K, C) with K = 2r + 1, window axes as in `window_offsets`.
    """
    batch, count = query_points.shape[:2]
    size = 2 * radius + 1
    points = query_points[:, :, None, None, :] + window_offsets(radius, maps.device)
    points = points.reshape(batch, count, size * size, 3).transpose(1, 2)  # B K*K N 3
    sampled = sample(maps.transpose(1, 2), points[:, :, :, None, :])  # B C K*K N 1
    channels = sampled.shape[1]
    sampled = sampled[..., 0].permute(0, 2, 3, 1)  # B K*K N C
    return sampled.reshape(batch, size, size, count, channels).permute(0, 3, 1, 2, 4)


def track_windows(maps: torch.Tensor, points: torch.Tensor, radius: int) -> torch.Tensor:
    """Features around each current track position, frame by frame.

    Args:
        maps: (B, T, C, h, w) one pyramid level.
        points: (B*T, N, 2) (x, y) in this level's pixels.

    Returns:
        (B, T, N, K, K, C).
    """
    batch, frames, channels, height, width = maps.shape
    count = points.shape[1]
    size = 2 * radius + 1
    timed = torch.cat([torch.zeros_like(points[..., :1]), points], dim=-1)
    grid = timed[:, :, None, None, :] + window_offsets(radius, maps.device)  # BT N K K 3
    sampled = sample(maps.reshape(batch * frames, channels, 1, height, width), grid)
    sampled = sampled.view(batch, frames, channels, count, size, size)
    return sampled.permute(0, 1, 3, 4, 5, 2)


def correlation_volume(around_tracks: torch.Tensor, around_queries: torch.Tensor) -> torch.Tensor:
    """Dot products of every track-window sample with every query-window sample.

    (B, T, N, K, K, C) x (B, N, K, K, C) -> (B, T, N, K^4), track window major.
    """
    volume = torch.einsum("btnpqc,bnuvc->btnpquv", around_tracks, around_queries)
    return volume.flatten(3)


def normalise_features(maps: torch.Tensor) -> torch.Tensor:
    """(N, C, h, w) features divided by their channel L2 norm (floored at 1e-12 squared)."""
    channels_last = maps.permute(0, 2, 3, 1)
    squared = torch.sum(torch.square(channels_last), dim=-1, keepdim=True)
    norm = torch.sqrt(torch.maximum(squared, torch.tensor(1e-12, device=maps.device)))
    return (channels_last / norm).permute(0, 3, 1, 2)


def pyramid(maps: torch.Tensor, levels: int) -> list:
    """[(B, T, C, h, w), then each level 2x2-average-pooled from the previous]."""
    batch, frames, channels = maps.shape[:3]
    out = [maps]
    for _ in range(levels - 1):
        pooled = F.avg_pool2d(out[-1].reshape(batch * frames, channels, *out[-1].shape[-2:]), 2,
                              stride=2)
        out.append(pooled.reshape(batch, frames, channels, *pooled.shape[-2:]))
    return out


def motion_encoding(coords: torch.Tensor, model_resolution, stride: int) -> torch.Tensor:
    """Relative motion to the next and previous frame, scaled and sin/cos encoded.

    Args:
        coords: (B, T, N, 2) positions in feature-map pixels.

    Returns:
        (B, T, N, 84): the 4 raw values, then sin at scales 2^0..2^9 (scale major), then
        the same shifted by pi/2 (cos). The last frame has no "next" and the first no
        "previous": those are zero.
    """
    to_next = F.pad(coords[:, :-1] - coords[:, 1:], (0, 0, 0, 0, 0, 1))
    to_previous = F.pad(coords[:, 1:] - coords[:, :-1], (0, 0, 0, 0, 1, 0))
    extent = torch.tensor([model_resolution[1], model_resolution[0]], device=coords.device) / stride
    motion = torch.cat([to_next / extent, to_previous / extent], dim=-1)
    scales = torch.tensor([2.0 ** d for d in range(config_lib.POSENC_DEGREES)],
                          dtype=motion.dtype, device=motion.device)
    scaled = (motion[..., None, :] * scales[:, None]).flatten(-2)
    waves = torch.sin(torch.cat([scaled, scaled + 0.5 * math.pi], dim=-1))
    return torch.cat([motion, waves], dim=-1)


def sincos_time_embedding(width: int, frames: int) -> torch.Tensor:
    """(1, frames, width) float32: sin of t * 10000^(-2i/width) for i < width/2, then cos."""
    if width % 2:
        raise ValueError(f"time embedding width {width} is odd")
    # Built on the CPU even under a `torch.device("meta")` context: it is a fixed table.
    exponent = torch.arange(width // 2, dtype=torch.float64, device="cpu") / (width / 2.0)
    frequency = 1.0 / 10000 ** exponent
    times = torch.linspace(0, frames - 1, frames, device="cpu")
    angles = times.double()[:, None] * frequency[None, :]
    return torch.cat([torch.sin(angles), torch.cos(angles)], dim=1)[None].float()


def time_embedding_for(stored: torch.Tensor, frames: int) -> torch.Tensor:
    """The stored (1, window_len, D) embedding, linearly resampled (align_corners=False) to T."""
    if frames == stored.shape[1]:
        return stored
    resampled = F.interpolate(stored.float().transpose(1, 2), size=frames, mode="linear")
    return resampled.transpose(1, 2).to(stored.dtype)
