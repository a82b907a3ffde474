"""DROID-SLAM's motion filter: which frames enter the depth video
(princeton-vl/DROID-SLAM droid_slam/motion_filter.py), written for worldeval.

Every frame goes through the feature encoder. The first frame is always added (identity
pose, disparity 1). Each later frame is correlated with the last added one at zero
motion, the update operator runs once without motion features, and the frame is added
when the mean norm of the predicted flow revision `delta` (1/8-grid pixels) is above
`thresh`; its context features are computed only then.

Quirk kept: for the FIRST frame the official code stores `net[0, 0]` and `inp[0, 0]`
(the first channel of a [1, D, h, w] map) into the video's [D, h, w] slots, so every
channel of keyframe 0's GRU state and context in the video is that first channel; the
filter's own state keeps the full maps. Later frames store the full maps.
"""

import torch

from metrics.slam import corr as corr_lib
from metrics.slam import droid_net
from metrics.slam import projective


def normalize_images(image, device):
    """[K, 3, H, W] BGR uint8 -> [1, K, 3, H, W] RGB, ImageNet-normalised floats."""
    x = image[None, :, [2, 1, 0]].to(device) / 255.0
    mean = torch.as_tensor(droid_net.IMAGENET_MEAN, device=device)[:, None, None]
    std = torch.as_tensor(droid_net.IMAGENET_STD, device=device)[:, None, None]
    return (x - mean) / std


class MotionFilter:
    """Feeds the depth video; `track` returns True when the frame was added."""

    def __init__(self, net: droid_net.DroidNet, video, thresh: float, amp):
        self.net_module, self.video, self.thresh, self.amp = net, video, thresh, amp
        self.hidden = net.config.hidden_dim
        self.net = self.inp = self.fmap = None
        self.last_flow = None  # mean |delta| of the last test (None for the first frame)

    def _context(self, inputs):
        with self.amp.autocast():
            net, inp = self.net_module.cnet(inputs[:, [0]]).split([self.hidden] * 2, dim=2)
            return net.tanh().squeeze(0), inp.relu().squeeze(0)

    @torch.no_grad()
    def track(self, tstamp, image, intrinsics) -> bool:
        """image [1, 3, H, W] BGR uint8, intrinsics (fx, fy, cx, cy) of that frame."""
        inputs = normalize_images(image, self.video.device)
        with self.amp.autocast():
            gmap = self.net_module.fnet(inputs).squeeze(0)
        intr8 = torch.as_tensor(intrinsics, dtype=torch.float32, device=self.video.device) / 8.0
        if self.video.counter == 0:
            net, inp = self._context(inputs)
            self.net, self.inp, self.fmap = net, inp, gmap
            self.video.append(tstamp, disp=1.0, intrinsics=intr8, fmap=gmap,
                              net=net[0, 0], inp=inp[0, 0])
            return True
        ht, wd = image.shape[-2] // 8, image.shape[-1] // 8
        coords0 = projective.coords_grid(ht, wd, device=self.video.device)[None, None]
        with self.amp.autocast():
            corr = corr_lib.CorrBlock(self.fmap[None, [0]], gmap[None, [0]])(coords0)
            _, delta, _ = self.net_module.update(self.net[None], self.inp[None], corr)
        self.last_flow = delta.float().norm(dim=-1).mean().item()
        if self.last_flow <= self.thresh:
            return False
        net, inp = self._context(inputs)
        self.net, self.inp, self.fmap = net, inp, gmap
        self.video.append(tstamp, intrinsics=intr8, fmap=gmap, net=net[0], inp=inp[0])
        return True
