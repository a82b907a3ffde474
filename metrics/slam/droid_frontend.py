"""DROID-SLAM's frontend (local BA while tracking) and global backend
(princeton-vl/DROID-SLAM droid_slam/droid_frontend.py, droid_backend.py; monocular),
written for worldeval.

Frontend, called after every motion-filter step:

* when the video first holds `warmup` keyframes: neighbourhood edges (radius
  `init_neighborhood_radius`), `init_iters[0]` updates with t0 = 1, proximity edges over
  all keyframes (rad `init_proximity_rad`, nms `init_proximity_nms`, the frontend
  threshold, beta `init_proximity_beta`: the official call leaves beta at its default
  0.25, not the run's beta), `init_iters[1]` updates, the next slot's pose = the last
  keyframe's and its disparity = the mean of the last 4, and the edges with i < warmup - 4
  go to the inactive set;
* then for each new keyframe: edges older than `frontend_max_age` become inactive, new
  proximity edges over the last 5 rows and the last `frontend_window` columns (with
  removal past the factor limit), `frontend_iters[0]` updates (with inactive edges),
  and if keyframes t1 - 3 and t1 - 2 are closer than `keyframe_thresh` (bidirectional
  distance), keyframe t1 - 2 is removed, else `frontend_iters[1]` more updates; the next
  slot's pose = the last keyframe's, disparity = the mean of the last keyframe's.

Backend call (terminate runs it twice): mean disparity normalised to 1 (mono, no sensor
depth), a fresh graph (alt correlation, at most `backend_factors_per_keyframe` x t
factors) with proximity edges over all keyframes, `update_lowmem(steps)`, edges cleared.

`args` has the official argument names (warmup, beta, keyframe_thresh, frontend_thresh,
frontend_window, frontend_radius, frontend_nms, backend_thresh, backend_radius,
backend_nms, upsample); `internals` the constant names above and the graph's `consts`.
"""

import torch

from metrics.slam import droid_factor_graph


class Frontend:
    """The official DroidFrontend over a DepthVideo."""

    def __init__(self, net, video, args, internals, amp):
        self.video, self.args, self.internals = video, args, internals
        self.graph = droid_factor_graph.FactorGraph(
            video, net.update, internals, amp, max_factors=internals.frontend_max_factors,
            upsample=args.upsample)
        self.t0 = self.t1 = 0
        self.is_initialized = False
        self.removed = []  # tstamp slots (indices) removed as too close, in order

    def _initialize(self):
        a, k = self.args, self.internals
        self.t0, self.t1 = 0, self.video.counter
        self.graph.add_neighborhood_factors(self.t0, self.t1, r=k.init_neighborhood_radius)
        for _ in range(k.init_iters[0]):
            self.graph.update(1, use_inactive=True)
        self.graph.add_proximity_factors(0, 0, rad=k.init_proximity_rad, nms=k.init_proximity_nms,
                                         thresh=a.frontend_thresh, beta=k.init_proximity_beta)
        for _ in range(k.init_iters[1]):
            self.graph.update(1, use_inactive=True)
        v, t1 = self.video, self.t1
        v.poses[t1] = v.poses[t1 - 1].clone()
        v.disps[t1] = v.disps[t1 - 4:t1].mean()  # official slice (warmup >= 4)
        self.is_initialized = True
        self.graph.rm_factors(self.graph.ii < a.warmup - 4, store=True)

    def _update(self):
        a, k, v, g = self.args, self.internals, self.video, self.graph
        self.t1 += 1
        if g.corr is not None:
            g.rm_factors(g.age > k.frontend_max_age, store=True)
        g.add_proximity_factors(self.t1 - 5, max(self.t1 - a.frontend_window, 0),
                                rad=a.frontend_radius, nms=a.frontend_nms,
                                thresh=a.frontend_thresh, beta=a.beta, remove=True)
        for _ in range(k.frontend_iters[0]):
            g.update(None, None, use_inactive=True)
        d = v.distance([self.t1 - 3], [self.t1 - 2], beta=a.beta, bidirectional=True)
        if d.item() < a.keyframe_thresh:
            g.rm_keyframe(self.t1 - 2)
            self.removed.append(self.t1 - 2)
            v.counter -= 1
            self.t1 -= 1
        else:
            for _ in range(k.frontend_iters[1]):
                g.update(None, None, use_inactive=True)
        v.poses[self.t1] = v.poses[self.t1 - 1]
        v.disps[self.t1] = v.disps[self.t1 - 1].mean()

    @torch.no_grad()
    def __call__(self):
        if not self.is_initialized and self.video.counter == self.args.warmup:
            self._initialize()
        elif self.is_initialized and self.t1 < self.video.counter:
            self._update()


@torch.no_grad()
def backend(net, video, args, internals, amp, steps: int):
    """One global-backend call; returns update_lowmem's (coords1, valid, target)."""
    t = video.counter
    if not bool(torch.any(video.disps_sens)):
        video.normalize()
    graph = droid_factor_graph.FactorGraph(
        video, net.update, internals, amp, corr_impl="alt",
        max_factors=internals.backend_factors_per_keyframe * t, upsample=args.upsample)
    graph.add_proximity_factors(rad=args.backend_radius, nms=args.backend_nms,
                                thresh=args.backend_thresh, beta=args.beta)
    out = graph.update_lowmem(steps=steps)
    graph.clear_edges()
    return out
