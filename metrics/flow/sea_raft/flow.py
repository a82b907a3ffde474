"""SEA-RAFT flow between two frames, the official inference path (`custom.py`
`calc_flow` / `forward_flow` @f41d0a7).

* Frames: RGB floats 0..255, one pair per call. The official callers decode with
  `cv2.imread` and convert BGR->RGB; here frames are uint8, BGR as metrics.video and
  cv2 decode them (default) or RGB (`channels="rgb"`). A JPEG decoded by PIL instead
  of OpenCV can differ by a grey level here and there.
* `F.interpolate(scale_factor=2**scale, bilinear, align_corners=False)` of both frames
  (spring-M: scale -1, a halving; an odd side loses a pixel: floor(H/2)).
* The network under `torch.amp.autocast(device_type="cuda")` (float16 convolutions on a
  GPU; the official call asks for CUDA autocast whatever the device, which torch
  disables with a warning on a CPU-only machine, so there it runs in float32: here
  autocast is on exactly when the model is on a CUDA device and `autocast` is True).
* The last flow, `F.interpolate(scale_factor=0.5**scale, bilinear, align_corners=False)
  * 0.5**scale`: for spring-M doubled in size and values. The result is
  2*floor(H/2) x 2*floor(W/2): one row/column short of the frame for odd sides, as in
  the official code.
"""

from typing import Tuple

import numpy as np
import torch
from torch.nn import functional as F

from metrics.flow.sea_raft import model as model_lib

BACKEND_NAME = "sea-raft"


CHANNELS = ("bgr", "rgb")


def to_rgb_tensor(frame: np.ndarray, device, channels: str = "bgr") -> torch.Tensor:
    """(H, W, 3) uint8 in `channels` order -> (1, 3, H, W) RGB float32 in [0, 255]."""
    if channels not in CHANNELS:
        raise ValueError(f"channels must be one of {CHANNELS}, got {channels!r}")
    frame = np.asarray(frame)
    if frame.dtype != np.uint8 or frame.ndim != 3 or frame.shape[-1] != 3:
        raise ValueError(f"expected an (H, W, 3) {channels.upper()} uint8 frame, got dtype "
                         f"{frame.dtype} and shape {frame.shape}")
    rgb = torch.from_numpy(np.ascontiguousarray(frame[..., ::-1] if channels == "bgr" else frame))
    return rgb.permute(2, 0, 1)[None].to(device=device, dtype=torch.float32)


def network_input(image: torch.Tensor, scale: int) -> torch.Tensor:
    """The frame as the network sees it: resized by 2**scale (bilinear, floor size)."""
    return F.interpolate(image, scale_factor=2 ** scale, mode="bilinear", align_corners=False)


def calc_flow(model: model_lib.SeaRaft, image1: torch.Tensor, image2: torch.Tensor,
              autocast: bool = True) -> torch.Tensor:
    """(N, 3, H, W) RGB [0, 255] floats -> (N, 2, H', W') flow 1 -> 2 at the frame scale."""
    scale = model.config.scale
    img1, img2 = network_input(image1, scale), network_input(image2, scale)
    on_cuda = img1.device.type == "cuda"
    with torch.no_grad(), torch.amp.autocast(device_type="cuda", enabled=autocast and on_cuda):
        flow = model(img1, img2)
    return F.interpolate(flow, scale_factor=0.5 ** scale, mode="bilinear",
                         align_corners=False) * (0.5 ** scale)


def output_size(height: int, width: int, scale: int) -> Tuple[int, int]:
    """The flow's size for a height x width frame (the two interpolations' floors)."""
    inner = (int(height * 2.0 ** scale), int(width * 2.0 ** scale))
    return int(inner[0] * 0.5 ** scale), int(inner[1] * 0.5 ** scale)


class SeaRaftFlow:
    """`flow(frame_a, frame_b) -> (H', W', 2)` float32 numpy, SEA-RAFT's official path.

    Frames are (H, W, 3) uint8, BGR unless `channels="rgb"`; channel 0 of the result is x (u), 1 is y (v): pixel
    (x, y) of frame_a moves to (x + u, y + v) in frame_b. (H', W') is `output_size`.

    Attributes:
        name: "sea-raft".
        official: True: the official network and inference path.
    """

    name = BACKEND_NAME
    official = True

    def __init__(self, model: model_lib.SeaRaft, autocast: bool = True, channels: str = "bgr"):
        if channels not in CHANNELS:
            raise ValueError(f"channels must be one of {CHANNELS}, got {channels!r}")
        self._model = model
        self._autocast = autocast
        self._channels = channels

    @property
    def device(self) -> torch.device:
        return next(self._model.parameters()).device

    def __call__(self, frame_a: np.ndarray, frame_b: np.ndarray) -> np.ndarray:
        frame_a, frame_b = np.asarray(frame_a), np.asarray(frame_b)
        if frame_a.shape != frame_b.shape:
            raise ValueError(f"frames of different shapes: {frame_a.shape} vs {frame_b.shape}")
        image1 = to_rgb_tensor(frame_a, self.device, self._channels)
        image2 = to_rgb_tensor(frame_b, self.device, self._channels)
        flow = calc_flow(self._model, image1, image2, self._autocast)
        return flow[0].permute(1, 2, 0).float().cpu().numpy()
