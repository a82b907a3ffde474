"""SAM 2 video predictor: propagate masks through frames, as the vendored official one.

Official path (sam2/sam2_video_predictor.py + utils/misc.py, the vendored Grounded-SAM-2
copy named in tools/calibration/README.md; an older predictor than sam2==1.1.0 on PyPI), reproduced around transformers'
Sam2VideoModel (its session keeps the memory bank; the steps that differ are ours):
  * frames: resized to 1024 x 1024 and ImageNet-normalised (`load_video_frames`; from an
    mp4 the resize is decord's there, PIL bilinear here, see `frames_to_model`; from a
    folder of frames, `load_video_frames_from_jpg_images`, it is PIL's default
    `Image.resize` filter, bicubic, then `/ 255.0` in float64: `frame_resize="bicubic"`);
  * `add_new_mask(s, obj_id, mask)`: the bool mask resized to 1024 (bilinear, antialias)
    and thresholded >= 0.5; the frame's output is the mask itself (`_use_mask_as_output`);
    its memory is encoded, as the official `propagate_in_video_preflight` does, from the
    consolidated 256 x 256 logits upsampled (bilinear) to 1024 and binarised (> 0), not
    from the 1024 mask that transformers' own session would encode;
  * `propagate_in_video(start_frame_idx=s, max_frame_num_to_track=n)`: frames
    s .. min(s + n, T - 1), every object in every frame;
  * `fill_hole_area=8` (build_sam2_video_predictor): on each frame's 256 x 256 logits,
    background components (logit <= 0, 8-connected) of area <= 8 become 0.1, after the
    memory is encoded (the cond frame's memory sees the filled logits, as the official);
  * output: logits resized bilinearly to the video size, mask = > 0.
"""

from typing import Dict, Iterator, List, Tuple

import cv2
import numpy as np
from PIL import Image
import torch
import torch.nn.functional as F

from metrics.segmentation import sam2_image

Masks = Dict[int, np.ndarray]


FRAME_RESIZE = {"bilinear": Image.BILINEAR, "bicubic": Image.BICUBIC}


def frames_to_model(frames_rgb: np.ndarray, size: int, resize: str = "bilinear"
                    ) -> torch.Tensor:
    """(T, 3, size, size) float32: each frame resized (PIL `resize`) and normalised.

    "bicubic" is the official folder loader exactly (`_load_img_as_tensor`: PIL's default
    filter on the RGB image, `/ 255.0` in float64 stored as float32, then `-= mean`,
    `/= std` in float32). "bilinear" stands in for the mp4 loader:

    The official loader asks decord (ffmpeg's swscale, in YUV) for size x size frames
    straight from the mp4; that is not reproducible from decoded RGB frames. Measured on
    the fixtures room written as mp4v at 832x480 and 1280x720 (decord 0.6.0): PIL bilinear
    is the closest of PIL/OpenCV/torch bilinear and bicubic, mean |diff| 1.07-1.13 and
    99th percentile 6 (of 255), max ~55 at edges; PIL bicubic 1.12-1.19.
    """
    frames = np.asarray(frames_rgb)
    if frames.dtype != np.uint8 or frames.ndim != 4 or frames.shape[3] != 3:
        raise ValueError(f"frames_rgb: expected np.uint8 (T, H, W, 3) RGB, got "
                         f"{frames.dtype} {frames.shape}")
    if resize not in FRAME_RESIZE:
        raise ValueError(f"resize: expected one of {', '.join(FRAME_RESIZE)}, got {resize!r}")
    resized = np.stack([np.asarray(Image.fromarray(f).resize((size, size), FRAME_RESIZE[resize]))
                        for f in frames])
    if resize == "bicubic":
        x = torch.from_numpy(resized / 255.0).permute(0, 3, 1, 2).float()
    else:
        x = torch.from_numpy(resized).permute(0, 3, 1, 2).float().div(255)
    mean = torch.tensor(sam2_image.MEAN).view(1, 3, 1, 1)
    std = torch.tensor(sam2_image.STD).view(1, 3, 1, 1)
    return (x - mean) / std


def mask_to_model(mask: np.ndarray, size: int) -> torch.Tensor:
    """(1, 1, size, size) float 0/1: `add_new_mask`'s resize of one bool mask."""
    x = torch.as_tensor(np.asarray(mask, dtype=bool))[None, None].float()
    if x.shape[-2:] != (size, size):
        x = F.interpolate(x, size=(size, size), mode="bilinear", align_corners=False,
                          antialias=True)
        x = (x >= 0.5).float()
    return x


def fill_holes(logits: torch.Tensor, max_area: int) -> torch.Tensor:
    """`fill_holes_in_mask_scores`: small 8-connected background components -> 0.1."""
    if max_area <= 0:
        return logits
    out = logits.clone()
    for i in range(logits.shape[0]):
        background = (logits[i, 0] <= 0).cpu().numpy().astype(np.uint8)
        count, labels, stats, _ = cv2.connectedComponentsWithStats(background, connectivity=8)
        small = [k for k in range(1, count) if stats[k, cv2.CC_STAT_AREA] <= max_area]
        if small:
            hole = torch.from_numpy(np.isin(labels, small)).to(logits.device)
            out[i, 0] = torch.where(hole, torch.tensor(0.1, dtype=logits.dtype,
                                                        device=logits.device), out[i, 0])
    return out


def _tracked_frames(frames: np.ndarray, start: int, max_frames: int, size: int,
                    resize: str) -> Dict[int, torch.Tensor]:
    """Every frame index of the video; only start .. min(start + max_frames, T - 1) resized.

    The official loader resizes the whole video once per `init_state`; only the tracked
    frames are read, so the others share one placeholder (never read) and a keyframe loop
    resizes each frame about once instead of once per keyframe.
    """
    end = min(start + max_frames, len(frames) - 1)
    resized = frames_to_model(frames[start:end + 1], size, resize)
    placeholder = torch.empty(0)
    return {i: resized[i - start] if start <= i <= end else placeholder
            for i in range(len(frames))}


def _condition(model, session, masks: Masks, start: int, size: int, max_area: int,
               binarize: bool) -> None:
    """Adds the masks on frame `start` and encodes its memory as the official preflight
    (which treats the mask as "from points": binarised for the memory encoder only when
    binarize_mask_from_pts_for_mem_enc, i.e. `binarize`)."""
    indices = []
    for obj_id, mask in masks.items():
        idx = session.obj_id_to_idx(obj_id)
        session.add_mask_inputs(idx, start, mask_to_model(mask, size))
        session.obj_with_new_inputs.append(obj_id)
        indices.append(idx)
    model(session, frame_idx=start, run_mem_encoder=False)
    stored = [session.output_dict_per_obj[i]["cond_frame_outputs"][start] for i in indices]
    low = fill_holes(torch.cat([s["pred_masks"] for s in stored]).float(), max_area)
    for i, out in enumerate(stored):
        out["pred_masks"] = low[i:i + 1].to(out["pred_masks"].dtype)
    high = F.interpolate(low, size=(size, size), mode="bilinear", align_corners=False)
    # pylint: disable=protected-access  (the official preflight's memory step, see docstring)
    model._batch_encode_memories(
        inference_session=session, frame_idx=start, objects_needing_memory_encoding=indices,
        high_res_masks_for_memory=[high[i:i + 1] for i in range(len(indices))],
        object_score_logits_for_memory=[s["object_score_logits"] for s in stored],
        is_mask_from_pts_per_obj=[binarize] * len(indices))


def propagate_logits(model, frames_rgb: np.ndarray, masks: Masks, start: int, max_frames: int,
                     max_area: int, device: str, frame_resize: str = "bilinear",
                     binarize: bool = True) -> Iterator[Tuple[int, List[int], torch.Tensor]]:
    """(frame, object ids, (N, 1, 256, 256) hole-filled logits) per tracked frame.

    A mask may have any 2-D shape: `add_new_mask` resizes it to the model size whatever
    its size (a first-frame mask drawn on a larger input image works officially too).
    """
    # pylint: disable=import-outside-toplevel
    from transformers.models.sam2_video.modeling_sam2_video import Sam2VideoInferenceSession
    frames = np.asarray(frames_rgb)
    size = model.config.image_size
    if not masks:
        raise ValueError("masks: at least one object mask is needed")
    for obj_id, mask in masks.items():
        if np.ndim(mask) != 2:
            raise ValueError(f"masks[{obj_id}]: expected a 2-D (H, W) mask (add_new_mask "
                             f"asserts it), got shape {np.shape(mask)}")
    if not 0 <= start < len(frames):
        raise ValueError(f"start_frame {start} outside the {len(frames)} frames")
    if max_frames < 0:
        raise ValueError(f"max_frames must be >= 0 (frames after start_frame), got {max_frames}")
    session = Sam2VideoInferenceSession(
        video_height=frames.shape[1], video_width=frames.shape[2], inference_device=device,
        inference_state_device=device, video_storage_device="cpu", dtype=torch.float32)
    session.processed_frames = _tracked_frames(frames, start, max_frames, size, frame_resize)
    with torch.inference_mode():
        _condition(model, session, masks, start, size, max_area, binarize)
        for out in model.propagate_in_video_iterator(session, start_frame_idx=start,
                                                     max_frame_num_to_track=max_frames):
            low = out.pred_masks.float()
            if out.frame_idx != start:
                low = fill_holes(low, max_area)
            yield out.frame_idx, list(out.object_ids), low
