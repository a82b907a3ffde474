"""CoTracker2 (co-tracker's `CoTracker2`) in plain PyTorch, online (sliding window) use.

The network tracks query points through windows of `window_len` frames that advance by
half a window. `online_step` is co-tracker's `CoTracker2.forward(..., is_online=True)`
for one chunk of at most `window_len` frames (the chunk that starts at the state's
current window), step by step:

1. Frames 0..255 -> [-1, 1]; the chunk is padded to a full window by repeating its last
   frame; features per frame (CoTracker3's `FeatureEncoder`, NOT normalised here).
2. Each query's feature is sampled (trilinear) at its frame within this chunk and added
   to the stored track features only when that frame is new to this window (frames
   [0, S) in the first window, [ind + S/2, ind + S) later), so each query keeps the
   feature from the first window that saw it.
3. Initial positions are the query points; from the second window on, tracks queried
   before the overlap's end start from the previous estimates of the overlapping half
   (positions and visibility logits; the new half repeats the last one); otherwise
   visibility logits start at 10.
4. `forward_window`: `iters` rounds of correlation windows, flow encoding, track
   features, track mask and visibility plus the query-position and time encodings into
   the update former, whose output moves the positions and updates the track features
   (GroupNorm(1) -> Linear -> exact GELU, residual); visibility logits are read from the
   final track features.
5. The chunk's positions (times the stride) and logits overwrite the history from the
   window start; the history first grows by min(S/2, T - S/2) frames. Returned: the
   whole history and the sigmoid of its logits.

Parity (//tools/calibration:cotracker2_parity_test, recomputed in CI against tools/calibration/cotracker2_official.json, a record on seeded weights whose refinements settle): on
seeded random full-size weights, a seeded 14-frame 96x128 video, grid 10 and the 8-frame
window's online chunking, this module's tracks, visibility probabilities and flags in
every call equal the stored outputs of co-tracker @ 82e02e8 (max |difference| 0.0 when
recorded; tracking strength 20.4696). co-tracker @ 9ed0531 (2024-06-28, visibility cut
0.9) gave the same tracks and probabilities (stored as `older_upstream`, not tested).
"""

import dataclasses
from typing import Optional, Tuple

import torch
from torch import nn
import torch.nn.functional as F

from metrics.tracking.cotracker2 import config as config_lib
from metrics.tracking.cotracker2 import layers
from metrics.tracking.cotracker3 import correlation as cotracker3_correlation
from metrics.tracking.cotracker3 import encoder

INITIAL_VISIBILITY_LOGIT = 10.0


@dataclasses.dataclass
class OnlineState:
    """What carries over between the online calls of one video."""

    ind: int = 0  # first frame of the current window
    track_feat: Optional[torch.Tensor] = None  # (B, S, N, C)
    coords: Optional[torch.Tensor] = None  # (B, L, N, 2) history, video pixels
    vis: Optional[torch.Tensor] = None  # (B, L, N) history, logits


class CoTracker2(nn.Module):
    """The network; state-dict keys are those of the official checkpoint."""

    def __init__(self, cfg: config_lib.CoTracker2Config = config_lib.ONLINE_DEFAULT):
        super().__init__()
        self.cfg = cfg
        self.fnet = encoder.FeatureEncoder(cfg.latent_dim, cfg.stride)
        self.updateformer = layers.UpdateFormer(cfg)
        self.register_buffer("time_emb", cotracker3_correlation.sincos_time_embedding(
            cfg.input_dim, cfg.window_len))
        self.register_buffer("pos_emb", layers.position_table(cfg.input_dim, cfg.feature_size))
        self.norm = nn.GroupNorm(1, cfg.latent_dim)
        self.track_feat_updater = nn.Sequential(nn.Linear(cfg.latent_dim, cfg.latent_dim),
                                                nn.GELU())
        self.vis_predictor = nn.Sequential(nn.Linear(cfg.latent_dim, 1))

    def forward_window(self, fmaps: torch.Tensor, coords: torch.Tensor,
                       track_feat: torch.Tensor, vis: torch.Tensor, track_mask: torch.Tensor,
                       attention_mask: torch.Tensor, iters: int) -> Tuple[torch.Tensor,
                                                                          torch.Tensor]:
        """One window's refinement.

        Args:
            fmaps: (B, S, C, h, w) features of the window.
            coords: (B, S, N, 2) initial positions in feature pixels.
            track_feat: (B, S, N, C); vis: (B, S, N, 1) logits; track_mask: (B, S, N, 1)
                bool; attention_mask: (B, S, N) bool.

        Returns:
            final positions (B, S, N, 2) in working-resolution pixels, visibility logits
            (B, S, N).
        """
        cfg = self.cfg
        batch, frames, count, _ = coords.shape
        mask_vis = torch.cat([track_mask, vis], dim=-1).permute(0, 2, 1, 3).reshape(
            batch * count, frames, 2)
        levels = cotracker3_correlation.pyramid(fmaps, cfg.corr_levels)
        position = layers.sample_at(self.pos_emb.repeat(batch, 1, 1, 1), coords[:, 0])
        position = position.reshape(batch * count, 1, cfg.input_dim)
        space_mask = attention_mask.reshape(batch * frames, count)
        for _ in range(iters):
            corr = layers.correlation_windows(levels, track_feat, coords, cfg.corr_radius)
            flows = (coords - coords[:, :1]).permute(0, 2, 1, 3).reshape(batch * count, frames, 2)
            feats = track_feat.permute(0, 2, 1, 3).reshape(batch * count, frames, cfg.latent_dim)
            tokens = torch.cat([layers.flow_encoding(flows, cfg.flow_channels), corr, feats,
                                mask_vis], dim=2)
            tokens = tokens + position + self.time_emb
            delta = self.updateformer(tokens.view(batch, count, frames, -1), space_mask)
            coords = coords + delta[..., :2].permute(0, 2, 1, 3)
            update = self.track_feat_updater(
                self.norm(delta[..., 2:].reshape(-1, cfg.latent_dim)))
            feats = update + feats.reshape(-1, cfg.latent_dim)
            track_feat = feats.reshape(batch, count, frames, cfg.latent_dim).permute(0, 2, 1, 3)
        visibility = self.vis_predictor(track_feat).reshape(batch, frames, count)
        return coords * cfg.stride, visibility

    def online_step(self, video: torch.Tensor, queries: torch.Tensor, state: OnlineState,
                    iters: int = 4) -> Tuple[torch.Tensor, torch.Tensor]:
        """Tracks through the chunk `video` starting at frame `state.ind` (state advances).

        Args:
            video: (B, T, 3, H, W) float 0..255 at the working resolution, T <= window_len.
            queries: (B, N, 3) (frame, x, y) in working-resolution pixels.
            state: this video's `OnlineState` (a fresh one for the first chunk).

        Returns:
            the track history (B, L, N, 2) in working-resolution pixels and visibility
            probabilities (B, L, N).
        """
        cfg = self.cfg
        size, step = cfg.window_len, cfg.step
        batch, frames, channels, height, width = video.shape
        if frames > size:
            raise ValueError(f"online chunks have at most {size} frames, got {frames}")
        if height % cfg.stride or width % cfg.stride:
            raise ValueError(f"frames {height}x{width} are not a multiple of stride {cfg.stride}")
        count = queries.shape[1]
        device = queries.device
        ind = state.ind
        query_frames = queries[:, :, 0].long()
        query_xy = queries[..., 1:] / cfg.stride

        if state.coords is None:
            history = torch.zeros((batch, frames, count, 2), device=device)
            history_vis = torch.zeros((batch, frames, count), device=device)
        else:
            grow = min(step, frames - step)
            history = F.pad(state.coords, (0, 0, 0, 0, 0, grow))
            history_vis = F.pad(state.vis, (0, 0, 0, grow))

        scaled = 2 * (video / 255.0) - 1.0
        scaled = torch.cat([scaled, scaled[:, -1:].repeat(1, size - frames, 1, 1, 1)], dim=1)
        fmaps = self.fnet(scaled.reshape(-1, channels, height, width))
        fmaps = fmaps.reshape(batch, size, cfg.latent_dim, height // cfg.stride,
                              width // cfg.stride)

        where = torch.cat([(query_frames - ind)[..., None].to(query_xy.dtype), query_xy], -1)
        sampled = layers.sample_in_time(fmaps, where)[:, None].repeat(1, size, 1, 1)
        first_new = 0 if ind == 0 else ind + step
        is_new = ((query_frames >= first_new) & (query_frames < ind + size))[:, None, :, None]
        if state.track_feat is None:
            state.track_feat = torch.zeros_like(sampled)
        state.track_feat += sampled * is_new
        track_feat = state.track_feat.clone()

        coords = query_xy.reshape(batch, 1, count, 2).expand(batch, size, count, 2).float()
        vis = torch.full((batch, size, count, 1), INITIAL_VISIBILITY_LOGIT, device=device)
        overlap = size - step
        if ind > 0:
            carried = (query_frames < ind + overlap)[:, None, :, None]
            previous = F.pad(history[:, ind:ind + overlap] / cfg.stride, (0, 0, 0, 0, 0, step),
                             "replicate")
            previous_vis = F.pad(history_vis[:, ind:ind + overlap, :, None],
                                 (0, 0, 0, 0, 0, step), "replicate")
            coords = torch.where(carried.expand_as(coords), previous, coords)
            vis = torch.where(carried.expand_as(vis), previous_vis, vis)
        attention_mask = (query_frames < ind + size)[:, None, :].repeat(1, size, 1)
        frame_ids = torch.arange(ind, ind + size, device=device)
        track_mask = (query_frames[:, None, :, None] <= frame_ids[None, :, None, None])
        if ind > 0:
            track_mask[:, :overlap] = False

        positions, logits = self.forward_window(fmaps, coords, attention_mask[..., None] *
                                                track_feat, vis, track_mask, attention_mask,
                                                iters)
        history[:, ind:ind + size] = positions[:, :frames]
        history_vis[:, ind:ind + size] = logits[:, :frames]
        state.ind = ind + step
        state.coords, state.vis = history, history_vis
        return history, torch.sigmoid(history_vis)
