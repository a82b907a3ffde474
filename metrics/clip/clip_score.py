"""CLIPScore as torchmetrics computes it: `max(100 * cos(E_image, E_text), 0)`.

torchmetrics' `CLIPScore(model_name_or_path=...)` loads transformers' `CLIPModel` and
`CLIPProcessor` from the hub folder and, per update (`_clip_score_update`):

    inputs = processor(text=[text], images=[image], return_tensors="pt", padding=True)
    img = model.get_image_features(inputs["pixel_values"]);   img /= ||img||
    ids, mask = inputs["input_ids"], inputs["attention_mask"], cut to the text tower's
        max_position_embeddings (77) when longer (torchmetrics warns and truncates)
    txt = model.get_text_features(ids, mask);                  txt /= ||txt||
    score = 100 * (img * txt).sum(-1)

and `compute` returns `max(score / n, 0)`; called once per image (`metric(img, text)`)
this is the image's own score clamped at 0. The image is a (3, H, W) uint8 tensor,
preprocessed by the snapshot's CLIPProcessor (the installed transformers' image
processor: resize, centre crop, normalise). In transformers 5 the feature getters return
an output object whose `pooler_output` holds the projected features.
"""

import dataclasses
from typing import Sequence

import torch
from transformers import CLIPModel
from transformers import CLIPProcessor

from metrics import device as device_lib
from metrics.checkpoints import resolver

CLIP_VIT_B16 = resolver.CheckpointSpec(
    name="clip_vit_base_patch16",
    filename="config.json",
    hf_repo="openai/clip-vit-base-patch16",
    snapshot=True,
    license="MIT",
)


@dataclasses.dataclass
class ClipScoreModel:
    model: CLIPModel
    processor: CLIPProcessor
    device: torch.device


def load_clip_score(folder, device) -> ClipScoreModel:
    """CLIPModel and CLIPProcessor from a hub snapshot folder, as torchmetrics loads them.

    Raises:
        ValueError: The folder is not a CLIP snapshot with its processor files.
    """
    try:
        model = CLIPModel.from_pretrained(str(folder)).to(device).eval()
        processor = CLIPProcessor.from_pretrained(str(folder))
    except (OSError, KeyError) as e:
        raise ValueError(f"{folder}: not a CLIP snapshot with its processor ({e})") from e
    return ClipScoreModel(model, processor, torch.device(device))


def _features(output) -> torch.Tensor:
    features = output if torch.is_tensor(output) else output.pooler_output
    return features / features.norm(p=2, dim=-1, keepdim=True)


def _check(image: torch.Tensor) -> None:
    if image.ndim != 3 or image.dtype != torch.uint8:
        raise ValueError(f"expected a (3, H, W) uint8 image, got {tuple(image.shape)} "
                         f"{image.dtype}")


def image_features(clip: ClipScoreModel, images: Sequence[torch.Tensor]) -> torch.Tensor:
    """(N, D) unit-length features of (3, H, W) uint8 images: one processor call and one
    model call (each image through the tower alone: as many calls give the same rows up
    to float rounding)."""
    for image in images:
        _check(image)
    pixels = clip.processor(images=[image.cpu() for image in images],
                            return_tensors="pt")["pixel_values"]
    with torch.no_grad():
        return _features(clip.model.get_image_features(device_lib.to_device(pixels, clip.device)))


def text_features(clip: ClipScoreModel, text: str) -> torch.Tensor:
    """(1, D) unit-length features of one text, cut to the tower's 77 positions."""
    inputs = clip.processor(text=[text], return_tensors="pt", padding=True)
    limit = clip.model.config.text_config.max_position_embeddings
    ids, mask = inputs["input_ids"][..., :limit], inputs["attention_mask"][..., :limit]
    with torch.no_grad():
        return _features(clip.model.get_text_features(ids.to(clip.device),
                                                      mask.to(clip.device)))


def raw_score(clip: ClipScoreModel, image: torch.Tensor, text: str, features=None) -> float:
    """100 * cos(image, text), before the clamp at 0. `image`: (3, H, W) uint8;
    `features`: its image_features row when computed elsewhere (shared calls)."""
    _check(image)
    img = image_features(clip, [image]) if features is None else torch.as_tensor(
        features).reshape(1, -1)
    txt = text_features(clip, text)
    return float(100 * (img.to(txt) * txt).sum(dim=-1)[0])


def clip_score(clip: ClipScoreModel, image: torch.Tensor, text: str, features=None) -> float:
    """torchmetrics CLIPScore of one image and its text: max(100 cos, 0)."""
    return max(raw_score(clip, image, text, features), 0.0)
