"""One Physics-IQ (scenario, view) on the shared engine: the 12 values of spec §7.

A sample is upstream's renamed generated video, `{id}_{view}_{scenario}` (layout.Sample).
Scoring it (spec §5-§7, as upstream's pipeline does for that view):
  - the generated video is decoded once (cv2, every frame, native size); its motion masks
    are written through the official mp4v round trip into the run's output folder
    (`video-masks/generated/<model>/{F}FPS/`, upstream's path under its data folder) and
    read back, since the official masks are what the codec returns (spec §5, §11.1);
  - the real masks come from the data tree where it has them (`video-masks/real/{F}FPS`),
    else they are made from the real takes the same way, into `video-masks/real/{F}FPS/`
    of the output folder (upstream: only when that folder is absent, spec §3.4);
  - the real takes are decoded once, streamed through the working-size resize;
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
    model: str
    real_masks_present: bool

    @property
    def fps_folder(self) -> str:
        return f"{int(self.fps)}FPS"


def ref(item: layout_lib.Sample) -> sample_loop.SampleRef:
    return sample_loop.SampleRef(item.name, SPLIT)


def digest(item: layout_lib.Sample, setup: Setup) -> Dict[str, str]:
    """Every input of the sample: the generated video, both real takes, and the real masks
    where the data tree has them (a changed file recomputes the sample on --resume)."""
    named = {"generated": item.generated, "real_take1": item.real_take1,
             "real_take2": item.real_take2}
    if setup.real_masks_present:
        named.update(real_mask_take1=item.mask_take1, real_mask_take2=item.mask_take2)
    return {name: frames_lib.source_digest(path) for name, path in named.items()}


def _decode(path: pathlib.Path, what: str) -> list:
    try:
        frames = list(mask_video.iter_video_frames(path))
    except OSError as e:
        raise InputError(path, f"the {what} (an mp4 cv2 can open)", str(e)) from None
    if not frames:
        raise InputError(path, f"the {what} with at least one frame", "none decoded")
    return frames


def _mask_round_trip(frames: list, path: pathlib.Path, fps: float) -> list:
    """Writes the masks of `frames` as the official mask video and reads them back."""
    path.parent.mkdir(parents=True, exist_ok=True)
    view_metrics.write_mask_file(frames, path, fps=fps)
    return list(mask_video.iter_video_frames(path))


def _real_mask(item: layout_lib.Sample, take: str, setup: Setup) -> tuple:
    """(decoded mask frames, the real take's frames if decoded for it, else None)."""
    given = item.mask_take1 if take == "take-1" else item.mask_take2
    if setup.real_masks_present:
        return _decode(given, f"real {take} mask video"), None
    video = item.real_take1 if take == "take-1" else item.real_take2
    frames = _decode(video, f"real {take} testing video")
    return _mask_round_trip(frames, setup.masks_out / "real" / setup.fps_folder / given.name,
                            setup.fps), frames


def _stream(path: pathlib.Path, decoded: Optional[list], what: str):
    if decoded is not None:
        return decoded
    return _decode(path, what)


@dataclasses.dataclass(frozen=True)
class Loaded:
    generated: list  # every frame of the generated video, BGR, native size
    digests: Dict[str, str]


def load(item: layout_lib.Sample, setup: Setup) -> Loaded:
    """Decodes the generated video (ahead of scoring, in the loop's prefetch thread)."""
    return Loaded(_decode(item.generated, "generated video"), digest(item, setup))


def score(item: layout_lib.Sample, loaded: Loaded, setup: Setup) -> scorecard_pb2.SampleScore:
    start = time.perf_counter()
    r = ref(item)
    sample = scorecard_pb2.SampleScore(sample_id=r.sample_id, split=r.split)
    sample_loop.record_digests(sample, loaded.digests)
    generated = loaded.generated
    mask_name = view_metrics.mask_file_name(item.id, item.view, "take-1", item.scenario,
                                            setup.fps)
    mask_generated = _mask_round_trip(
        generated, setup.masks_out / "generated" / setup.model / setup.fps_folder / mask_name,
        setup.fps)
    mask1, take1 = _real_mask(item, "take-1", setup)
    mask2, take2 = _real_mask(item, "take-2", setup)
    values = view_metrics.compute_view_metrics(
        _stream(item.real_take1, take1, "real take-1 testing video"),
        _stream(item.real_take2, take2, "real take-2 testing video"),
        generated, mask1, mask2, mask_generated, fps=setup.fps, track=setup.track)
    if values is None:
        raise InputError(item.real_take1, "a real take-1 testing video with frames",
                         "none in the first 5 s")
    sample.diagnostics.update({
        "scenario": item.scenario, "view": item.view, "id": item.id,
        "category": item.category, "source": str(item.generated),
        "num_frames": str(len(generated)), "fps": repr(setup.fps),
        "height": str(generated[0].shape[0]), "width": str(generated[0].shape[1])})
    for key, value in values.items():
        sample.diagnostics[VALUES + key] = json.dumps(value)
    for column, key, is_list in COLUMNS:
        value = values[key]
        sample.metrics[column] = sum(value) / len(value) if is_list else value
    sample.seconds = round(time.perf_counter() - start, 4)
    return sample


def official_values(sample: scorecard_pb2.SampleScore) -> Dict[str, object]:
    """The 12 values a row stored (lists of floats, floats), exactly as computed."""
    return {key: json.loads(sample.diagnostics[VALUES + key]) for key in view_metrics.KEYS}
