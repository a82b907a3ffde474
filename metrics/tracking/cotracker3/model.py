"""CoTracker3 offline: iterative refinement of point tracks over a whole clip at once.

Follows co-tracker's `CoTrackerThreeOffline.forward` (inference path): frames in 0..255
mapped to [-1, 1]; per-frame features (`encoder.FeatureEncoder`), L2-normalised per
pixel, in a 4-level average-pooled pyramid; each query's (2r+1)^2 window of features in
its own frame; then `iters` rounds of: the window around every current position in every
frame, its correlation with the query window, an MLP (exact GELU) to a per-level
embedding, plus the current visibility and confidence logits, the encoded motion to the
neighbouring frames and the (resampled) stored time embedding, into the update
transformer, whose output is added to the positions (feature pixels) and the two logits.
Outputs are the last round's positions times the stride and the sigmoids of the logits.
"""

from typing import Tuple

import torch
from torch import nn

from metrics.tracking.cotracker3 import config as config_lib
from metrics.tracking.cotracker3 import correlation
from metrics.tracking.cotracker3 import encoder
from metrics.tracking.cotracker3 import transformer

# Frames per feature-network call (co-tracker's fmaps_chunk_size); bounds peak memory.
_ENCODER_CHUNK = 200


class CoTracker3Offline(nn.Module):
    """The network; state-dict keys are those of the official checkpoint."""

    def __init__(self, cfg: config_lib.CoTracker3Config = config_lib.OFFLINE_DEFAULT):
        super().__init__()
        self.cfg = cfg
        self.fnet = encoder.FeatureEncoder(cfg.latent_dim, cfg.stride)
        self.updateformer = transformer.UpdateTransformer(cfg)
        self.corr_mlp = transformer.Mlp(cfg.window_size ** 4, cfg.corr_hidden, cfg.corr_out,
                                        approximate="none")
        self.register_buffer("time_emb",
                             correlation.sincos_time_embedding(cfg.input_dim, cfg.window_len))

    def features(self, video: torch.Tensor) -> list:
        """(B, T, 3, H, W) in 0..255 -> the feature pyramid [(B, T, C, h, w), ...]."""
        batch, frames = video.shape[:2]
        scaled = 2 * (video / 255.0) - 1.0
        flat = scaled.reshape(batch * frames, *scaled.shape[2:])
        maps = torch.cat([self.fnet(flat[s:s + _ENCODER_CHUNK])
                          for s in range(0, flat.shape[0], _ENCODER_CHUNK)])
        maps = correlation.normalise_features(maps)
        maps = maps.reshape(batch, frames, self.cfg.latent_dim, *maps.shape[-2:]).to(video.dtype)
        return correlation.pyramid(maps, self.cfg.corr_levels)

    def forward(self, video: torch.Tensor, queries: torch.Tensor,
                iters: int = 4) -> Tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """Tracks of `queries` through `video`.

        Args:
            video: (B, T, 3, H, W) float, 0..255, H and W multiples of the stride.
            queries: (B, N, 3) (frame, x, y) in video pixels.
            iters: refinement rounds (the predictor uses 6).

        Returns:
            positions (B, T, N, 2) in video pixels, visibility and confidence (B, T, N) in
            (0, 1).
        """
        cfg = self.cfg
        batch, frames, _, height, width = video.shape
        if height % cfg.stride or width % cfg.stride:
            raise ValueError(f"frames {height}x{width} are not a multiple of stride {cfg.stride}")
        count = queries.shape[1]
        levels = self.features(video)
        query_frames = queries[:, :, :1].long().to(queries.dtype)
        query_xy = queries[..., 1:3] / cfg.stride
        query_windows = [
            correlation.query_windows(level, torch.cat([query_frames, query_xy / 2 ** i], -1),
                                      cfg.corr_radius)
            for i, level in enumerate(levels)]

        coords = query_xy.reshape(batch, 1, count, 2).expand(batch, frames, count, 2).float()
        vis = torch.zeros((batch, frames, count), device=queries.device)
        conf = torch.zeros_like(vis)
        for _ in range(iters):
            flat = coords.reshape(batch * frames, count, 2)
            embeddings = []
            for i, level in enumerate(levels):
                around = correlation.track_windows(level, flat / 2 ** i, cfg.corr_radius)
                volume = correlation.correlation_volume(around, query_windows[i])
                embeddings.append(self.corr_mlp(volume.reshape(batch * frames * count, -1)))
            corr = torch.cat(embeddings, dim=-1).view(batch, frames, count, -1)
            motion = correlation.motion_encoding(coords, cfg.model_resolution, cfg.stride)
            tokens = torch.cat([vis[..., None], conf[..., None], corr, motion], dim=-1)
            tokens = tokens.permute(0, 2, 1, 3).reshape(batch * count, frames, -1)
            tokens = tokens + correlation.time_embedding_for(self.time_emb, frames)
            delta = self.updateformer(tokens.view(batch, count, frames, -1)).permute(0, 2, 1, 3)
            coords = coords + delta[..., :2]
            vis = vis + delta[..., 2]
            conf = conf + delta[..., 3]
        return coords * float(cfg.stride), torch.sigmoid(vis), torch.sigmoid(conf)
