"""human_action: is the action the file name names among UMT's confident top-5 Kinetics-400
classes (spec §5.2; Vchitect/VBench@45e79ec vbench/human_action.py:30-41, 76-104).

- The label comes from the video's FILE NAME, not the prompt (`label_of`): lowercased,
  cut at the first '-', after the last 'person is ', before the first '_'. So a prompt
  file (custom_input) changes nothing, and an action with a '-' in it would be cut there.
- The classes: VBench's own kinetics_400_categories.txt, lines "<name>\\t<index>", names
  lowercased (`categories`).
- The decision (`decision`): sigmoid of the 400 logits (the model side), torch.topk's 5
  (values, indices), each value rounded with Python's round(p, 4), kept when >= 0.85;
  the video is correct when a kept class name equals the label. The video value is the
  bool, `cor_num_per_video` 0 or 1; the aggregate is correct videos / videos.
- The model side (`compute`, `clip_tensor`): `load_video(path, data_transform,
  num_frames=16)` (utils.py:108-177): the 16 "middle" frames (utils.get_frame_indices;
  fewer than 16 frames: the last index repeated), uint8 RGB, through UMT's Compose
  (human_action.py:63-68; umt/functional.py:26-75, datasets/video_transforms.py:973-990,
  1127-1169, 1254-1277, volume_transforms.py:16-62):
    Resize(256, 'bilinear') on numpy frames: cv2.resize INTER_LINEAR to short side 256,
      the long side int(256 * long / short) (truncated; a square frame goes to 256 x 256);
      frames whose short side is already 256 are returned unchanged;
    CenterCrop(224): offsets int(round((side - 224) / 2)) (Python's round: half to even);
    ClipToTensor: (3, 16, 224, 224), the uint8 values widened to float32, then / 255 in
      float32;
    Normalize: ImageNet mean / std (float32 tensors), subtract then divide;
  batched to (1, 3, 16, 224, 224), UMT's logits (metrics/umt), the decision above.
  Difference: our frames are one OpenCV decode of the whole video (the pixels decord
  gives for these codecs), indexed after decoding (upstream decodes only those frames).
"""

import functools
import hashlib
import zipfile
from typing import Dict, List, Optional, Sequence, Tuple

import cv2
import numpy as np
import torch

from benchmarks.vbench import dimension
from benchmarks.vbench.dimensions import transforms
from benchmarks.vbench.suite import prompt_suite
from metrics.viclip import inputs as middle_frames

THRESHOLD = 0.85
TOP_K = 5
NUM_FRAMES = 16   # load_video(..., num_frames=16)
SHORT_SIDE = 256  # Resize(256)
CROP = 224        # CenterCrop((224, 224))
# VBench's own class list, read out of the pinned vbench 0.1.5 wheel (@vbench_wheel).
CATEGORIES_MEMBER = "vbench/third_party/umt/kinetics_400_categories.txt"
CATEGORIES_SHA256 = "903552632974b59d4d1beda96f7bb2829602bfeca1b3fdd5eb4bec3c5a12c1df"


def label_of(file_name: str) -> str:
    """The action a video's file name names (upstream splits the path on '/' first)."""
    return file_name.split("/")[-1].lower().split("-")[0].split("person is ")[-1].split("_")[0]


def categories(text: str) -> Dict[int, str]:
    """index -> lowercased class name from kinetics_400_categories.txt's text."""
    out = {}
    for line in text.splitlines():
        line = line.strip()
        if not line:
            raise ValueError("kinetics_400_categories.txt: an empty line (upstream's "
                             "split('\\t') would fail on it)")
        name, number = line.split("\t")
        out[int(number)] = name.lower()
    return out


def decision(top_values: Sequence[float], top_indices: Sequence[int],
             names: Dict[int, str], label: str) -> Tuple[bool, List[str]]:
    """(correct, the kept class names in top-k order) from torch.topk's 5 sigmoid values
    and their indices."""
    if len(top_values) != TOP_K or len(top_indices) != TOP_K:
        raise ValueError(f"expected the top {TOP_K} values and indices, got "
                         f"{len(top_values)} and {len(top_indices)}")
    kept = [names[int(i)] for p, i in zip(top_values, top_indices)
            if round(float(p), 4) >= THRESHOLD]
    return label in kept, kept


def value(top_values, top_indices, names: Dict[int, str], file_name: str) -> dimension.Value:
    correct, _ = decision(top_values, top_indices, names, label_of(file_name))
    return dimension.Value(video_results=correct, extras={"cor_num_per_video": int(correct)})


@functools.lru_cache(maxsize=1)
def official_categories() -> Dict[int, str]:
    """`categories` of kinetics_400_categories.txt in the pinned wheel (digest checked)."""
    wheel = prompt_suite.official_wheel()
    with zipfile.ZipFile(wheel) as archive:
        raw = archive.read(CATEGORIES_MEMBER)
    digest = hashlib.sha256(raw).hexdigest()
    if digest != CATEGORIES_SHA256:
        raise ValueError(f"{wheel}!{CATEGORIES_MEMBER}: sha256 {digest}, expected "
                         f"{CATEGORIES_SHA256}")
    names = categories(raw.decode("utf-8"))
    if sorted(names) != list(range(400)):
        raise ValueError(f"{CATEGORIES_MEMBER}: expected indices 0..399")
    return names


def resized_size(height: int, width: int) -> Tuple[int, int]:
    """(height, width) after Resize(256): the short side 256, the long one truncated."""
    if width < height:
        return int(SHORT_SIDE * height / width), SHORT_SIDE
    return SHORT_SIDE, int(SHORT_SIDE * width / height)


def crop_offsets(height: int, width: int) -> Tuple[int, int]:
    """CenterCrop(224)'s (top, left) on a (height, width) frame."""
    if height < CROP or width < CROP:
        raise ValueError(f"a {width}x{height} frame is smaller than the {CROP} crop")
    return int(round((height - CROP) / 2.0)), int(round((width - CROP) / 2.0))


def clip_tensor(frames: np.ndarray) -> torch.Tensor:
    """(3, T, 224, 224) float32: Resize(256), CenterCrop(224), ClipToTensor, Normalize of
    uint8 (T, H, W, 3) RGB frames (module doc)."""
    frames = transforms.checked(frames)
    height, width = frames.shape[1:3]
    if min(height, width) != SHORT_SIDE:  # upstream returns such frames unresized
        new_h, new_w = resized_size(height, width)
        frames = np.stack([cv2.resize(f, (new_w, new_h), interpolation=cv2.INTER_LINEAR)
                           for f in frames])
    top, left = crop_offsets(*frames.shape[1:3])
    crop = np.ascontiguousarray(frames[:, top:top + CROP, left:left + CROP])
    clip = torch.from_numpy(crop).permute(3, 0, 1, 2).float().div(255)
    mean = torch.tensor(transforms.IMAGENET_MEAN, dtype=torch.float32)[:, None, None, None]
    std = torch.tensor(transforms.IMAGENET_STD, dtype=torch.float32)[:, None, None, None]
    return clip.sub(mean).div(std)


def compute(video: dimension.Video, model: torch.nn.Module,
            names: Optional[Dict[int, str]] = None) -> dimension.Value:
    """human_action of one video: UMT on its 16 middle frames, the decision on the sigmoid
    top 5, the label from video.path's file name.

    Args:
        video: Every frame of the video (T >= 1).
        model: metrics.umt.loader.load_umt(<metrics.umt.pins.UMT_L16_K400>, device)[0]
            (eval; its device is used).
        names: index -> class name; None reads VBench's own list (official_categories).

    Raises:
        ValueError: Bad frames, or a model without 400 classes.
    """
    rgb = transforms.checked(video.rgb)
    names = official_categories() if names is None else names
    picked = rgb[middle_frames.middle_frame_indices(len(rgb), NUM_FRAMES)]
    device = next(model.parameters()).device
    with torch.no_grad():
        logits = model(clip_tensor(picked)[None].to(device))
    if logits.shape != (1, len(names)):
        raise ValueError(f"expected logits (1, {len(names)}), got {tuple(logits.shape)}")
    top_values, top_indices = torch.topk(torch.sigmoid(logits), TOP_K, dim=1)
    return value(top_values[0].tolist(), top_indices[0].tolist(), names, str(video.path))
