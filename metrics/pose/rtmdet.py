"""RTMDet (CSPNeXt + CSPNeXt-PAFPN + RTMDetSepBNHead) box detection, loading mmdet 3.x
checkpoints unchanged.

Read in mmdet 3.2.0 (models/dense_heads/rtmdet_head.py RTMDetSepBNHead,
base_dense_head.py _predict_by_feat_single / _bbox_post_process, task_modules
MlvlPointGenerator(offset=0), DistancePointBBoxCoder) and written here:
  head    per level: stacked 3x3 ConvModules for cls and reg (the convs shared across
          levels, BatchNorms per level), 1x1 rtm_cls / rtm_reg; distances =
          exp(rtm_reg) * stride (`exp_on_reg`: mmdet 3.2.0's rtmdet_m config inherits
          True from rtmdet_l; later mmdet configs set False for -m), no objectness;
  decode  per level the sigmoid scores above score_thr, the nms_pre best (sorted
          descending), boxes = prior (x, y) -+ distances, clamped to the padded input and
          divided by the scale factor; boxes with a side <= min_bbox_size dropped; NMS at
          iou_threshold (mmcv nms: IoU > thr suppressed, areas without +1, one class);
          the first max_per_img.
Input as the test pipeline: BGR uint8 -> letterbox to 640 (metrics/pose/letterbox.py) ->
(x - mean) / std with the BGR mean/std (bgr_to_rgb False).
Defaults: rtmdet_m_640-8xb32_coco-person.py (one class, nms_pre 1000, score_thr 0.05,
NMS 0.6, 100 boxes).
"""

import dataclasses
from typing import List, Tuple

import numpy as np
import torch
from torch import nn
import torchvision

from metrics.pose import cspnext
from metrics.pose import letterbox
from metrics.pose import mm_checkpoint

MEAN_BGR = (103.53, 116.28, 123.675)
STD_BGR = (57.375, 57.12, 58.395)


@dataclasses.dataclass(frozen=True)
class RtmdetConfig:
    backbone: cspnext.CSPNeXtConfig = cspnext.CSPNeXtConfig()
    neck_out: int = 192
    neck_blocks: int = 2
    feat_channels: int = 192
    stacked_convs: int = 2
    num_classes: int = 1
    strides: Tuple[int, ...] = (8, 16, 32)
    exp_on_reg: bool = True
    input_size: Tuple[int, int] = (640, 640)
    nms_pre: int = 1000
    score_thr: float = 0.05
    iou_threshold: float = 0.6
    max_per_img: int = 100
    min_bbox_size: float = 0.0


class RTMDetSepBNHead(nn.Module):
    def __init__(self, config: RtmdetConfig):
        super().__init__()
        c = config
        self.strides, self.exp_on_reg = c.strides, c.exp_on_reg
        self.cls_convs, self.reg_convs = nn.ModuleList(), nn.ModuleList()
        self.rtm_cls, self.rtm_reg = nn.ModuleList(), nn.ModuleList()
        for _ in c.strides:
            chans = [c.neck_out] + [c.feat_channels] * c.stacked_convs
            self.cls_convs.append(nn.ModuleList(
                [cspnext.ConvModule(chans[i], chans[i + 1], 3, 1, 1)
                 for i in range(c.stacked_convs)]))
            self.reg_convs.append(nn.ModuleList(
                [cspnext.ConvModule(chans[i], chans[i + 1], 3, 1, 1)
                 for i in range(c.stacked_convs)]))
            self.rtm_cls.append(nn.Conv2d(c.feat_channels, c.num_classes, 1))
            self.rtm_reg.append(nn.Conv2d(c.feat_channels, 4, 1))
        for level in range(1, len(c.strides)):  # share_conv=True
            for i in range(c.stacked_convs):
                self.cls_convs[level][i].conv = self.cls_convs[0][i].conv
                self.reg_convs[level][i].conv = self.reg_convs[0][i].conv

    def forward(self, feats):
        scores, distances = [], []
        for level, (x, stride) in enumerate(zip(feats, self.strides)):
            cls, reg = x, x
            for layer in self.cls_convs[level]:
                cls = layer(cls)
            for layer in self.reg_convs[level]:
                reg = layer(reg)
            scores.append(self.rtm_cls[level](cls))
            reg = self.rtm_reg[level](reg)
            distances.append((reg.exp() if self.exp_on_reg else reg) * stride)
        return scores, distances


class RTMDet(nn.Module):
    """`backbone.*`, `neck.*`, `bbox_head.*`, as mmdet's RTMDet names them."""

    def __init__(self, config: RtmdetConfig):
        super().__init__()
        chans = config.backbone.stage_channels()
        self.backbone = cspnext.CSPNeXt(config.backbone)
        self.neck = cspnext.CSPNeXtPAFPN(chans[2:], config.neck_out, config.neck_blocks,
                                         config.backbone.expand_ratio)
        self.bbox_head = RTMDetSepBNHead(config)

    def forward(self, images):
        return self.bbox_head(self.neck(self.backbone(images)))


def _priors(height: int, width: int, stride: int, device) -> torch.Tensor:
    """(h * w, 2) point priors (x, y) = (col, row) * stride, row-major."""
    ys, xs = torch.meshgrid(torch.arange(height, device=device) * stride,
                            torch.arange(width, device=device) * stride, indexing="ij")
    return torch.stack([xs.reshape(-1), ys.reshape(-1)], -1).float()


def decode_one(config: RtmdetConfig, scores, distances, scale_factor
               ) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(boxes (N, 4) float32 in the image, scores (N,), labels (N,)) of one image's
    per-level head outputs ((C, h, w) logits and (4, h, w) distances)."""
    kept_boxes, kept_scores, kept_labels = [], [], []
    for score, dist, stride in zip(scores, distances, config.strides):
        h, w = score.shape[-2:]
        prob = score.permute(1, 2, 0).reshape(-1, config.num_classes).sigmoid()
        dist = dist.permute(1, 2, 0).reshape(-1, 4)
        priors = _priors(h, w, stride, score.device)
        valid = torch.nonzero(prob > config.score_thr)
        values, order = prob[prob > config.score_thr].sort(descending=True)
        top = valid[order[:min(config.nms_pre, len(valid))]]
        index, label = top.unbind(1)
        p, d = priors[index], dist[index]
        kept_boxes.append(torch.stack([p[:, 0] - d[:, 0], p[:, 1] - d[:, 1],
                                       p[:, 0] + d[:, 2], p[:, 1] + d[:, 3]], -1))
        kept_scores.append(values[:len(index)])
        kept_labels.append(label)
    boxes = letterbox.boxes_to_image(torch.cat(kept_boxes).cpu().numpy(),
                                     config.input_size[::-1], scale_factor)
    probs = torch.cat(kept_scores).cpu().numpy()
    labels = torch.cat(kept_labels).cpu().numpy()
    if config.min_bbox_size >= 0:
        keep = ((boxes[:, 2] - boxes[:, 0] > config.min_bbox_size)
                & (boxes[:, 3] - boxes[:, 1] > config.min_bbox_size))
        boxes, probs, labels = boxes[keep], probs[keep], labels[keep]
    if len(boxes) == 0:
        return boxes, probs, labels
    keep = torchvision.ops.batched_nms(torch.from_numpy(boxes), torch.from_numpy(probs),
                                       torch.from_numpy(labels),
                                       config.iou_threshold).numpy()[:config.max_per_img]
    return boxes[keep], probs[keep], labels[keep]


class Detector:
    """detect(frames_bgr (T, H, W, 3) uint8) -> per frame (boxes, scores, labels)."""

    def __init__(self, model: RTMDet, config: RtmdetConfig, device, batch_size: int = 8):
        self.model, self.config, self.device = model.eval(), config, torch.device(device)
        self.batch_size = batch_size
        self.mean = torch.tensor(MEAN_BGR, device=self.device).view(1, 3, 1, 1)
        self.std = torch.tensor(STD_BGR, device=self.device).view(1, 3, 1, 1)

    def detect(self, frames_bgr) -> List[Tuple[np.ndarray, np.ndarray, np.ndarray]]:
        out = []
        for start in range(0, len(frames_bgr), self.batch_size):
            boxed = [letterbox.letterbox(f, self.config.input_size)
                     for f in frames_bgr[start:start + self.batch_size]]
            batch = torch.from_numpy(np.stack([b[0] for b in boxed])).to(self.device)
            batch = (batch.permute(0, 3, 1, 2).float() - self.mean) / self.std
            with torch.no_grad():
                scores, distances = self.model(batch)
            for i, (_, factor) in enumerate(boxed):
                out.append(decode_one(self.config, [s[i].float() for s in scores],
                                      [d[i].float() for d in distances], factor))
        return out


def load_rtmdet(path, device: str = "cpu", config: RtmdetConfig = RtmdetConfig(),
                batch_size: int = 8) -> Detector:
    """The detector with the mmdet checkpoint at `path` (keys backbone/neck/bbox_head)."""
    model = RTMDet(config)
    mm_checkpoint.load_strict(model, mm_checkpoint.read_state_dict(path, "RTMDet"), path)
    return Detector(model.to(device), config, device, batch_size)
