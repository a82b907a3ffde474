"""Online grid tracking with CoTracker2, as co-tracker's `CoTrackerOnlinePredictor(v2=True)`.

    tracker(video_chunk=video, is_first_step=True, grid_size=10)   # -> (None, None)
    for ind in range(0, T - tracker.step, tracker.step):
        tracks, visible = tracker(video_chunk=video[:, ind:ind + 2 * tracker.step])

The first call only resets the state and sets the queries: a g x g grid over the
working frame (margin W/64; CoTracker3's `grid_points`) at `grid_query_frame`, or given
(t, x, y) video-pixel queries scaled by (511 / (W - 1), 383 / (H - 1)). Each later call
resizes its chunk to the working resolution (bilinear, align_corners=True), runs one
online window with 6 refinement rounds, and returns the WHOLE history so far scaled back
by ((W - 1) / 511, (H - 1) / 383), with visibility = sigmoid(logit) > `visible_above`.

The visibility cut is 0.6 in today's co-tracker main (commit 876e094, 2024-12-17, "fixed
predictor for cotracker2"); before it (CoTracker 2.0 from 2023-12, as of mid-2024) it
was 0.9. Positions are the same in both versions. The support grid option is not offered.
"""

from typing import Optional, Tuple

import torch
from torch import nn
import torch.nn.functional as F

from metrics.tracking.cotracker2 import model as model_lib
from metrics.tracking.cotracker3 import predictor as cotracker3_predictor

ITERATIONS = 6
VISIBLE_ABOVE = 0.6  # today's main; 0.9 before 2024-12-17
LEGACY_VISIBLE_ABOVE = 0.9


class CoTracker2OnlinePredictor(nn.Module):
    """The official online predictor's procedure around our `CoTracker2` network."""

    def __init__(self, network: model_lib.CoTracker2, visible_above: float = VISIBLE_ABOVE):
        super().__init__()
        self.model = network
        self.interp_shape = network.cfg.model_resolution
        self.step = network.cfg.step
        self.visible_above = visible_above
        self.queries: Optional[torch.Tensor] = None
        self.state = model_lib.OnlineState()

    @property
    def device(self) -> torch.device:
        return next(self.model.parameters()).device

    def _scale(self, width: int, height: int, inverse: bool, like: torch.Tensor) -> torch.Tensor:
        work_h, work_w = self.interp_shape
        if inverse:
            return like.new_tensor([(work_w - 1) / (width - 1), (work_h - 1) / (height - 1)])
        return like.new_tensor([(width - 1) / (work_w - 1), (height - 1) / (work_h - 1)])

    @torch.no_grad()
    def forward(self, video_chunk: torch.Tensor, is_first_step: bool = False,
                queries: Optional[torch.Tensor] = None, grid_size: int = 5,
                grid_query_frame: int = 0) -> Tuple[Optional[torch.Tensor],
                                                    Optional[torch.Tensor]]:
        """See the module docstring; video_chunk is (B, T, 3, H, W) float 0..255."""
        batch, frames, channels, height, width = video_chunk.shape
        if is_first_step:
            self.state = model_lib.OnlineState()
            if queries is not None:
                if queries.ndim != 3 or queries.shape[-1] != 3:
                    raise ValueError(f"queries must be (B, N, 3), got {tuple(queries.shape)}")
                queries = queries.clone()
                queries[:, :, 1:] *= self._scale(width, height, True, queries)
            elif grid_size > 0:
                points = cotracker3_predictor.grid_points(grid_size, self.interp_shape,
                                                          video_chunk.device)
                queries = torch.cat([torch.ones_like(points[:, :, :1]) * grid_query_frame,
                                     points], dim=2)
            else:
                raise ValueError("give queries or a positive grid_size")
            self.queries = queries
            return None, None
        if self.queries is None:
            raise RuntimeError("call with is_first_step=True first")
        resized = F.interpolate(video_chunk.reshape(batch * frames, channels, height, width),
                                tuple(self.interp_shape), mode="bilinear", align_corners=True)
        resized = resized.reshape(batch, frames, channels, *self.interp_shape)
        tracks, visibility = self.model.online_step(resized, self.queries, self.state,
                                                    ITERATIONS)
        return tracks * self._scale(width, height, False, tracks), visibility > self.visible_above
