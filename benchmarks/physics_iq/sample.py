"""One Physics-IQ (scenario, view) on the shared engine: the 12 values of spec §7.

A sample is upstream's renamed generated video, `{id}_{view}_{scenario}` (layout.Sample).
Scoring it (spec §5-§7, as upstream's pipeline does for that view):
  - every video is decoded once, frame by frame (cv2, as upstream reads it): the first
    5 s kept at the working size (a quarter of the real take-1), full-size frames never
    kept; the generated video in the loop's prefetch thread (`load`);
  - its motion masks are written, from the native frames of that same decode, through the
    official mp4v round trip into the run's output folder
    (`video-masks/generated/<model>/{F}FPS/`, upstream's path under its data folder) and
    read back as a stream, since the official masks are what the codec returns (spec §5,
    §11.1);
  - the real masks come from the data tree where it has them (`video-masks/real/{F}FPS`),
    else they are made from the real takes' same decode, into `video-masks/real/{F}FPS/`
    of the output folder (upstream: only when that folder is absent, spec §3.4);
  - view_metrics.compute_view_metrics gives the 12 keys of upstream's `out` dict.
The row keeps them all (diagnostics `physics_iq/<key>`, lists as Python list reprs, so
the CSV is written from stored rows and an interrupted run resumes without recomputing),
and four per-view columns: the means over frames of the take-1 per-frame lists and the
take-1 scalars (not official per-view numbers; the official ones are set-level, card.py).
"""

import dataclasses
import json
import pathlib
import time
from typing import Dict, Optional

import cv2

from benchmarks.common import sample_loop
from benchmarks.common.errors import InputError
from benchmarks.physics_iq import layout as layout_lib
from benchmarks.physics_iq import view_metrics
from metrics.motion_masks import mask_video
from metrics.video import frames as frames_lib
from proto import scorecard_pb2

SPLIT = "generated"
VALUES = "physics_iq/"  # diagnostics prefix of the 12 official values
# Per-view columns of the row: (column, official key, a list averaged over its frames).
COLUMNS = (("spatiotemporal_iou", "spatiotemporal_iou_v1", True),
           ("spatial_iou", "spatial_iou_v1", False),
           ("weighted_spatial_iou", "weighted_spatial_iou_v1", False),
           ("mse", "v1_mse", True))


@dataclasses.dataclass(frozen=True)
class Setup:
    """What every sample of a run shares."""

    fps: float               # the generated videos' cv2 fps (the window is [0, 5 fps))
    track: str               # view_metrics.TRACKS
    masks_out: pathlib.Path  # output_dir/video-masks (generated/<model>/..., real/...)
    model: str               # its generated masks go to masks_out/generated/<model>/
    real_masks_present: bool
    split: str = SPLIT       # the rows' split: one per run where a model has several

    @property
    def fps_folder(self) -> str:
        return f"{int(self.fps)}FPS"


@dataclasses.dataclass(frozen=True)
class View:
    """What the pass iterates: one (scenario, view) of one run."""

    item: layout_lib.Sample
    setup: Setup


def ref(view: View) -> sample_loop.SampleRef:
    return sample_loop.SampleRef(view.item.name, view.setup.split)


def digest(view: View) -> Dict[str, str]:
    """Every input of the sample: the generated video, both real takes, and the real masks
    where the data tree has them (a changed file recomputes the sample on --resume)."""
    item, setup = view.item, view.setup
    named = {"generated": item.generated, "real_take1": item.real_take1,
             "real_take2": item.real_take2}
    if setup.real_masks_present:
        named.update(real_mask_take1=item.mask_take1, real_mask_take2=item.mask_take2)
    return {name: frames_lib.source_digest(path) for name, path in named.items()}


def _frames(path: pathlib.Path, what: str):
    """The frames of a video as cv2 decodes them, one at a time; InputError naming the
    file where it cannot be opened or has no frame."""
    count = 0
    try:
        for frame in mask_video.iter_video_frames(path):
            count += 1
            yield frame
    except OSError as e:
        raise InputError(path, f"the {what} (an mp4 cv2 can open)", str(e)) from None
    if not count:
        raise InputError(path, f"the {what} with at least one frame", "none decoded")


@dataclasses.dataclass(frozen=True)
class Pass:
    """One decode of a video: its first `window` frames at the working size, and what the
    scorecard says of it."""

    window: list
    count: int                 # frames decoded
    shape: tuple               # the native (H, W, 3)


def _one_pass(path: pathlib.Path, what: str, window: int, size: tuple,
              masks: Optional[pathlib.Path] = None, fps: float = 0.0) -> Pass:
    """Decodes `path` once, frame by frame: the first `window` frames resized to `size`
    (as compute_view_metrics resizes them), and, where `masks` is given, every native
    frame through the official mask writer into that file. Full-size frames are never
    kept (a 4K take is ~3.7 GB of them)."""
    kept, seen = [], {"count": 0, "shape": None}

    def frames():
        for frame in _frames(path, what):
            if seen["shape"] is None:
                seen["shape"] = frame.shape
            if len(kept) < window:
                kept.append(cv2.resize(frame, size))
            seen["count"] += 1
            yield frame

    if masks is not None:
        masks.parent.mkdir(parents=True, exist_ok=True)
        view_metrics.write_mask_file(frames(), masks, fps=fps)
    else:
        for _ in frames():
            if len(kept) == window:
                break
    return Pass(kept, seen["count"], seen["shape"])


def working_size(item: layout_lib.Sample) -> tuple:
    """The working size of the view: a quarter of its real take-1's first frame."""
    first = next(_frames(item.real_take1, "real take-1 testing video"))
    return view_metrics.working_size(first)


@dataclasses.dataclass(frozen=True)
class Loaded:
    generated: Pass        # the generated video's window at the working size
    size: tuple            # the working size (W, H)
    digests: Dict[str, str]


def _generated_masks(view: View) -> pathlib.Path:
    item, setup = view.item, view.setup
    name = view_metrics.mask_file_name(item.id, item.view, "take-1", item.scenario, setup.fps)
    return setup.masks_out / "generated" / setup.model / setup.fps_folder / name


def load(view: View) -> Loaded:
    """The generated side, ahead of scoring (the loop's prefetch thread): one decode of
    the video, its masks written through the mp4v round trip, its window resized."""
    size = working_size(view.item)
    window = view_metrics.window_length(view.setup.fps)
    generated = _one_pass(view.item.generated, "generated video", window, size,
                          masks=_generated_masks(view), fps=view.setup.fps)
    return Loaded(generated, size, digest(view))


def _real(item: layout_lib.Sample, take: str, setup: Setup, window: int, size: tuple):
    """(the take's window at the working size, its mask frames as stored: a stream)."""
    video = item.real_take1 if take == "take-1" else item.real_take2
    mask = item.mask_take1 if take == "take-1" else item.mask_take2
    what = f"real {take} testing video"
    if setup.real_masks_present:
        return (_one_pass(video, what, window, size).window,
                _frames(mask, f"real {take} mask video"))
    made = setup.masks_out / "real" / setup.fps_folder / mask.name
    return (_one_pass(video, what, window, size, masks=made, fps=setup.fps).window,
            _frames(made, f"real {take} mask video (made from {video.name})"))


def score(view: View, loaded: Loaded) -> scorecard_pb2.SampleScore:
    start = time.perf_counter()
    item, setup = view.item, view.setup
    r = ref(view)
    sample = scorecard_pb2.SampleScore(sample_id=r.sample_id, split=r.split)
    sample_loop.record_digests(sample, loaded.digests)
    window = view_metrics.window_length(setup.fps)
    take1, mask1 = _real(item, "take-1", setup, window, loaded.size)
    take2, mask2 = _real(item, "take-2", setup, window, loaded.size)
    mask_generated = _frames(_generated_masks(view), "generated video's mask video")
    values = view_metrics.compute_view_metrics(
        take1, take2, loaded.generated.window, mask1, mask2, mask_generated,
        fps=setup.fps, track=setup.track, size=loaded.size)
    if values is None:
        raise InputError(item.real_take1, "a real take-1 testing video with frames",
                         "none in the first 5 s")
    _check_values(values)
    height, width = loaded.generated.shape[:2]
    sample.diagnostics.update({
        "scenario": item.scenario, "view": item.view, "id": item.id,
        "category": item.category, "source": str(item.generated),
        "num_frames": str(loaded.generated.count), "fps": repr(setup.fps),
        "height": str(height), "width": str(width)})
    for key, value in values.items():
        sample.diagnostics[VALUES + key] = json.dumps(value)
    for column, key, is_list in COLUMNS:
        value = values[key]
        sample.metrics[column] = sum(value) / len(value) if is_list else value
    sample.seconds = round(time.perf_counter() - start, 4)
    return sample


def _check_values(values: Dict[str, object]) -> None:
    """Every IoU and MSE of [0, 1] frames is in [0, 1]: anything else is our bug (a
    ValueError: the loop records the view as an internal error, never as a value)."""
    for key, value in values.items():
        for v in (value if isinstance(value, list) else [value]):
            if not 0.0 <= v <= 1.0:  # NaN fails too
                raise ValueError(f"{key} = {v!r}: outside [0, 1] (a worldeval bug)")


def official_values(sample: scorecard_pb2.SampleScore) -> Dict[str, object]:
    """The 12 values a row stored (lists of floats, floats), exactly as computed."""
    return {key: json.loads(sample.diagnostics[VALUES + key]) for key in view_metrics.KEYS}
