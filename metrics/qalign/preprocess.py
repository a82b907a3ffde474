"""Frame preprocessing of the official Q-Align scorer, from the snapshot's
preprocessor_config.json (CLIPImageProcessor settings):

  1. `expand2square`: pad to a square with the colour int(255 * image_mean) per
     channel, the image pasted at ((side - w) // 2, (side - h) // 2);
  2. resize (PIL, the configured resample: bicubic in the release) to size x size (the
     shortest edge of a square), then a centre crop of crop_size;
  3. x * rescale_factor computed in float64 then stored as float32, (x - mean) / std in
     float32, channels first; the scorer then casts to the model dtype.
"""

import dataclasses
import json
import pathlib
from typing import Sequence, Tuple

import numpy as np
from PIL import Image

CLIP_MEAN = (0.48145466, 0.4578275, 0.40821073)
CLIP_STD = (0.26862954, 0.26130258, 0.27577711)


@dataclasses.dataclass(frozen=True)
class Preprocess:
    size: int = 448
    crop_size: int = 448
    resample: int = 3  # PIL bicubic
    mean: Tuple[float, ...] = CLIP_MEAN
    std: Tuple[float, ...] = CLIP_STD
    rescale_factor: float = 1 / 255

    @property
    def pad_colour(self) -> Tuple[int, ...]:
        return tuple(int(x * 255) for x in self.mean)

    def frame(self, rgb: np.ndarray) -> np.ndarray:
        """uint8 (H, W, 3) RGB -> float32 (3, crop, crop)."""
        rgb = np.asarray(rgb)
        if rgb.ndim != 3 or rgb.shape[2] != 3 or rgb.dtype != np.uint8:
            raise ValueError(f"expected an RGB uint8 frame (H, W, 3), found {rgb.dtype} "
                             f"{rgb.shape}")
        image = _expand_to_square(Image.fromarray(rgb), self.pad_colour)
        image = image.resize((self.size, self.size), resample=self.resample)
        pixels = np.array(image)
        top = int((self.size - self.crop_size) / 2)
        pixels = pixels[top:top + self.crop_size, top:top + self.crop_size]
        scaled = (pixels * self.rescale_factor).astype(np.float32)
        mean, std = np.array(self.mean, np.float32), np.array(self.std, np.float32)
        return ((scaled - mean) / std).transpose(2, 0, 1)

    def frames(self, frames: Sequence[np.ndarray]) -> np.ndarray:
        return np.stack([self.frame(f) for f in frames])


def _expand_to_square(image: Image.Image, colour) -> Image.Image:
    width, height = image.size
    if width == height:
        return image
    side = max(width, height)
    square = Image.new(image.mode, (side, side), colour)
    square.paste(image, ((side - width) // 2, (side - height) // 2))
    return square


def _edge(value, name: str, path) -> int:
    if isinstance(value, int):
        return value
    if isinstance(value, dict) and len(value) == 1:
        edge = value.get("shortest_edge", value.get("height"))
        if isinstance(edge, int):
            return edge
    if isinstance(value, dict) and value.get("height") == value.get("width"):
        return int(value["height"])
    raise ValueError(f"{path}: expected {name} as one integer edge, found {value!r}")


def load(snapshot_dir) -> Preprocess:
    """The snapshot's settings; the official CLIP values where the file is absent."""
    path = pathlib.Path(snapshot_dir) / "preprocessor_config.json"
    if not path.is_file():
        return Preprocess()
    cfg = json.loads(path.read_text())
    for flag in ("do_resize", "do_center_crop", "do_normalize"):
        if cfg.get(flag, True) is not True:
            raise ValueError(f"{path}: {flag} is off; the official pipeline has it on")
    return Preprocess(size=_edge(cfg.get("size", 448), "size", path),
                      crop_size=_edge(cfg.get("crop_size", 448), "crop_size", path),
                      resample=int(cfg.get("resample", 3)),
                      mean=tuple(cfg.get("image_mean", CLIP_MEAN)),
                      std=tuple(cfg.get("image_std", CLIP_STD)),
                      rescale_factor=float(cfg.get("rescale_factor", 1 / 255)))
