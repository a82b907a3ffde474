"""SAM 2.1 (Hiera-L by default) from the official checkpoint file, through transformers.

`load_sam2(path)` reads the official `sam2.1_hiera_large.pt` (with `config=HIERA_B_PLUS`,
`sam2.1_hiera_base_plus.pt`) unchanged
(`torch.load(path)["model"]`, the official key names), renames its tensors for
transformers 5.18 (`sam2_keys`) and builds one Sam2VideoModel plus a Sam2Model that
shares its tensors (the official image and video predictors read the same file).

Verified: key names and shapes against the official Hiera-L model (a committed list,
`sam2_keys_test`); the image and video predictors against the vendored official code on
identical random weights (tools/calibration/sam2_parity: image input bit-exact, logits
within 5e-7, every mask pixel equal; the boxes there all take the decoder's stability
fallback, and the video check fails with transformers' own conditioning-frame memory,
see sam2_video). Not verified: the real Hiera-L weights' outputs (no checkpoint here)
and the CUDA/bf16 path (no GPU). Differs from the official environment that runs it:
  * video frames: the official loader decodes the mp4 with decord and lets ffmpeg
    (swscale, in YUV) resize to 1024 x 1024; here the caller's decoded RGB frames are
    resized with PIL bilinear (`sam2_video.frames_to_model`), not bit-identical (mean
    |diff| ~1.1 of 255 against decord 0.6.0 on an mp4v clip, see frames_to_model);
  * hole filling: the official `fill_hole_area=8` runs only where the optional CUDA
    extension `sam2._C` was built (otherwise it warns and skips); here it always runs
    (OpenCV 8-connected components; `Sam2Architecture.fill_hole_area=0` turns it off);
  * precision: temporal_coherence_score.py enters `torch.autocast("cuda", bfloat16)`
    for the whole run; on CUDA this backend does the same (`bf16_autocast`), on the CPU it
    runs float32.
"""

import pathlib
from typing import Dict, List, Tuple

import numpy as np
import torch

from metrics.checkpoints import state_dict
from metrics.segmentation import sam2_config
from metrics.segmentation import sam2_image
from metrics.segmentation import sam2_keys
from metrics.segmentation import sam2_video

BACKEND_NAME = sam2_config.BACKEND_NAME
HIERA_L = sam2_config.HIERA_L
HIERA_B_PLUS = sam2_config.HIERA_B_PLUS
HIERA_B_PLUS_NO_POSTPROCESSING = sam2_config.HIERA_B_PLUS_NO_POSTPROCESSING


def read_official_checkpoint(path) -> Dict[str, torch.Tensor]:
    """The official file's state dict (`["model"]`).

    Raises:
        FileNotFoundError: No such file.
        ValueError: The file is not an official SAM 2 checkpoint.
    """
    path = pathlib.Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"SAM 2 checkpoint {path} does not exist (expected the "
                                "official sam2.1_hiera_large.pt or sam2.1_hiera_base_plus.pt)")
    content = state_dict.load(path)
    if not isinstance(content, dict) or not isinstance(content.get("model"), dict):
        raise ValueError(f"{path}: expected an official SAM 2 checkpoint, a dict with the "
                         f"state dict under 'model'; got keys {list(content)[:5]}")
    return content["model"]


class Sam2:
    """The two official predictors TCS uses, on one set of weights."""

    def __init__(self, image_model, video_model, config: sam2_config.Sam2Architecture,
                 device: str, bf16_autocast: bool):
        self.image_model, self.video_model = image_model, video_model
        self.config, self.device = config, device
        self.bf16_autocast = bf16_autocast and str(device).startswith("cuda")

    def _autocast(self):
        return torch.autocast("cuda", dtype=torch.bfloat16, enabled=self.bf16_autocast)

    def image_logits(self, image_rgb: np.ndarray, boxes_xyxy: np.ndarray
                     ) -> Tuple[torch.Tensor, torch.Tensor]:
        """Low-resolution mask logits (N, 1, 256, 256) and IoU predictions (N, 1)."""
        pixels = sam2_image.preprocess(image_rgb, self.config.image_size)
        boxes = sam2_image.boxes_to_model(boxes_xyxy, image_rgb.shape[:2],
                                          self.config.image_size)
        with self._autocast():
            return sam2_image.predict_low_res(self.image_model, pixels, boxes)

    def image_masks(self, image_rgb: np.ndarray, boxes_xyxy: np.ndarray) -> np.ndarray:
        """`SAM2ImagePredictor.set_image + predict(box=..., multimask_output=False)`.

        Returns:
            np.bool_ (N, H, W), one mask per box (N = 0 gives (0, H, W)).
        """
        sam2_image.check_image(image_rgb)
        if len(np.asarray(boxes_xyxy)) == 0:
            return np.zeros((0,) + image_rgb.shape[:2], dtype=bool)
        low_res, _ = self.image_logits(image_rgb, boxes_xyxy)
        return sam2_image.logits_to_masks(low_res, image_rgb.shape[:2])

    def propagate(self, frames_rgb: np.ndarray, masks: Dict[int, np.ndarray], start_frame: int,
                  max_frames: int, frame_resize: str = "bilinear"
                  ) -> List[Tuple[int, Dict[int, np.ndarray]]]:
        """`reset_state; add_new_mask` per object; `propagate_in_video(start, max_frames)`.

        `frame_resize`: "bilinear" for frames the official code decodes from an mp4,
        "bicubic" for a folder of frame images (sam2_video.frames_to_model).

        Returns:
            [(frame index, {object id: np.bool_ (H, W)})] for frames
            start_frame .. min(start_frame + max_frames, T - 1), every object in each.
        """
        hw = np.asarray(frames_rgb).shape[1:3]
        out = []
        with self._autocast():
            for frame, ids, logits in sam2_video.propagate_logits(
                    self.video_model, frames_rgb, masks, start_frame, max_frames,
                    self.config.fill_hole_area, self.device, frame_resize,
                    self.config.postprocessing):
                bools = sam2_image.logits_to_masks(logits, hw)
                out.append((frame, {obj: bools[i] for i, obj in enumerate(ids)}))
        return out


def load_sam2(checkpoint_path, device: str = "cpu",
              config: sam2_config.Sam2Architecture = HIERA_L,
              bf16_autocast: bool = True) -> Sam2:
    """Both predictors from an official SAM 2 checkpoint file (see the module docstring)."""
    # pylint: disable=import-outside-toplevel
    from transformers import Sam2Model, Sam2VideoModel
    state = {k: v.to(device) for k, v in
             sam2_keys.to_transformers(read_official_checkpoint(checkpoint_path)).items()}
    video = Sam2VideoModel(sam2_config.video_config(config)).to(device)
    _load_exactly(video, state, checkpoint_path)
    with torch.device("meta"):
        image = Sam2Model(sam2_config.image_config(config))
    shared = video.state_dict()
    image.load_state_dict({k: shared[k] for k in image.state_dict()}, strict=True, assign=True)
    return Sam2(image.eval(), video.eval(), config, device, bf16_autocast)


def _load_exactly(model, state, path) -> None:
    try:
        result = model.load_state_dict(state, strict=False)
    except RuntimeError as error:  # size mismatches
        raise ValueError(f"{path}: does not fit the configured SAM 2 architecture: "
                         f"{str(error)[:300]}") from error
    if result.missing_keys or result.unexpected_keys:
        raise ValueError(f"{path}: does not fit the configured SAM 2 architecture: missing "
                         f"{result.missing_keys[:5]}, unexpected {result.unexpected_keys[:5]}")
