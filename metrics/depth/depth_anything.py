"""Depth Anything V2 Small relative depth, as the official depth consistency sees it (spec §4.4).

The official code loads `depth-anything/Depth-Anything-V2-Small-hf` with transformers'
`AutoImageProcessor` and `AutoModelForDepthEstimation` (transformers >= 4.45, < 5) and
passes each frame as an RGB PIL image (`cv2.cvtColor(BGR2RGB)` of the 640 max-side
frame): `processor(images=pil, return_tensors="pt")`, then
`model(**inputs).predicted_depth.squeeze()`, kept at the model's output resolution.

In transformers 4.x, `AutoImageProcessor` without `use_fast` builds the processor
saved with the checkpoint, the slow (PIL + numpy) `DPTImageProcessor`; transformers 5
defaults to its torchvision backend instead, whose resize differs slightly. We ask
for `backend="pil"` (`DPTImageProcessorPil`), the 4.x slow processor's successor, and
keep every other setting from the snapshot's preprocessor_config.json (518, keep
aspect ratio, multiple of 14, bicubic, ImageNet mean/std).
"""

import pathlib
from typing import List, Sequence, Tuple

import cv2
import numpy as np
import torch
from PIL import Image
from transformers import AutoImageProcessor, AutoModelForDepthEstimation

from metrics import device as device_lib
from metrics.checkpoints import resolver

# Pinned: commit 5426e4f ("Change organization to depth-anything (#1)") is the head of main
# (https://huggingface.co/depth-anything/Depth-Anything-V2-Small-hf/tree/main; full id as
# independent pins record it); model.safetensors' LFS sha256 is the one the hub publishes
# (https://huggingface.co/depth-anything/Depth-Anything-V2-Small-hf/blob/main/
# model.safetensors, from 32d0394), 99,173,660 bytes.
DEPTH_ANYTHING_V2_SMALL = resolver.CheckpointSpec(
    name="depth_anything_v2_small",
    filename="model.safetensors",
    hf_repo="depth-anything/Depth-Anything-V2-Small-hf",
    hf_revision="5426e4f0f36572d16453bbda7a8389317b1bef99",
    snapshot=True,
    sha256="3152477ce0d8d6978d76b995120de97cb5b928701fd0f817769f59e249a16b70",
    size_bytes=99_173_660,
    license="Apache-2.0",
)

BACKEND_NAME = "depth-anything-v2-small"
PROCESSOR_BACKEND = "pil"
REQUIRED_FILES = ("config.json", "preprocessor_config.json")


def load_depth_anything(snapshot_dir, device) -> Tuple[torch.nn.Module, object]:
    """Loads the model and its image processor from a snapshot folder.

    Args:
        snapshot_dir: Folder with config.json, preprocessor_config.json and
            model.safetensors, e.g. `resolver.resolve(DEPTH_ANYTHING_V2_SMALL, ...).path`.
        device: torch.device or device string.

    Returns:
        (model, processor): the float32 model in eval mode on `device`, and the PIL
        backend image processor.

    Raises:
        FileNotFoundError: If the folder lacks one of REQUIRED_FILES.
    """
    folder = pathlib.Path(snapshot_dir)
    for name in REQUIRED_FILES:
        if not (folder / name).is_file():
            raise FileNotFoundError(f"{folder}: expected {name} in the snapshot folder, "
                                    "found nothing")
    processor = AutoImageProcessor.from_pretrained(str(folder), backend=PROCESSOR_BACKEND,
                                                   local_files_only=True)
    model = AutoModelForDepthEstimation.from_pretrained(str(folder), dtype=torch.float32,
                                                        local_files_only=True)
    return model.to(device).eval(), processor


def _rgb_image(frame) -> Image.Image:
    frame = np.asarray(frame)
    if frame.ndim != 3 or frame.shape[2] != 3 or frame.dtype != np.uint8:
        raise ValueError(f"expected HxWx3 uint8 BGR frames, got {frame.dtype} {frame.shape}")
    return Image.fromarray(cv2.cvtColor(frame, cv2.COLOR_BGR2RGB))


def depth_maps(model, processor, frames_bgr: Sequence[np.ndarray], device) -> List[torch.Tensor]:
    """Relative depth of each frame at the model's output resolution.

    Frames of one size share a single processor call and a single model call (the
    whole clip, normally); frames of another size get their own.

    Args:
        model, processor: From load_depth_anything.
        frames_bgr: BGR uint8 frames.
        device: Where the model is.

    Returns:
        One (H', W') float32 tensor on `device` per frame, in order: `predicted_depth`
        of the processed image (e.g. 294x518 for a 360x640 frame).
    """
    if len(frames_bgr) == 0:
        raise ValueError("expected at least one frame")
    images = [_rgb_image(frame) for frame in frames_bgr]
    groups = {}
    for position, image in enumerate(images):
        groups.setdefault(image.size, []).append(position)
    depths = [None] * len(images)
    for positions in groups.values():
        inputs = processor(images=[images[p] for p in positions], return_tensors="pt")
        inputs = {key: device_lib.to_device(value, device) for key, value in inputs.items()}
        with torch.no_grad():
            predicted = model(**inputs).predicted_depth
        for row, position in enumerate(positions):
            depths[position] = predicted[row]
    return depths
