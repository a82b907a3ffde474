"""Physics-IQ metrics of one (scenario, view): motion masks and the 12 per-view values.

Two steps, as in the official pipeline:
  1. `write_mask_file` turns a video into its motion-mask file (spec §5,
     upstream code/binary_mask_generator.py:22-118). The masks are stored as
     an mp4v video and the metrics read THAT file back: the official masks are
     what the lossy codec returns (3-channel BGR, blurred borders), not the
     binary arrays, so the round trip is part of the benchmark (spec §11.1).
  2. `compute_view_metrics` takes the six decoded streams of one (scenario,
     view) and returns the 12 values of upstream's per-view `out` dict (spec
     §6-§7, code/calculate_and_write_metrics_to_csv.py:214-374), or, for the
     Verified track, of physiq/calculate_and_write_metrics_to_csv.py
     (spec §10 "Metric computation"; read at dc7dd06, the version stored).

The caller decodes every file once (metrics.motion_masks.mask_video.
iter_video_frames, or any iterable of cv2 BGR uint8 frames) and passes the
iterables in; nothing here opens a video for reading. Only the first
`window_length(fps)` frames of each stream are consumed; they are resized at
once and kept at the working (quarter) size as uint8 (RGB) or bool (masks),
where upstream keeps float64 RGB frames: 8x less memory for the RGB streams.
The values are the same bits (uint8 / 255.0 is formed per MSE chunk).
"""

import math

import cv2
import numpy as np

from benchmarks.physics_iq import csv_file, layout
from metrics.motion_masks import background, mask_video, overlap

# Mask generator (spec §5): running average weight, grey-level threshold,
# blur and morphology kernel sides, codec of the stored masks.
MASK_ALPHA = 0.3
MASK_THRESHOLD = 10
MASK_BLUR_SIZE = 5
MASK_MORPH_SIZE = 5
MASK_FOURCC = "mp4v"

# Metrics (spec §6-§7).
WINDOW_SECONDS = 5
DOWNSCALE = 4
MASK_CUTOFF = 127  # a decoded mask pixel is active where > 127
EMPTY_IOU = 1.0  # IoU of two empty masks, and weighted IoU with no activity
COUNT_DTYPE = np.uint16  # dtype of the per-pixel count of active frames

TRACKS = ("original", "verified")

# Upstream's `out` keys in its order (no `_{view}` suffix) and the per-frame ones: the
# CSV's (csv_file.py).
KEYS, LIST_KEYS = csv_file.KEYS, csv_file.LIST_KEYS

_MSE_CHUNK = 16  # frames per float conversion; bounds the float64 temporaries


def mask_file_name(video_id, view, take, scenario, fps):
    """The official mask file name (spec §5 "Output names").

    Real videos: take is the video's take; generated videos: always "take-1".
    `scenario` is the trailing name part, e.g. "trimmed-ball-and-block-fall.mp4".
    The fps is the video's cv2 fps, rounded with Python's round() (note: the
    evaluator looks masks up with int(fps) instead, spec §2 "FPS naming quirk").
    """
    return layout.mask_name(video_id, round(fps), view, take, scenario)


def write_mask_file(frames, path, *, fps):
    """Computes the motion masks of `frames` and stores them as the official mask video.

    Args:
        frames: Iterable of the video's BGR uint8 frames (all of them, as cv2
            decodes the file).
        path: Output path (see mask_file_name).
        fps: The video's cv2 fps (float); the file is written at round(fps).

    Returns:
        The number of mask frames written (= the number of input frames).
    """
    masks = background.iter_motion_masks(
        frames,
        alpha=MASK_ALPHA,
        threshold=MASK_THRESHOLD,
        blur_size=MASK_BLUR_SIZE,
        morph_size=MASK_MORPH_SIZE,
    )
    return mask_video.write_mask_video(path, masks, fps=round(fps), fourcc=MASK_FOURCC)


def working_size(real_take1_first_frame):
    """(W // 4, H // 4) of the real take-1's first frame: every stream's size (spec §6)."""
    height, width = real_take1_first_frame.shape[:2]
    return (width // DOWNSCALE, height // DOWNSCALE)


def window_length(fps):
    """How many leading frames are used: the indices 0 <= idx < 5 * fps (spec §6)."""
    if not fps > 0:
        raise ValueError(f"fps must be positive, got {fps}")
    return math.ceil(WINDOW_SECONDS * fps)


def _resized(frames, count, size):
    """The first `count` frames resized to `size` (INTER_LINEAR on uint8), stacked."""
    out = []
    for frame in frames:
        if len(out) == count:
            break
        out.append(cv2.resize(frame, size))
    return np.stack(out) if out else np.zeros((0, size[1], size[0], 3), np.uint8)


def _binary(decoded_masks, track):
    """Decoded BGR masks -> bool: all 3 channels (original) or channel 0 (verified)."""
    if track == "verified":
        decoded_masks = decoded_masks[..., 0]
    return decoded_masks > MASK_CUTOFF


def _mse(frames_a, frames_b):
    """Per-frame float32 MSE of uint8 frames taken to [0, 1] as float64 first (frame / 255.0)."""
    if len(frames_a) != len(frames_b):
        raise ValueError(
            f"Videos must have the same number of frames: {len(frames_a)} vs {len(frames_b)}"
        )
    values = []
    for start in range(0, len(frames_a), _MSE_CHUNK):
        stop = start + _MSE_CHUNK
        values += overlap.per_frame_mse(frames_a[start:stop] / 255.0, frames_b[start:stop] / 255.0)
    return values


def _check_streams(rgb, masks, track):
    """Upstream's emptiness (original) or shape (verified) checks, spec §6 / §10."""
    names_rgb = ("real take-1", "real take-2", "generated")
    names_mask = ("real take-1 mask", "real take-2 mask", "generated mask")
    if track == "verified":
        for names, arrays in ((names_rgb, rgb), (names_mask, masks)):
            shapes = [a.shape for a in arrays]
            if any(len(a) == 0 for a in arrays) or len(set(shapes)) != 1:
                raise ValueError(
                    "frame counts or shapes differ: "
                    + ", ".join(f"{n} {s}" for n, s in zip(names, shapes))
                )
        return
    for name, array in zip(names_rgb + names_mask[:2], rgb + masks[:2]):
        if len(array) == 0:
            raise ValueError(f"{name} has no frames in the window")
    if len(masks[2]) == 0:
        # Upstream does not check this one and scores a 1.0 weighted IoU; see
        # the deviation note in compute_view_metrics.
        raise ValueError("generated mask has no frames in the window")


def compute_view_metrics(
    real_take1, real_take2, generated, mask_take1, mask_take2, mask_generated, *, fps, track,
    size=None,
):
    """The 12 per-view values of one (scenario, view).

    Args:
        real_take1, real_take2, generated: Iterables of BGR uint8 frames
            (H x W x 3, native size) of the real take-1 / take-2 testing
            videos and of the generated video, as cv2 decodes them.
        mask_take1, mask_take2, mask_generated: Iterables of the decoded
            frames of the three mask videos (BGR uint8, as cv2 returns them
            from the files written by write_mask_file).
        fps: Frame rate (float) of the generated videos (upstream's
            get_video_fps); the window is [0, 5 * fps) on every stream.
        track: "original" or "verified".
        size: The working size (W, H), for a caller that resized the frames
            to it as it decoded them (resizing to the same size is a copy);
            default: a quarter of the real take-1's first frame (upstream).

    Returns:
        A dict with the keys KEYS in upstream's order: Python float lists for
        LIST_KEYS, Python floats otherwise. For the original track None when
        the real take-1 video has no frame (upstream leaves that view's
        columns out).

    Raises:
        ValueError: For an unknown track; original track: an empty stream in
            the window, or MSE over streams of different frame counts;
            verified track: any empty stream, or RGB streams (masks) whose
            window shapes differ.

    Deviation: an empty generated-mask stream raises ValueError in both
    tracks; upstream's original code would score it (empty per-frame lists, a
    weighted IoU of 1.0 via NaN comparisons).
    """
    if track not in TRACKS:
        raise ValueError(f"track must be one of {TRACKS}, got {track!r}")
    count = window_length(fps)
    real_take1 = iter(real_take1)
    first = next(real_take1, None)
    if first is None:
        if track == "original":
            return None
        raise ValueError("real take-1 video has no frames")
    if size is None:
        size = working_size(first)

    def with_first(rest):
        yield first
        yield from rest

    r1 = _resized(with_first(real_take1), count, size)
    g = _resized(generated, count, size)
    r2 = _resized(real_take2, count, size)
    m1 = _binary(_resized(mask_take1, count, size), track)
    m2 = _binary(_resized(mask_take2, count, size), track)
    mg = _binary(_resized(mask_generated, count, size), track)
    _check_streams((r1, r2, g), (m1, m2, mg), track)

    iou = dict(empty_value=EMPTY_IOU)
    w1, w2, wg = (overlap.active_fraction(m, count_dtype=COUNT_DTYPE) for m in (m1, m2, mg))
    variance_mse = _mse(r1, r2)
    out = {
        "v1_mse": _mse(r1, g),
        "v2_mse": _mse(r2, g),
        "variance_spatial": overlap.collapsed_iou(m1, m2, **iou),
        # The original sums this one over all pixels, the model ones over the
        # active pixels only (same value up to float64 rounding); the Verified
        # code uses the active-pixel form for all three (spec §10 item 3).
        "variance_weighted_spatial": overlap.weighted_iou(
            w1, w2, active_only=(track == "verified"), **iou
        ),
        "variance_spatiotemporal_iou": overlap.per_frame_iou(m1, m2, **iou),
        "variance_mse": variance_mse,
        "spatiotemporal_iou_v1": overlap.per_frame_iou(m1, mg, **iou),
        "spatiotemporal_iou_v2": overlap.per_frame_iou(m2, mg, **iou),
        "spatial_iou_v1": overlap.collapsed_iou(m1, mg, **iou),
        "spatial_iou_v2": overlap.collapsed_iou(m2, mg, **iou),
        "weighted_spatial_iou_v1": overlap.weighted_iou(w1, wg, active_only=True, **iou),
        "weighted_spatial_iou_v2": overlap.weighted_iou(w2, wg, active_only=True, **iou),
    }
    return {key: out[key] for key in KEYS}
