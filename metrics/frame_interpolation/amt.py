"""AMT-S frame interpolation (MCG-NKU/AMT, networks/AMT-S.py with cfgs/AMT-S.yaml:
corr_radius 3, corr_lvls 4, num_flows 3), written for worldeval, with the official
parameter names so that `amt-s.pth` (HF lalala125/AMT) loads unchanged, strictly.

The checkpoint is the official trainer's save: a dict whose 'state_dict' entry is the
model's state dict (upstream scripts load `ckpt['state_dict']`; other entries such as
'epoch' or 'optim' are ignored).

Eval-time forward, `model(img0, img1, embt, scale_factor=s, eval=True)["imgt_pred"]`:

1. Both images [B, 3, H, W] in [0, 1] lose their joint mean (one scalar per sample); H, W
   must be multiples of 16 / s (smoothness.pad_divisor) and, times s, at least MIN_SIDE
   (128; ValueError where upstream returns NaN or fails).
2. If s != 1 the centred images are bilinearly resized by s for the encoders; all flows
   are computed at that size.
3. A RAFT small encoder gives 1/8 correlation features (bidirectional correlation pyramid,
   4 levels, radius 3); a 4-level image pyramid (20, 32, 44, 56 channels) feeds decoders
   from 1/16 to 1/1, each coarse level refined by a correlation lookup at the flows scaled
   to t->1 (flow1 / t) and t->0 (flow0 / (1 - t)) followed by a residual update.
4. The last decoder gives 3 flow pairs, blend masks and residuals; with s != 1 they are
   resized by 1 / s (flows also multiplied by 1 / s) back to H x W.
5. Each pair warps the full-size centred images, blends them by its mask and adds back the
   mean and its residual; the 3 candidates' mean plus a small conv net's correction
   (comb_block) is the prediction, clamped to [0, 1].

Only the eval output is produced (training's flow/feature lists are not).
"""

import os
from typing import Dict

import torch
from torch import nn

from metrics.checkpoints import state_dict as state_dict_lib
from metrics.frame_interpolation import amt_blocks as blocks

CORR_RADIUS = 3
CORR_LEVELS = 4
NUM_FLOWS = 3
CHANNELS = (20, 32, 44, 56)
SKIP_CHANNELS = 20
FEATURE_DIM = 84
# The coarsest correlation level (1/64) needs 2 px: upstream gives NaN at 1 px, fails at 0.
MIN_SIDE = 128


class AmtS(nn.Module):
    """AMT-S; see the module docstring for the forward."""

    def __init__(self):
        super().__init__()
        c = CHANNELS
        self.feat_encoder = blocks.SmallEncoder(FEATURE_DIM)
        self.encoder = blocks.Encoder(c)
        self.decoder4 = blocks.InitDecoder(c[3], c[2], SKIP_CHANNELS)
        self.decoder3 = blocks.IntermediateDecoder(c[2], c[1], SKIP_CHANNELS)
        self.decoder2 = blocks.IntermediateDecoder(c[1], c[0], SKIP_CHANNELS)
        self.decoder1 = blocks.MultiFlowDecoder(c[0], SKIP_CHANNELS, NUM_FLOWS)
        self.update4 = blocks.SmallUpdateBlock(c[2], None, CORR_LEVELS, CORR_RADIUS)
        self.update3 = blocks.SmallUpdateBlock(c[1], 2, CORR_LEVELS, CORR_RADIUS)
        self.update2 = blocks.SmallUpdateBlock(c[0], 4, CORR_LEVELS, CORR_RADIUS)
        self.comb_block = nn.Sequential(nn.Conv2d(3 * NUM_FLOWS, 6 * NUM_FLOWS, 3, 1, 1),
                                        nn.PReLU(6 * NUM_FLOWS),
                                        nn.Conv2d(6 * NUM_FLOWS, 3, 3, 1, 1))

    @staticmethod
    def _lookup(corr_fn, grid, flow0, flow1, embt, downsample):
        """Correlation at the flows (brought to 1/8) scaled to t->1 and t->0; (corr, flow)."""
        if downsample != 1:
            flow0 = blocks.resize(flow0, 1 / downsample) / downsample
            flow1 = blocks.resize(flow1, 1 / downsample) / downsample
        forward, backward = corr_fn(grid + flow1 * (1. / embt), grid + flow0 * (1. / (1. - embt)))
        return torch.cat([forward, backward], 1), torch.cat([flow0, flow1], 1)

    @staticmethod
    def _refine(update, feature, flow0, flow1, corr, flow):
        delta_feature, delta_flow = update(feature, flow, corr)
        delta0, delta1 = torch.chunk(delta_flow, 2, 1)
        return feature + delta_feature, flow0 + delta0, flow1 + delta1

    def _combine(self, img0, img1, flow0, flow1, mask, residual, mean):
        batch, _, height, width = flow0.shape
        n = NUM_FLOWS
        flow0 = flow0.reshape(batch * n, 2, height, width)
        flow1 = flow1.reshape(batch * n, 2, height, width)
        warped0 = blocks.warp(img0.repeat_interleave(n, 0), flow0)
        warped1 = blocks.warp(img1.repeat_interleave(n, 0), flow1)
        mask = mask.reshape(batch * n, 1, height, width)
        candidates = (mask * warped0 + (1 - mask) * warped1 + mean.repeat_interleave(n, 0)
                      + residual.reshape(batch * n, 3, height, width))
        candidates = candidates.reshape(batch, n, 3, height, width)
        return candidates.mean(1) + self.comb_block(candidates.view(batch, 3 * n, height, width))

    def forward(self, img0: torch.Tensor, img1: torch.Tensor, embt: torch.Tensor,
                scale_factor: float = 1.0,
                eval: bool = True) -> Dict[str, torch.Tensor]:  # pylint: disable=redefined-builtin
        """{"imgt_pred": [B, 3, H, W] in [0, 1]}, the frame at time embt ([B, 1, 1, 1])."""
        if not eval:
            raise ValueError("only the eval forward (eval=True) is implemented")
        mean = torch.cat([img0, img1], 2).mean(1, keepdim=True).mean(2, keepdim=True).mean(
            3, keepdim=True)
        img0, img1 = img0 - mean, img1 - mean
        small0 = blocks.resize(img0, scale_factor) if scale_factor != 1.0 else img0
        small1 = blocks.resize(img1, scale_factor) if scale_factor != 1.0 else img1
        batch, _, height, width = small0.shape
        if min(height, width) // 8 // 8 < 2:
            raise ValueError(f"AMT-S needs frames of at least {MIN_SIDE} px at scale "
                             f"{scale_factor} (got {height} x {width} after the scale): its "
                             "coarsest correlation level would be under 2 px (upstream: NaN)")
        grid = blocks.pixel_grid(batch, height // 8, width // 8, img0.device)
        fmap0, fmap1 = self.feat_encoder([small0, small1])
        corr_fn = blocks.BidirCorrBlock(fmap0, fmap1, CORR_LEVELS, CORR_RADIUS)
        f0 = self.encoder(small0)
        f1 = self.encoder(small1)

        flow0, flow1, feature = self.decoder4(f0[3], f1[3], embt)
        corr, flow = self._lookup(corr_fn, grid, flow0, flow1, embt, 1)
        feature, flow0, flow1 = self._refine(self.update4, feature, flow0, flow1, corr, flow)
        for level, decoder, update, downsample in ((2, self.decoder3, self.update3, 2),
                                                   (1, self.decoder2, self.update2, 4)):
            flow0, flow1, feature = decoder(feature, f0[level], f1[level], flow0, flow1)
            corr, flow = self._lookup(corr_fn, grid, flow0, flow1, embt, downsample)
            feature, flow0, flow1 = self._refine(update, feature, flow0, flow1, corr, flow)
        flow0, flow1, mask, residual = self.decoder1(feature, f0[0], f1[0], flow0, flow1)

        if scale_factor != 1.0:
            up = 1.0 / scale_factor
            flow0 = blocks.resize(flow0, up) * up
            flow1 = blocks.resize(flow1, up) * up
            mask = blocks.resize(mask, up)
            residual = blocks.resize(residual, up)
        pred = self._combine(img0, img1, flow0, flow1, mask, residual, mean)
        return {"imgt_pred": torch.clamp(pred, 0, 1)}


def load_amt_s(checkpoint_path: os.PathLike, device) -> AmtS:
    """Loads the official `amt-s.pth` (its 'state_dict', strict=True), in eval mode.

    Raises:
        ValueError: Not a readable torch dict, no 'state_dict' entry, or keys/shapes that
            do not fit AMT-S; the message names the file.
    """
    checkpoint = state_dict_lib.read_state_dict(checkpoint_path)
    state = checkpoint.get("state_dict")
    if not isinstance(state, dict):
        raise ValueError(f"{checkpoint_path}: no 'state_dict' dict in the checkpoint (entries: "
                         f"{sorted(checkpoint)[:8]}); the official amt-s.pth has one")
    model = AmtS()
    try:
        model.load_state_dict(state, strict=True)
    except RuntimeError as e:
        raise ValueError(f"{checkpoint_path}: does not fit AMT-S: {e}") from e
    return model.to(device).eval()
