"""DROID-SLAM's trajectory filler: a pose for every frame after the global backend
(princeton-vl/DROID-SLAM droid_slam/trajectory_filler.py), written for worldeval.

The frames stream again in batches (`filler_batch`, the last one shorter). Each batch's
poses start from the SE3 interpolation between the bracketing keyframes
(metrics/slam/droid_fill.py: k0, k1, dt, elapsed), the batch is placed in the video
after the keyframes (disparity 1, features from the feature encoder only), a fresh graph
(volume correlation, no factor limit, no upsampling) gets the edges k0 -> frame and
k1 -> frame (the second set loses the duplicates when k1 == k0), and `filler_iters`
motion-only updates (poses of the batch only) refine them. The video's counter goes back
to the keyframes afterwards. Returns the world-to-camera poses of every frame.
"""

from typing import List, Sequence

import torch

from metrics.slam import droid_factor_graph
from metrics.slam import droid_fill
from metrics.slam import droid_motion_filter
from metrics.slam import se3


def _fill(net, video, internals, amp, tstamps, images, intrinsics):
    n, m = video.counter, len(tstamps)
    dev = video.device
    k0, k1, dt, elapsed = droid_fill.interpolation_plan(video.tstamp[:n].cpu().numpy(), tstamps)
    k0, k1 = torch.as_tensor(k0, device=dev), torch.as_tensor(k1, device=dev)
    dt, elapsed = torch.as_tensor(dt, device=dev), torch.as_tensor(elapsed, device=dev)
    poses = video.poses[:n]
    rel = se3.mul(poses[k1], se3.inv(poses[k0]))
    gs = se3.mul(se3.exp(se3.log(rel) / dt[:, None] * elapsed[:, None]), poses[k0])
    inputs = droid_motion_filter.normalize_images(torch.stack(images, 0)[:, 0], dev)
    with amp.autocast():
        fmap = net.fnet(inputs[0][:, None])
    intr8 = torch.stack([torch.as_tensor(k, dtype=torch.float32) for k in intrinsics]).to(dev) / 8.0
    video.counter += m
    video.set(slice(n, n + m), torch.as_tensor(tstamps, dtype=torch.float32), pose=gs, disp=1.0,
              intrinsics=intr8, fmap=fmap)
    graph = droid_factor_graph.FactorGraph(video, net.update, internals, amp)
    new = torch.arange(n, n + m, device=dev)
    graph.add_factors(k0, new)
    graph.add_factors(k1, new)
    for _ in range(internals.filler_iters):
        graph.update(n, n + m, motion_only=True)
    out = video.poses[n:n + m].clone()
    video.counter -= m
    return out


@torch.no_grad()
def fill(net, video, internals, amp, stream: Sequence) -> torch.Tensor:
    """[T, 7] world-to-camera poses of every (tstamp, image [1, 3, H, W], intrinsics)."""
    pieces: List[torch.Tensor] = []
    for batch in droid_fill.batches(list(stream), internals.filler_batch):
        tstamps, images, intrinsics = zip(*batch)
        pieces.append(_fill(net, video, internals, amp, list(tstamps), list(images),
                            list(intrinsics)))
    return torch.cat(pieces, 0)
