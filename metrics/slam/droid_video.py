"""DROID-SLAM's depth video: the keyframe buffer the tracker's parts share
(princeton-vl/DROID-SLAM droid_slam/depth_video.py, monocular), written for worldeval.

Per keyframe slot: timestamp, world-to-camera pose `[7]` (identity at start), inverse depth
on the 1/8 grid (1.0 at start), sensor inverse depth (always 0 here: monocular, no depth
input), upsampled disparity, intrinsics already divided by 8, the matching features
`fmaps [1, C, h, w]` and the context features `nets`, `inps [D, h, w]`. On CUDA the three
feature buffers are float16 like the official ones; elsewhere float32.

Quirk kept (the official rm_keyframe): `copy_keyframe(ix)` moves slot ix + 1 into ix for
everything except the timestamp, so the surviving keyframe keeps the removed one's time.
The official `images` and `dirty` buffers only feed its viewer and are left out.
"""

import contextlib
from typing import Optional

import torch

from metrics.slam import ba as ba_lib
from metrics.slam import distance as distance_lib
from metrics.slam import droid_net
from metrics.slam import projective
from metrics.slam import se3

MIN_DISP = 0.001  # the official clamp after every BA call


class Amp:
    """Where the official loop runs under CUDA autocast (float16): on CUDA, as upstream;
    on any other device nothing is autocast and the features stay float32."""

    def __init__(self, device):
        self.enabled = torch.device(device).type == "cuda"
        self.feature_dtype = torch.float16 if self.enabled else torch.float32

    def autocast(self):
        if not self.enabled:
            return contextlib.nullcontext()
        return torch.autocast(device_type="cuda", enabled=True)


def _long(x, device):
    return torch.as_tensor(x, device=device).to(torch.long).reshape(-1)


class DepthVideo:
    """The shared buffer; `counter` is the number of slots in use."""

    def __init__(self, image_size, capacity: int, feature_dim: int, hidden_dim: int,
                 device="cpu", feature_dtype=torch.float32):
        ht, wd = int(image_size[0]), int(image_size[1])
        h8, w8 = ht // 8, wd // 8
        f32 = dict(device=device, dtype=torch.float32)
        self.device = torch.device(device)
        self.counter = 0
        self.ht, self.wd = ht, wd
        self.tstamp = torch.zeros(capacity, **f32)
        self.poses = se3.identity(capacity, dtype=torch.float32, device=device)
        self.disps = torch.ones(capacity, h8, w8, **f32)
        self.disps_sens = torch.zeros(capacity, h8, w8, **f32)
        self.disps_up = torch.zeros(capacity, ht, wd, **f32)
        self.intrinsics = torch.zeros(capacity, 4, **f32)
        feats = dict(device=device, dtype=feature_dtype)
        self.fmaps = torch.zeros(capacity, 1, feature_dim, h8, w8, **feats)
        self.nets = torch.zeros(capacity, hidden_dim, h8, w8, **feats)
        self.inps = torch.zeros(capacity, hidden_dim, h8, w8, **feats)

    def set(self, index, tstamp, pose=None, disp=None, intrinsics=None, fmap=None,
            net=None, inp=None):
        """The official __item_setter (no sensor depth): None leaves a field as it is."""
        if isinstance(index, int) and index >= self.counter:
            self.counter = index + 1
        self.tstamp[index] = torch.as_tensor(tstamp, dtype=torch.float32, device=self.device)
        for buf, value in ((self.poses, pose), (self.disps, disp),
                           (self.intrinsics, intrinsics), (self.fmaps, fmap),
                           (self.nets, net), (self.inps, inp)):
            if value is not None:
                buf[index] = value

    def append(self, tstamp, **fields):
        self.set(self.counter, tstamp, **fields)

    def copy_keyframe(self, ix: int) -> None:
        """Slot ix + 1 into slot ix, the timestamp excepted (official quirk)."""
        for buf in (self.poses, self.disps, self.disps_sens, self.intrinsics, self.nets,
                    self.inps, self.fmaps):
            buf[ix] = buf[ix + 1]

    def reproject(self, ii, jj):
        """(coords [1, E, h, w, 2], valid [1, E, h, w, 1]) of frames ii's pixels in jj."""
        ii, jj = _long(ii, self.device), _long(jj, self.device)
        return projective.projective_transform(self.poses[None], self.disps[None],
                                               self.intrinsics[None], ii, jj)

    def distance(self, ii, jj, beta: float, bidirectional: bool = True):
        """Frame distances of the pairs; bidirectional: the mean of both directions."""
        ii, jj = _long(ii, self.device), _long(jj, self.device)
        if not bidirectional:
            return distance_lib.frame_distance(self.poses, self.disps, self.intrinsics[0],
                                               ii, jj, beta)
        poses = self.poses[:self.counter].clone()
        d1 = distance_lib.frame_distance(poses, self.disps, self.intrinsics[0], ii, jj, beta)
        d2 = distance_lib.frame_distance(poses, self.disps, self.intrinsics[0], jj, ii, beta)
        return 0.5 * (d1 + d2)

    def ba(self, target, weight, eta, ii, jj, t0: int = 1, t1: Optional[int] = None,
           itrs: int = 2, lm: float = 1e-4, ep: float = 0.1, motion_only: bool = False):
        """Dense BA over poses [t0, t1) in place, then disparities clamped at 0.001."""
        if t1 is None:
            t1 = max(int(ii.max()), int(jj.max())) + 1
        ba_lib.ba(self.poses, self.disps, self.intrinsics[0], self.disps_sens, target, weight,
                  eta, ii, jj, t0, t1, itrs, lm, ep, motion_only=motion_only)
        self.disps.clamp_(min=MIN_DISP)

    def normalize(self) -> None:
        """Mean disparity of the used slots to 1, translations scaled to match."""
        n = self.counter
        s = self.disps[:n].mean()
        self.disps[:n] /= s
        self.poses[:n, :3] *= s

    def upsample(self, ix, mask) -> None:
        """disps_up of frames ix from their convex-upsampling masks [1, U, 576, h, w]."""
        up = droid_net.upsample_disparity(self.disps[ix][None], mask.to(self.disps.dtype))
        self.disps_up[ix] = up[0]
