"""SAM v1 box-prompted masks through the official `segment-anything` package (1.0).

Official call sequence (a motion-amplitude script's frame-0 masks, with the
Grounded-Segment-Anything copy of segment_anything, the same code as the package):

    sam_predictor = SamPredictor(sam_model_registry["vit_h"](checkpoint=path).to(device))
    sam_predictor.set_image(frame_rgb)                     # RGB uint8 (H, W, 3)
    boxes = sam_predictor.transform.apply_boxes_torch(boxes_xyxy, original_size)
    masks, _, _ = sam_predictor.predict_torch(point_coords=None, point_labels=None,
                                              boxes=boxes, multimask_output=False)

`masks_from_boxes` is exactly that (masks (N, 1, H, W) -> (N, H, W) bool, at the
frame's size whatever `original_size` says). The caller chooses `original_size`:
the official script passes `image.shape[:2]` of the GroundingDINO input tensor, (3, H')
(its bug; the benchmark's box module gives it, faithful or corrected). The model is the package's own builder and loader (`torch.load` of the
official `sam_vit_h_4b8939.pth`, `load_state_dict` strict); tests build the same Sam
with a tiny image encoder through the package's `_build_sam` and load it the same way.

Verified: tools/calibration/sam_v1_parity (our glue against the official call sequence
written out, same package; weaker than an independent implementation).
"""

import pathlib
from typing import Optional, Sequence, Tuple

import numpy as np
import torch
from segment_anything import SamPredictor
from segment_anything.build_sam import _build_sam  # pylint: disable=protected-access
from segment_anything import sam_model_registry

BACKEND_NAME = "sam-v1-vit-h"


def load_sam(checkpoint_path, model_type: str = "vit_h", device: str = "cpu",
             tiny_config: Optional[dict] = None) -> SamPredictor:
    """A SamPredictor on the official checkpoint file.

    Args:
        checkpoint_path: The official state-dict file (e.g. sam_vit_h_4b8939.pth).
        model_type: A key of the package's `sam_model_registry` (vit_h, vit_l, vit_b).
        device: torch device.
        tiny_config: Tests only: `_build_sam`'s image-encoder arguments
            (encoder_embed_dim, encoder_depth, encoder_num_heads,
            encoder_global_attn_indexes) in place of the registry's; same loading code.

    Raises:
        FileNotFoundError: The checkpoint does not exist.
        ValueError: Unknown model_type, or a file that is not a SAM state dict of it.
    """
    path = pathlib.Path(checkpoint_path)
    if not path.is_file():
        raise FileNotFoundError(f"SAM checkpoint {path} does not exist")
    if tiny_config is None and model_type not in sam_model_registry:
        raise ValueError(f"SAM model_type must be one of {sorted(sam_model_registry)}, "
                         f"got {model_type!r}")
    try:
        if tiny_config is None:
            sam = sam_model_registry[model_type](checkpoint=str(path))
        else:
            sam = _build_sam(checkpoint=str(path), **tiny_config)
    except (RuntimeError, KeyError, AttributeError) as err:
        raise ValueError(f"{path}: not a SAM {model_type} state dict "
                         f"({str(err).splitlines()[0][:300]})") from err
    return SamPredictor(sam.to(device))


def masks_from_boxes(predictor: SamPredictor, image_rgb: np.ndarray, boxes_xyxy: np.ndarray,
                     original_size: Sequence[int]) -> np.ndarray:
    """SAM masks for pixel boxes on one frame, as the official PAS call sequence computes them.

    Args:
        predictor: From load_sam.
        image_rgb: The frame, RGB uint8 (H, W, 3).
        boxes_xyxy: (N, 4) x0, y0, x1, y1 in the frame's pixels (float32, as the
            official tensor).
        original_size: What apply_boxes_torch is told the original size is (h, w).

    Returns:
        (N, H, W) bool masks; (0, H, W) without boxes (the official code then skips SAM).

    Raises:
        ValueError: A frame that is not RGB uint8 (H, W, 3), or boxes not (N, 4).
    """
    if image_rgb.dtype != np.uint8 or image_rgb.ndim != 3 or image_rgb.shape[2] != 3:
        raise ValueError(f"expected an RGB uint8 (H, W, 3) frame, got {image_rgb.dtype} "
                         f"{image_rgb.shape}")
    boxes = torch.as_tensor(np.asarray(boxes_xyxy), dtype=torch.float32)
    if boxes.ndim != 2 or boxes.shape[1] != 4:
        raise ValueError(f"expected (N, 4) x0 y0 x1 y1 boxes, got {tuple(boxes.shape)}")
    height, width = image_rgb.shape[:2]
    if boxes.shape[0] == 0:
        return np.zeros((0, height, width), dtype=np.bool_)
    predictor.set_image(image_rgb)
    transformed = predictor.transform.apply_boxes_torch(boxes, _pair(original_size))
    with torch.no_grad():
        masks, _, _ = predictor.predict_torch(point_coords=None, point_labels=None,
                                              boxes=transformed.to(predictor.device),
                                              multimask_output=False)
    return masks[:, 0].cpu().numpy().astype(np.bool_)


def _pair(size: Sequence[int]) -> Tuple[int, int]:
    if len(size) != 2:
        raise ValueError(f"original_size must be (h, w), got {size!r}")
    return int(size[0]), int(size[1])
