"""Grid tracking with CoTracker3 offline, as co-tracker's `CoTrackerPredictor` does it.

`CoTrackerPredictor.forward(video, grid_size=g, grid_query_frame=q, backward_tracking=b,
segm_mask=m)` (its `_compute_sparse_tracks` path), step by step, all kept here:

1. The video is resized to the model resolution (bilinear, align_corners=True).
2. Queries: a g x g grid over the model frame with margin W/64 (torch.linspace), at frame
   q. With a mask, the mask is resized to the model frame by nearest neighbour and only
   points whose rounded (y, x) falls on a nonzero pixel are kept.
3. Quirk: a 6x6 support grid at frame 0 is appended ONLY when a mask is given (the
   official condition is `grid_size == 0 or segm_mask is not None`); it is tracked with
   the rest (and so changes the others' tracks through the transformer) and dropped.
4. One model call with 6 iterations. With backward tracking, a second call on the
   time-reversed clip (query frames t -> T - 1 - t) replaces positions and visibility at
   frames before each point's query frame.
5. Visibility = sigmoid(logit) > 0.9; the confidence output is NOT used (the online
   predictor multiplies them; this offline one does not).
6. Each point's position at its query frame is overwritten with the query point and its
   visibility set True; positions scale by (W - 1) / (512 - 1), (H - 1) / (384 - 1).

One difference in work, not in output: the backward call is skipped when no query frame
is after frame 0 (then it replaces nothing), which halves the cost of frame-0 grids.
"""

from typing import Optional, Tuple

import torch
import torch.nn.functional as F

SUPPORT_GRID_SIZE = 6
ITERATIONS = 6
VISIBLE_ABOVE = 0.9


def grid_points(size: int, extent: Tuple[int, int], device=None) -> torch.Tensor:
    """(1, size*size, 2) (x, y) row-major over an (H, W) extent, margin W/64 on every side."""
    height, width = extent
    if size == 1:
        return torch.tensor([width / 2, height / 2], device=device)[None, None]
    margin = width / 64
    ys = torch.linspace(margin, height - margin, size, device=device)
    xs = torch.linspace(margin, width - margin, size, device=device)
    grid_y, grid_x = torch.meshgrid(ys, xs, indexing="ij")
    return torch.stack([grid_x, grid_y], dim=-1).reshape(1, -1, 2)


def masked_grid(size: int, extent: Tuple[int, int], segm_mask: Optional[torch.Tensor],
                device=None) -> torch.Tensor:
    """grid_points kept where the (1, 1, H, W) mask, nearest-resized to extent, is nonzero."""
    points = grid_points(size, extent, device)
    if segm_mask is None:
        return points
    mask = segm_mask.to(torch.uint8) if segm_mask.dtype == torch.bool else segm_mask
    small = F.interpolate(mask, tuple(extent), mode="nearest")[0, 0]
    rows = points[0, :, 1].round().long().cpu()
    cols = points[0, :, 0].round().long().cpu()
    keep = small.cpu()[rows, cols].bool().to(points.device)
    return points[:, keep]


class CoTracker3Predictor:
    """A loaded CoTracker3 offline network and the official grid-tracking procedure."""

    def __init__(self, model: torch.nn.Module, model_resolution: Tuple[int, int]):
        self.model = model
        self.model_resolution = tuple(model_resolution)

    @property
    def device(self) -> torch.device:
        return next(self.model.parameters()).device

    def _run(self, video: torch.Tensor, queries: torch.Tensor):
        coords, visibility, _ = self.model(video, queries, iters=ITERATIONS)
        return coords, visibility

    @torch.no_grad()
    def track(self, video: torch.Tensor, grid_size: int, grid_query_frame: int = 0,
              backward_tracking: bool = False,
              segm_mask: Optional[torch.Tensor] = None) -> Tuple[torch.Tensor, torch.Tensor]:
        """Tracks a (masked) grid through a clip.

        Args:
            video: (1, T, 3, H, W) float32, values 0..255.
            grid_size: points per grid side (>= 1).
            grid_query_frame: the frame the grid is placed on (0 <= q < T).
            backward_tracking: also track backwards from the query frame.
            segm_mask: optional (1, 1, H, W) mask; grid points off it are dropped.

        Returns:
            tracks (1, T, N, 2) float32 (x, y) video pixels and visibility (1, T, N) bool.

        Raises:
            ValueError: on a badly shaped video or mask or an out-of-range argument.
        """
        self._check(video, grid_size, grid_query_frame, segm_mask)
        video = video.to(self.device, torch.float32)
        batch, frames, channels, height, width = video.shape
        work_h, work_w = self.model_resolution
        resized = F.interpolate(video.reshape(batch * frames, channels, height, width),
                                (work_h, work_w), mode="bilinear", align_corners=True)
        resized = resized.reshape(batch, frames, channels, work_h, work_w)

        points = masked_grid(grid_size, self.model_resolution, segm_mask, video.device)
        queries = torch.cat([torch.full_like(points[..., :1], float(grid_query_frame)), points],
                            dim=-1)
        count = queries.shape[1]
        if segm_mask is not None:
            support = grid_points(SUPPORT_GRID_SIZE, self.model_resolution, video.device)
            queries = torch.cat(
                [queries, torch.cat([torch.zeros_like(support[..., :1]), support], -1)], dim=1)

        coords, visibility = self._run(resized, queries)
        if backward_tracking and bool((queries[..., 0] > 0).any()):
            coords, visibility = self._merge_backward(resized, queries, coords, visibility)
        coords, visible = coords[:, :, :count], visibility[:, :, :count] > VISIBLE_ABOVE

        at = queries[0, :count, 0].long()
        points_index = torch.arange(count, device=coords.device)
        coords[0, at, points_index] = queries[0, :count, 1:]
        visible[0, at, points_index] = True
        scale = coords.new_tensor([(width - 1) / (work_w - 1), (height - 1) / (work_h - 1)])
        return coords * scale, visible

    def _merge_backward(self, resized, queries, coords, visibility):
        frames = resized.shape[1]
        reversed_queries = queries.clone()
        reversed_queries[..., 0] = frames - queries[..., 0] - 1
        back_coords, back_vis = self._run(resized.flip(1), reversed_queries)
        before = torch.arange(frames, device=queries.device)[None, :, None] < queries[:, None, :, 0]
        coords = torch.where(before[..., None], back_coords.flip(1), coords)
        visibility = torch.where(before, back_vis.flip(1), visibility)
        return coords, visibility

    def _check(self, video, grid_size, grid_query_frame, segm_mask):
        if not torch.is_tensor(video) or video.dim() != 5 or video.shape[0] != 1 \
                or video.shape[2] != 3:
            shape = tuple(video.shape) if torch.is_tensor(video) else type(video).__name__
            raise ValueError(f"expected a (1, T, 3, H, W) video tensor, got {shape}")
        if not video.is_floating_point():
            raise ValueError(f"expected a float video with values 0..255, got {video.dtype}")
        if int(grid_size) < 1:
            raise ValueError(f"expected grid_size >= 1, got {grid_size}")
        if not 0 <= int(grid_query_frame) < video.shape[1]:
            raise ValueError(f"grid_query_frame {grid_query_frame} is outside the clip's "
                             f"{video.shape[1]} frames")
        # Any mask size is accepted, as officially: it is resized to the model frame anyway.
        if segm_mask is not None and (not torch.is_tensor(segm_mask) or segm_mask.dim() != 4
                                      or tuple(segm_mask.shape[:2]) != (1, 1)):
            shape = tuple(segm_mask.shape) if torch.is_tensor(segm_mask) else type(segm_mask)
            raise ValueError(f"expected a (1, 1, H, W) mask tensor, got {shape}")
