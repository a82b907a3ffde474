"""SAM 2 image predictor: masks for pixel boxes, as the official `SAM2ImagePredictor`.

Official path (sam2/sam2_image_predictor.py + utils/transforms.py, the vendored
Grounded-SAM-2 copy named in tools/calibration/README.md), reproduced here around transformers' Sam2Model:
  * `set_image(np.uint8 HxWx3 RGB)`: ToTensor (/255), torchvision `Resize((1024, 1024))`
    on the float tensor (bilinear, antialias), ImageNet Normalize; the lowest-resolution
    feature map gets `no_mem_embed` added (transformers does the same).
  * `predict(box=boxes_xyxy, multimask_output=False)`: box / (W, H, W, H) * 1024, embedded
    as two corner points (labels 2, 3) plus a padding point; the mask decoder's
    single-mask output with the dynamic stability fallback (delta 0.05, threshold 0.98);
    low-resolution logits resized bilinearly (align_corners=False) to (H, W), mask = > 0.
    The hole/sprinkle post-processing is off in the image predictor (max areas 0).
"""

from typing import Tuple

import numpy as np
import torch
import torch.nn.functional as F

MEAN = (0.485, 0.456, 0.406)
STD = (0.229, 0.224, 0.225)


def check_image(image_rgb: np.ndarray, what: str = "image_rgb") -> None:
    """Raises ValueError unless `image_rgb` is np.uint8 (H, W, 3)."""
    if not (isinstance(image_rgb, np.ndarray) and image_rgb.dtype == np.uint8
            and image_rgb.ndim == 3 and image_rgb.shape[2] == 3):
        shape = getattr(image_rgb, "shape", None)
        raise ValueError(f"{what}: expected np.uint8 (H, W, 3) RGB, got "
                         f"{getattr(image_rgb, 'dtype', type(image_rgb))} {shape}")


def preprocess(image_rgb: np.ndarray, size: int) -> torch.Tensor:
    """(1, 3, size, size) float32: the official SAM2Transforms of one RGB frame."""
    check_image(image_rgb)
    x = torch.from_numpy(np.ascontiguousarray(image_rgb)).permute(2, 0, 1).float().div(255)
    x = F.interpolate(x[None], size=(size, size), mode="bilinear", align_corners=False,
                      antialias=True)
    mean = torch.tensor(MEAN).view(1, 3, 1, 1)
    std = torch.tensor(STD).view(1, 3, 1, 1)
    return (x - mean) / std


def boxes_to_model(boxes_xyxy: np.ndarray, hw: Tuple[int, int], size: int) -> torch.Tensor:
    """(1, N, 4) float32 box corners in the model's `size` x `size` frame."""
    boxes = np.asarray(boxes_xyxy)
    if boxes.ndim != 2 or boxes.shape[1] != 4:
        raise ValueError(f"boxes_xyxy: expected (N, 4) pixel x0, y0, x1, y1, got {boxes.shape}")
    coords = torch.as_tensor(boxes, dtype=torch.float32).reshape(-1, 2, 2).clone()
    coords[..., 0] = coords[..., 0] / hw[1]
    coords[..., 1] = coords[..., 1] / hw[0]
    return (coords * size).reshape(1, -1, 4)


def logits_to_masks(low_res: torch.Tensor, hw: Tuple[int, int]) -> np.ndarray:
    """(N, 1, h, w) mask logits -> (N, H, W) bool at the frame's size (bilinear, > 0)."""
    full = F.interpolate(low_res.float(), size=hw, mode="bilinear", align_corners=False)
    return (full > 0.0)[:, 0].cpu().numpy()


def predict_low_res(model, pixel_values: torch.Tensor, boxes: torch.Tensor
                    ) -> Tuple[torch.Tensor, torch.Tensor]:
    """(N, 1, 256, 256) low-resolution mask logits and (N, 1) IoU predictions."""
    device = next(model.parameters()).device
    with torch.no_grad():
        out = model(pixel_values=pixel_values.to(device), input_boxes=boxes.to(device),
                    multimask_output=False)
    return out.pred_masks[0].float(), out.iou_scores[0].float()
