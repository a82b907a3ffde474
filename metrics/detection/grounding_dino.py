"""GroundingDINO open-set detection, as IDEA-Research's official inference computes it.

Official code (the vendored Grounded-Segment-Anything/GroundingDINO named in
tools/calibration/README.md, and the `load_model` / `get_grounding_output` / `load_video`
of the motion-amplitude and temporal-coherence scripts that call it):

- model: `build_model(SLConfig(GroundingDINO_SwinB.py))`, BERT from a local
  bert-base-uncased folder, then `load_state_dict(clean_state_dict(torch.load(f)["model"]),
  strict=False)`. Here: transformers' `GroundingDinoForObjectDetection` with the same
  architecture (`grounding_dino_config.SWINB`, BERT's config from the same local folder),
  loaded from the unchanged official file through `grounding_dino_keys.to_transformers`.
  Official tensors we do not know are ignored as `strict=False` ignores them (listed in
  `GroundingDino.ignored_keys`); a transformers tensor the file does not provide is an
  error (the official model would keep a random value there).
- preprocessing: `RandomResize([800], max_size=1333)` (one size: the shorter side to 800,
  unless the longer would pass 1333, then the longer to int(round(1333 * short / long));
  the other side truncated, `int(size * long / short)`), torchvision `F.resize` of the PIL
  image (PIL bilinear), `ToTensor`, ImageNet `Normalize`.
- caption: `lower()`, `strip()`, "." appended unless it ends with one; tokenized by the
  local folder's tokenizer (`AutoTokenizer`), cut to `max_text_len` tokens; BERT's
  attention mask and position ids per phrase are the official ones
  (`grounding_dino_text.official_text_masks`; transformers' own differ at the delimiters), and so is the
  text position embedding (float32; transformers 5.18 truncates it to int64).
- post-processing: sigmoid of `pred_logits`; queries whose max over tokens is
  > box_threshold are kept with their `pred_boxes` (normalised cx, cy, w, h of the resized
  image, which is the original image's frame); the phrase of a kept query is
  `tokenizer.decode` of the caption's token ids where its sigmoid is > text_threshold
  (`get_phrases_from_posmap`). The official phrase also appends "(score)" to 4
  characters (`with_logits=True`); here the phrase is bare and the score (max sigmoid)
  is its own field.

Verified (tools/calibration/grounding_dino_parity): on random weights in the official
file format, the normalised input tensor, `pred_logits` and `pred_boxes`, and the kept
boxes/scores/phrases against the vendored official code run outside the repository
(CPU, its pure-PyTorch deformable attention); the full-size Swin-B key mapping against
the official model's key list (grounding_dino_keys_test). Swin-T OGC
(`grounding_dino_config.SWINT_OGC`, the same official code with GroundingDINO_SwinT_OGC.py):
its full-size key list (grounding_dino_keys_test), and once, outside the repository
(2026-12-01, not a parity-table row), a tiny random Swin-T (window 7, seed 0) against the
official code: pred_logits within 3.4e-5 (values up to 38), boxes within 1.8e-7, the same
46 kept queries and phrases. (With seed 3 a near-tie in the two-stage top-k query
selection moved every query slightly: 0.28 on logits, 1e-3 on boxes; Swin-B shows the same
on that seed.) Not compared: the real
checkpoint, and the CUDA deformable-attention op the official environment builds
(`groundingdino._C`; the same formula, float32, so differences of float rounding only).
transformers' multi-scale deformable attention is its pure-PyTorch path on CPU and GPU
here (no custom kernel is loaded).
"""

import dataclasses
import logging
import pathlib
from typing import List, Tuple

import numpy as np
import torch
from PIL import Image
from transformers import AutoTokenizer
from transformers import BertConfig
from transformers import GroundingDinoForObjectDetection
from transformers.models.grounding_dino import modeling_grounding_dino

from metrics.checkpoints import state_dict
from metrics.detection import grounding_dino_config
from metrics.detection import grounding_dino_keys
from metrics.detection import grounding_dino_text

BACKEND_NAME = "groundingdino-swinb"
SHORT_SIDE = 800
MAX_SIZE = 1333
IMAGENET_MEAN = (0.485, 0.456, 0.406)
IMAGENET_STD = (0.229, 0.224, 0.225)
# What the official model reads as its delimiter tokens, by name.
_SPECIAL_TOKENS = ("[CLS]", "[SEP]", ".", "?")


@dataclasses.dataclass
class Detections:
    """The kept queries of one image: boxes (N, 4) normalised cx, cy, w, h; scores (N,)."""

    boxes_cxcywh: np.ndarray
    scores: np.ndarray
    phrases: List[str]
    input_size: Tuple[int, int]  # (H', W') of the resized network input


def resized_size(width: int, height: int, size: int = SHORT_SIDE,
                 max_size: int = MAX_SIZE) -> Tuple[int, int]:
    """(h, w) that the official `resize(image, None, 800, 1333)` gives a width x height image."""
    short, long = float(min(width, height)), float(max(width, height))
    if long / short * size > max_size:
        size = int(round(max_size * short / long))
    if (width <= height and width == size) or (height <= width and height == size):
        return height, width
    if width < height:
        return int(size * height / width), size
    return size, int(size * width / height)


def preprocess(image_rgb: np.ndarray) -> torch.Tensor:
    """The official transform of an RGB uint8 (H, W, 3) frame: (3, H', W') float32.

    Raises:
        ValueError: The frame is not an (H, W, 3) uint8 array.
    """
    if image_rgb.dtype != np.uint8 or image_rgb.ndim != 3 or image_rgb.shape[2] != 3:
        raise ValueError(f"expected an RGB uint8 (H, W, 3) frame, got {image_rgb.dtype} "
                         f"{image_rgb.shape}")
    image = Image.fromarray(image_rgb)
    out_h, out_w = resized_size(*image.size)
    resized = image.resize((out_w, out_h), Image.BILINEAR)
    pixels = torch.from_numpy(np.array(resized)).permute(2, 0, 1).float().div(255)
    mean = torch.tensor(IMAGENET_MEAN).view(3, 1, 1)
    std = torch.tensor(IMAGENET_STD).view(3, 1, 1)
    return pixels.sub(mean).div(std)


def official_caption(caption: str) -> str:
    """`get_grounding_output`'s caption: lower case, stripped, ending with "."."""
    caption = caption.lower().strip()
    return caption if caption.endswith(".") else caption + "."


class GroundingDino:
    """A loaded GroundingDINO: `detect` one frame for one caption."""

    def __init__(self, model, tokenizer, arch, device, ignored_keys):
        self.model = model
        self.tokenizer = tokenizer
        self.arch = arch
        self.device = device
        self.ignored_keys = ignored_keys

    def tokenize(self, caption: str):
        """The caption's tokens as the official forward sees them (cut to max_text_len)."""
        tokens = self.tokenizer([caption], padding="longest", return_tensors="pt")
        n = self.arch.max_text_len
        return {k: tokens[k][:, :n].to(self.device)
                for k in ("input_ids", "attention_mask", "token_type_ids")}

    @torch.no_grad()
    def forward(self, pixels: torch.Tensor, caption: str) -> Tuple[torch.Tensor, torch.Tensor]:
        """(pred_logits (Q, max_text_len), pred_boxes (Q, 4)) for one preprocessed image."""
        with grounding_dino_text.official_text_in_transformers():
            outputs = self.model(pixel_values=pixels[None].to(self.device),
                                 **self.tokenize(caption))
        return outputs.logits[0].float().cpu(), outputs.pred_boxes[0].float().cpu()

    def detect(self, image_rgb: np.ndarray, caption: str, box_threshold: float,
               text_threshold: float) -> Detections:
        """The official `get_grounding_output` on one RGB uint8 frame."""
        caption = official_caption(caption)
        pixels = preprocess(image_rgb)
        logits, boxes = self.forward(pixels, caption)
        return self.postprocess(logits, boxes, caption, box_threshold, text_threshold,
                                tuple(pixels.shape[1:]))

    def postprocess(self, logits: torch.Tensor, boxes: torch.Tensor, caption: str,
                    box_threshold: float, text_threshold: float,
                    input_size: Tuple[int, int]) -> Detections:
        """get_grounding_output's filter and phrases on `forward`'s outputs."""
        probs = logits.sigmoid()
        keep = probs.max(dim=1).values > box_threshold
        kept = probs[keep]
        token_ids = self.tokenizer(caption)["input_ids"]
        phrases = [self.tokenizer.decode([token_ids[i] for i in
                                          (p > text_threshold).nonzero(as_tuple=True)[0].tolist()])
                   for p in kept]
        return Detections(boxes_cxcywh=boxes[keep].numpy().astype(np.float32),
                          scores=kept.max(dim=1).values.numpy().astype(np.float32),
                          phrases=phrases, input_size=input_size)


def _read_checkpoint(path: pathlib.Path):
    if not path.is_file():
        raise FileNotFoundError(f"GroundingDINO checkpoint {path} does not exist")
    # Tensors and plain containers only (the official code unpickles anything).
    raw = state_dict.load(path, unreadable="not a weights-only torch file (the official "
                                           "GroundingDINO checkpoint holds only tensors)")
    if not isinstance(raw, dict) or not isinstance(raw.get("model"), dict):
        raise ValueError(f"{path}: expected the official GroundingDINO file, a dict with a "
                         f"'model' state dict; got {type(raw).__name__} "
                         f"{sorted(raw)[:5] if isinstance(raw, dict) else ''}")
    return grounding_dino_keys.strip_module_prefix(raw["model"])


def _read_tokenizer(folder: pathlib.Path):
    for name in ("config.json", "vocab.txt"):
        if not (folder / name).is_file():
            raise FileNotFoundError(f"{folder}: expected a local bert-base-uncased folder "
                                    f"with {name}")
    tokenizer = AutoTokenizer.from_pretrained(str(folder))
    ids = tokenizer.convert_tokens_to_ids(list(_SPECIAL_TOKENS))
    if ids != list(modeling_grounding_dino.SPECIAL_TOKENS):
        raise ValueError(f"{folder}: token ids of {_SPECIAL_TOKENS} are {ids}; GroundingDINO "
                         f"needs bert-base-uncased's {modeling_grounding_dino.SPECIAL_TOKENS}")
    return tokenizer, BertConfig.from_pretrained(str(folder))


def load_grounding_dino(checkpoint_path, tokenizer_dir, device: str = "cpu",
                        config: grounding_dino_config.GroundingDinoArch =
                        grounding_dino_config.SWINB) -> GroundingDino:
    """GroundingDINO from the official checkpoint file and a local bert-base-uncased folder.

    Args:
        checkpoint_path: The official file (`torch.load(f)["model"]`, IDEA key names).
        tokenizer_dir: The local bert-base-uncased folder (config.json, vocab.txt); its
            weights are not read (the checkpoint's `bert.*` tensors replace them, as
            in the official load).
        device: torch device.
        config: The architecture (default: GroundingDINO_SwinB.py at full size).

    Raises:
        FileNotFoundError: A missing file, named.
        ValueError: The file is not an official GroundingDINO checkpoint of `config`.
    """
    checkpoint_path, tokenizer_dir = pathlib.Path(checkpoint_path), pathlib.Path(tokenizer_dir)
    official = _read_checkpoint(checkpoint_path)
    tokenizer, text_config = _read_tokenizer(tokenizer_dir)
    known, ignored = {}, []
    for key, tensor in official.items():
        try:
            grounding_dino_keys.to_transformers({key: tensor})
            known[key] = tensor
        except KeyError:
            ignored.append(key)
    if ignored:
        logging.warning("%s: %d tensors unknown to GroundingDINO ignored (as the official "
                        "strict=False load does): %s", checkpoint_path, len(ignored),
                        ignored[:5])
    state = grounding_dino_keys.to_transformers(known)
    model = GroundingDinoForObjectDetection(config.to_transformers(text_config))
    expected = model.state_dict()
    missing = sorted(set(expected) - set(state))
    wrong = [f"{k} {tuple(state[k].shape)} (expected {tuple(v.shape)})"
             for k, v in expected.items() if k in state and state[k].shape != v.shape]
    if missing or wrong:
        raise ValueError(f"{checkpoint_path}: not a GroundingDINO checkpoint of this "
                         f"architecture: {len(missing)} tensors missing {missing[:3]}, "
                         f"{len(wrong)} of another shape {wrong[:3]}")
    model.load_state_dict(state, strict=True)
    return GroundingDino(model.to(device).eval(), tokenizer, config, device, ignored)
