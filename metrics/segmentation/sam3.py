"""SAM-3 text-prompted detection, as the official `Sam3Processor` returns it.

The official revisit scoring (compute_ors.py) runs the facebookresearch/sam3 package:
`Sam3Processor(build_sam3_image_model())`, `set_confidence_threshold(0.0)`,
`set_image(pil)`, `set_text_prompt(prompt, state)`, then reads `state["masks"]` and
`state["scores"]`. We run the same weights (the Hugging Face repository facebook/sam3,
which ships the transformers conversion `model.safetensors` beside `sam3.pt`) through
transformers' `Sam3Model`, and reproduce the official code around it:

Verified by reading facebookresearch/sam3 (`sam3/model/sam3_image_processor.py`,
`sam3_image.py`, `geometry_encoders.py`, `tokenizer_ve.py`, `text_encoder_ve.py`,
`model_builder.py`) and transformers 5.18 (`models/sam3`):
- Image: uint8 RGB -> `v2.Resize((1008, 1008))` (bilinear, antialias) on the uint8
  tensor, on the model's device -> float32 / 255 -> Normalize(0.5, 0.5). We call the
  same torchvision v2 transforms; transformers' Sam3ImageProcessor is not used (it fuses
  rescale and normalise, and resizes on the CPU).
- Text: `[sot] + BPE(prompt) + [eot]`, truncated to 32 tokens keeping eot last, padded
  with token id 0; the CLIP text transformer runs with its causal mask only, and the
  prompt mask downstream is `token != 0` (id 0 is "!": upstream masks it too).
- Prompt: the official image model always runs its geometry encoder, even with no box,
  so the prompt is the 32 text tokens plus one image-conditioned CLS token.
  transformers' `Sam3Model.forward` skips the geometry encoder without boxes (32 tokens
  only); `_grounding` below reruns its sub-modules with the empty box set instead.
- Scores: `sigmoid(pred_logits) * sigmoid(presence_logit)`, kept when `> threshold`.
- Masks: the kept low-resolution mask logits are resized bilinearly
  (align_corners=False) to the frame's (H, W), then `sigmoid(.) > 0.5`.
- TF32: `sam3.model_builder` turns TF32 matmuls/convolutions on at import on GPUs of
  compute capability >= 8; we do the same, only while SAM-3 runs.
Inferred, not checked here: that transformers' sub-modules reproduce the original ones
numerically on the real weights (a third-party stage-by-stage comparison reports
pred_logits/pred_masks agreeing to cos 0.999999 once the geometry CLS is included),
and that the CLIP BPE of the snapshot's tokenizer equals the official SimpleTokenizer
(same vocabulary and split pattern; the official one also runs ftfy and HTML unescaping,
which change nothing for plain ASCII prompts).
"""

import contextlib
import dataclasses
import pathlib
from typing import List, Optional

import numpy as np
import torch
from torchvision.transforms import v2
from transformers import AutoTokenizer, Sam3Model

from metrics.segmentation.sam3_spec import BACKEND_NAME, SAM3  # noqa: F401  (re-exported)

REQUIRED_FILES = ("config.json", "tokenizer_config.json")
PAD_TOKEN_ID = 0          # SimpleTokenizer pads with zeros
MASK_PROBABILITY = 0.5    # state["masks"] = sigmoid(resized logits) > 0.5
_MASK_CHUNK = 16          # queries resized at once (bounds memory at full resolution)


@dataclasses.dataclass
class Sam3Detector:
    """A loaded SAM-3 and what the official processor needs around it."""

    model: Sam3Model
    tokenizer: object
    device: torch.device
    resolution: int       # square input size (1008 for facebook/sam3)
    context_length: int   # text tokens (32)


@dataclasses.dataclass(frozen=True)
class PromptFeatures:
    """A text prompt encoded once (it does not depend on the image)."""

    prompt: str
    input_ids: torch.Tensor   # (1, context_length), official layout
    features: torch.Tensor    # (1, context_length, hidden)
    mask: torch.Tensor        # (1, context_length) bool, True = token used


@dataclasses.dataclass(frozen=True)
class Detections:
    """One frame's kept queries: `state["scores"]` and `state["masks"]` of upstream."""

    scores: np.ndarray                 # (N,) float32
    mask_areas: np.ndarray             # (N,) int64, pixels of each binary mask
    width: int
    height: int
    masks: Optional[np.ndarray] = None  # (N, H, W) bool, when asked for


def load_sam3(snapshot_dir, device) -> Sam3Detector:
    """Loads the model (float32, eval) and its tokenizer from a snapshot folder.

    Args:
        snapshot_dir: Folder with config.json, model.safetensors and the tokenizer
            files, e.g. `resolver.resolve(SAM3, ...).path`.
        device: torch.device or device string.

    Raises:
        FileNotFoundError: If the folder lacks one of REQUIRED_FILES.
    """
    folder = pathlib.Path(snapshot_dir)
    for name in REQUIRED_FILES:
        if not (folder / name).is_file():
            raise FileNotFoundError(f"{folder}: expected {name} in the snapshot folder, "
                                    "found nothing")
    device = torch.device(device)
    tokenizer = AutoTokenizer.from_pretrained(str(folder), local_files_only=True)
    model = Sam3Model.from_pretrained(str(folder), dtype=torch.float32, local_files_only=True)
    model = model.to(device).eval()
    return Sam3Detector(model=model, tokenizer=tokenizer, device=device,
                        resolution=int(model.config.image_size),
                        context_length=int(model.config.text_config.max_position_embeddings))


@contextlib.contextmanager
def official_precision(device: torch.device):
    """TF32 on (compute capability >= 8) while SAM-3 runs, as sam3.model_builder sets it."""
    if device.type != "cuda" or torch.cuda.get_device_properties(device).major < 8:
        yield
        return
    saved = torch.backends.cuda.matmul.allow_tf32, torch.backends.cudnn.allow_tf32
    torch.backends.cuda.matmul.allow_tf32 = torch.backends.cudnn.allow_tf32 = True
    try:
        yield
    finally:
        torch.backends.cuda.matmul.allow_tf32, torch.backends.cudnn.allow_tf32 = saved


def token_ids(detector: Sam3Detector, prompt: str) -> List[int]:
    """SimpleTokenizer's layout: sot, BPE, eot; cut to the context keeping eot; 0-padded."""
    ids = list(detector.tokenizer(prompt, add_special_tokens=True)["input_ids"])
    if len(ids) > detector.context_length:
        ids = ids[:detector.context_length]
        ids[-1] = detector.tokenizer.eos_token_id
    return ids + [PAD_TOKEN_ID] * (detector.context_length - len(ids))


def encode_prompt(detector: Sam3Detector, prompt: str) -> PromptFeatures:
    """The text half of `set_text_prompt` (backbone.forward_text)."""
    input_ids = torch.tensor([token_ids(detector, prompt)], dtype=torch.long,
                             device=detector.device)
    with torch.inference_mode(), official_precision(detector.device):
        # No padding mask: upstream's text transformer sees only its causal mask.
        features = detector.model.get_text_features(input_ids=input_ids).pooler_output
    return PromptFeatures(prompt, input_ids, features, input_ids != PAD_TOKEN_ID)


def pixel_values(detector: Sam3Detector, frame_rgb: np.ndarray) -> torch.Tensor:
    """`Sam3Processor.set_image`'s transform of an (H, W, 3) uint8 RGB frame."""
    frame_rgb = np.asarray(frame_rgb)
    if frame_rgb.ndim != 3 or frame_rgb.shape[2] != 3 or frame_rgb.dtype != np.uint8:
        raise ValueError(f"expected an HxWx3 uint8 RGB frame, got {frame_rgb.dtype} "
                         f"{frame_rgb.shape}")
    transform = v2.Compose([
        v2.ToDtype(torch.uint8, scale=True),
        v2.Resize(size=(detector.resolution, detector.resolution)),
        v2.ToDtype(torch.float32, scale=True),
        v2.Normalize(mean=[0.5, 0.5, 0.5], std=[0.5, 0.5, 0.5]),
    ])
    image = v2.functional.to_image(np.ascontiguousarray(frame_rgb)).to(detector.device)
    return transform(image).unsqueeze(0)


def _grounding(model: Sam3Model, pixels: torch.Tensor, prompt: PromptFeatures):
    """(pred_logits (1, Q), presence_logits (1, 1), pred_masks (1, Q, h, w)).

    Sam3Model.forward's text-only path, except that the geometry encoder runs on an
    empty box set (upstream's `_get_dummy_prompt`), adding its CLS token to the prompt.
    """
    vision = model.vision_encoder(pixels)
    fpn = vision.fpn_hidden_states[:-1]
    fpn_pos = vision.fpn_position_encoding[:-1]
    batch = pixels.shape[0]
    geometry = model.geometry_encoder(
        box_embeddings=pixels.new_zeros(batch, 0, 4),
        box_mask=torch.zeros(batch, 0, dtype=torch.bool, device=pixels.device),
        box_labels=torch.zeros(batch, 0, dtype=torch.long, device=pixels.device),
        img_feats=fpn, img_pos_embeds=fpn_pos)
    features = torch.cat([prompt.features, geometry.last_hidden_state], dim=1)
    mask = torch.cat([prompt.mask, geometry.attention_mask], dim=1)
    encoder = model.detr_encoder(vision_features=[fpn[-1]], text_features=features,
                                 vision_pos_embeds=[fpn_pos[-1]], text_mask=mask)
    decoder = model.detr_decoder(
        vision_features=encoder.last_hidden_state, text_features=encoder.text_features,
        vision_pos_encoding=encoder.pos_embeds_flattened, text_mask=mask,
        spatial_shapes=encoder.spatial_shapes)
    logits = model.dot_product_scoring(
        decoder_hidden_states=decoder.intermediate_hidden_states,
        text_features=encoder.text_features, text_mask=mask).squeeze(-1)[-1]
    masks = model.mask_decoder(
        decoder_queries=decoder.intermediate_hidden_states[-1],
        backbone_features=list(fpn), encoder_hidden_states=encoder.last_hidden_state,
        prompt_features=features, prompt_mask=mask).pred_masks
    return logits, decoder.presence_logits[-1], masks


def mask_probabilities(mask_logits: torch.Tensor, height: int, width: int) -> torch.Tensor:
    """(N, h, w) logits -> (N, H, W): resize (bilinear), sigmoid (`state["masks_logits"]`)."""
    resized = torch.nn.functional.interpolate(mask_logits.unsqueeze(1), size=(height, width),
                                              mode="bilinear", align_corners=False)
    return resized.sigmoid()[:, 0]


def binary_masks(mask_logits: torch.Tensor, height: int, width: int) -> torch.Tensor:
    """(N, h, w) logits -> (N, H, W) bool: mask_probabilities > 0.5 (`state["masks"]`)."""
    return mask_probabilities(mask_logits, height, width) > MASK_PROBABILITY


def detect(detector: Sam3Detector, frame_rgb: np.ndarray, prompt: PromptFeatures,
           threshold: float = 0.0, return_masks: bool = False) -> Detections:
    """One frame through `set_image` + `set_text_prompt` at confidence `threshold`.

    Args:
        detector: From load_sam3.
        frame_rgb: (H, W, 3) uint8 RGB frame at its native resolution.
        prompt: From encode_prompt.
        threshold: Queries with score > threshold are kept (the official code: 0.0).
        return_masks: Also return the (N, H, W) binary masks (memory: N*H*W bytes).
    """
    height, width = np.asarray(frame_rgb).shape[:2]
    with torch.inference_mode(), official_precision(detector.device):
        logits, presence, mask_logits = _grounding(
            detector.model, pixel_values(detector, frame_rgb), prompt)
        probs = (logits.sigmoid() * presence.sigmoid())[0]
        keep = probs > threshold
        kept_logits = mask_logits[0][keep]
        areas, masks = [], []
        for chunk in torch.split(kept_logits, _MASK_CHUNK):
            binary = binary_masks(chunk, height, width)
            areas.append(binary.sum(dim=(1, 2)))
            if return_masks:
                masks.append(binary.cpu().numpy())
        scores = probs[keep].float().cpu().numpy()
    mask_areas = (torch.cat(areas).cpu().numpy().astype(np.int64) if areas
                  else np.zeros(0, np.int64))
    all_masks = None
    if return_masks:
        all_masks = np.concatenate(masks) if masks else np.zeros((0, height, width), bool)
    return Detections(scores, mask_areas, int(width), int(height), all_masks)
