"""The pieces of CoTracker2 that differ from CoTracker3: encodings, correlation, update former.

* Flow encoding (co-tracker's `get_2d_embedding(xy, 64, cat_coords=True)`): the raw
  (dx, dy) displacement from the window's first frame, then for x and for y
  sin/cos at the LINEAR frequencies k * 1000 / C, k = 0, 2, 4, ..., interleaved
  (sin at even channels, cos at odd), computed in float32.
* Position encoding of the query location (`pos_emb`, a stored buffer): a 2-D sin/cos
  table over the feature map, the first half of its channels encoding x, the second y,
  each the 1-D table `sincos_time_embedding` uses; sampled bilinearly at the track's
  position in the window's first frame.
* Correlation (co-tracker's `CorrBlock` with padding "border"): every track's feature
  dotted with EVERY feature-map pixel of each pyramid level, divided by sqrt(C), then a
  (2r+1)^2 window of that map sampled around the track (first window axis moves x, as in
  CoTracker3's `get_support_points`), levels concatenated.
* The update former (co-tracker's `EfficientUpdateFormer` as CoTracker2 builds it): like
  CoTracker3's, but one head of width latent_dim + 2 (dx, dy, feature update), and the
  space steps' cross attention masked by which tracks the window updates.
"""

import torch
from torch import nn

from metrics.tracking.cotracker2 import config as config_lib
from metrics.tracking.cotracker3 import correlation as cotracker3_correlation
from metrics.tracking.cotracker3 import transformer as cotracker3_transformer


def flow_encoding(flows: torch.Tensor, channels: int) -> torch.Tensor:
    """(M, S, 2) displacements -> (M, S, 2 + 2 * channels): raw, then x waves, then y waves."""
    frequencies = torch.arange(0, channels, 2, device=flows.device, dtype=torch.float32)
    frequencies = (frequencies * (1000.0 / channels)).reshape(1, 1, channels // 2)
    parts = [flows]
    for axis in range(2):
        angles = flows[..., axis:axis + 1] * frequencies
        waves = torch.stack([torch.sin(angles), torch.cos(angles)], dim=-1)  # sin, cos pairs
        parts.append(waves.flatten(-2))
    return torch.cat(parts, dim=-1)


def position_table(width: int, size) -> torch.Tensor:
    """(1, width, h, w) float32: channels [:width/2] encode the column, [width/2:] the row."""
    height, columns = size
    along_x = cotracker3_correlation.sincos_time_embedding(width // 2, columns)[0]  # w, D/2
    along_y = cotracker3_correlation.sincos_time_embedding(width // 2, height)[0]  # h, D/2
    table = torch.cat([along_x[None].expand(height, -1, -1),
                       along_y[:, None].expand(-1, columns, -1)], dim=-1)
    return table.permute(2, 0, 1)[None].contiguous()


def sample_at(maps: torch.Tensor, points: torch.Tensor) -> torch.Tensor:
    """(B, C, h, w) maps at (B, N, 2) (x, y) points -> (B, N, C)."""
    return cotracker3_correlation.sample(maps, points[:, :, None, :])[..., 0].transpose(1, 2)


def sample_in_time(maps: torch.Tensor, points: torch.Tensor) -> torch.Tensor:
    """(B, T, C, h, w) maps at (B, N, 3) (t, x, y) points -> (B, N, C)."""
    sampled = cotracker3_correlation.sample(maps.transpose(1, 2), points[:, None, :, None, :])
    return sampled[:, :, 0, :, 0].transpose(1, 2)


def correlation_windows(levels: list, track_feat: torch.Tensor, coords: torch.Tensor,
                        radius: int) -> torch.Tensor:
    """Windows of the all-pairs correlation maps around each track.

    Args:
        levels: the feature pyramid [(B, S, C, h_i, w_i)].
        track_feat: (B, S, N, C) the tracks' features per frame.
        coords: (B, S, N, 2) positions in level-0 feature pixels.

    Returns:
        (B * N, S, levels * (2r+1)^2), point major, as the transformer input wants.
    """
    batch, frames, count, channels = track_feat.shape
    offsets = cotracker3_correlation.window_offsets(radius, coords.device)[..., 1:]  # K K 2
    scale = torch.sqrt(torch.tensor(channels).float())
    out = []
    for i, level in enumerate(levels):
        height, width = level.shape[-2:]
        maps = torch.matmul(track_feat, level.reshape(batch, frames, channels, height * width))
        maps = (maps / scale).reshape(batch * frames * count, 1, height, width)
        points = coords.reshape(batch * frames * count, 1, 1, 2) / 2 ** i + offsets
        windows = cotracker3_correlation.sample(maps, points)
        out.append(windows.reshape(batch, frames, count, -1))
    joined = torch.cat(out, dim=-1)
    return joined.permute(0, 2, 1, 3).reshape(batch * count, frames, -1).float()


def _mask_bias(mask: torch.Tensor, rows: int, dtype) -> torch.Tensor:
    """co-tracker's CrossAttnBlock bias from a (B*T, N) mask: -max where the mask is False.

    Quirk kept: the mask is applied to the QUERY rows when its length equals the number of
    queries, otherwise to the context columns (so with exactly as many tracks as virtual
    tracks, the virtual tracks' rows get masked instead of the points' columns).
    """
    shaped = mask[:, None, :, None] if mask.shape[1] == rows else mask[:, None, None, :]
    return (~shaped) * -torch.finfo(dtype).max


class UpdateFormer(nn.Module):
    """(B, N, S, input_dim) tokens, (B*S, N) mask -> (B, N, S, latent_dim + 2)."""

    def __init__(self, cfg: config_lib.CoTracker2Config):
        super().__init__()
        width = cfg.hidden_size

        def blocks(kind, count):
            return nn.ModuleList(kind(width, cfg.num_heads, cfg.mlp_ratio) for _ in range(count))

        self.input_transform = nn.Linear(cfg.input_dim, width)
        self.flow_head = nn.Linear(width, cfg.latent_dim + 2)
        self.virual_tracks = nn.Parameter(torch.randn(1, cfg.num_virtual_tracks, 1, width))
        self.time_blocks = blocks(cotracker3_transformer.SelfBlock, cfg.time_depth)
        self.space_virtual_blocks = blocks(cotracker3_transformer.SelfBlock, cfg.space_depth)
        self.space_point2virtual_blocks = blocks(cotracker3_transformer.CrossBlock,
                                                 cfg.space_depth)
        self.space_virtual2point_blocks = blocks(cotracker3_transformer.CrossBlock,
                                                 cfg.space_depth)
        self.space_every = cfg.time_depth // cfg.space_depth

    def forward(self, tokens: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        x = cotracker3_transformer.mix_with_virtual_tracks(
            self, tokens, lambda rows, dtype: _mask_bias(mask, rows, dtype))
        return self.flow_head(x)
