"""What one VBench dimension computes on one video, and how it travels in a sample row.

Every computed dimension is a module `benchmarks/vbench/dimensions/<dimension>.py`
(the image and text models; temporal_style and overall_consistency share
viclip_cosine.py, only their prompts differ) or `benchmarks/vbench/motion/<dimension>.py`
(frames and flow) with a `compute(video: Video, ...models) -> Value`: the official
per-video arithmetic (frame sampling, preprocessing, formula) on the frames the runner
decoded once. The runner's families (families.py) call it and store the value in the sample row
(`columns`/`diagnostics` below); results/aggregate.py folds the rows into the official
aggregate with the single-GPU semantics and results/official_files.py writes the
per-video dicts back.

A row carries, per dimension d:
  - column `d`: the official `video_results` (a bool as 1.0 / 0.0);
  - columns `d:num` and `d:den` where the single-GPU aggregate pools over videos
    (subject and background consistency: similarity sums and frame pairs;
    appearance_style: frame values and frames);
  - diagnostic `vbench_extras/d`: the official per-video dict's other keys (not
    video_path, not video_results) as JSON, e.g. background_consistency's video_sim and
    cnt_per_video, appearance_style's frame_results and cur_sim.
"""

import dataclasses
import json
import pathlib
from typing import Dict, Mapping, Optional, Tuple

import numpy as np

EXTRAS_KEY = "vbench_extras/"


@dataclasses.dataclass(frozen=True)
class Video:
    """One video as every dimension sees it.

    Attributes:
      rgb: uint8 (T, H, W, 3), every frame, RGB, native size (OpenCV's decode; the
        pixels decord gives for the official readers' codecs, see
        //tools/calibration:decode_parity_test).
      fps: the container's frame rate as cv2.CAP_PROP_FPS reports it.
      path: the video file (the official per-video dict's video_path).
      prompt: the entry's prompt_en (the text ViCLIP reads).
      auxiliary: the entry's auxiliary_info for the dimension being computed, as
        load_dimension_info hands it on (e.g. {"appearance_style": "oil painting"}),
        or None.
    """

    rgb: np.ndarray
    fps: float
    path: pathlib.Path
    prompt: str = ""
    auxiliary: Optional[Mapping[str, object]] = None

    def bgr(self) -> np.ndarray:
        """The frames as cv2 reads them (BGR): the official cv2-based dimensions' input."""
        return np.ascontiguousarray(self.rgb[..., ::-1])


@dataclasses.dataclass(frozen=True)
class Value:
    """One dimension of one video.

    Attributes:
      video_results: the official per-video value.
      extras: the official per-video dict's other keys, JSON-able, as upstream writes them.
      pooled: (numerator, denominator) where the single-GPU aggregate pools over videos.
    """

    video_results: float
    extras: Dict[str, object] = dataclasses.field(default_factory=dict)
    pooled: Optional[Tuple[float, float]] = None


def columns(dimension: str, value: Value) -> Dict[str, float]:
    """The row's columns of `value`."""
    out = {dimension: float(value.video_results)}
    if value.pooled is not None:
        out[f"{dimension}:num"] = float(value.pooled[0])
        out[f"{dimension}:den"] = float(value.pooled[1])
    return out


def diagnostics(dimension: str, value: Value) -> Dict[str, str]:
    """The row's diagnostics of `value` (its extras, when it has any)."""
    if not value.extras:
        return {}
    return {EXTRAS_KEY + dimension: json.dumps(value.extras, separators=(",", ":"))}


def extras_of(dimension: str, diagnostics_map: Mapping[str, str]) -> Dict[str, object]:
    """The extras a row recorded for `dimension` ({} when none)."""
    text = diagnostics_map.get(EXTRAS_KEY + dimension)
    return json.loads(text) if text else {}
