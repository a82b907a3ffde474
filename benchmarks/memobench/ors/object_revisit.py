"""One clip's Object Revisit Score with SAM-3: frames read as compute_ors.py reads them.

Frame folders: the frames in time order (MemoBench's frame rule, frame_order.py: names
must sort as strings in time order), read one at a time when judged, through the shared
frame reader (metrics.video.frames.read_image: cv2.imread in colour, the same pixels);
a file that does not decode counts as an unreadable frame (None), as compute_ors.py
counts it (its path is in ClipFrames.paths, for the caller's warning), while a file
OpenCV refuses outright (a PNG whose header claims more pixels than it allows: cv2.error
upstream) is a FrameInputError naming it. compute_ors
globs only `*.png`, so a folder holding PNGs is read as its PNGs; a folder of JPEGs
only (which compute_ors would skip) is read as its JPEGs. Videos: every frame decoded
up front (`extract_frames_from_mp4`); a video with no decodable frame is a clip of 0
frames, as upstream, which then scores 0. Frames are judged at native resolution,
BGR -> RGB.
"""

import dataclasses
import pathlib
from typing import Callable, Optional, Tuple

import cv2
import numpy as np

from benchmarks.memobench import frame_order
from benchmarks.memobench.ors import revisit
from metrics.segmentation import sam3
from metrics.video import frames as frames_lib


@dataclasses.dataclass(frozen=True)
class ClipFrames:
    """A clip's frame count and a reader of frame i (None when it cannot be read)."""

    num_frames: int
    read: Callable[[int], Optional[np.ndarray]]
    note: str = ""   # e.g. why a video yielded no frame
    paths: Tuple[pathlib.Path, ...] = ()  # a frame folder's files, frame i at paths[i]


def _read_image_or_none(path: pathlib.Path) -> Optional[np.ndarray]:
    """BGR frame, or None where cv2.imread gives None (compute_ors skips the frame but
    counts it); FrameInputError naming the file where OpenCV refuses it (cv2.error)."""
    return frames_lib.read_image_or_none(path)


def open_clip(source) -> ClipFrames:
    """The frames of a frame folder or a video, as compute_ors.py sees them.

    Raises:
        frames_lib.FrameInputError: A folder with no frame (or badly numbered ones), or
            a path that is neither a folder nor a video file. (Reading a frame raises it
            too, for a file OpenCV refuses.)
    """
    source = pathlib.Path(source)
    if source.is_dir():
        paths = frame_order.list_frames(source)
        pngs = [p for p in paths if p.suffix.lower() == ".png"]
        paths = pngs or paths
        return ClipFrames(len(paths), lambda i: _read_image_or_none(paths[i]),
                          paths=tuple(paths))
    if source.suffix.lower() in frames_lib.VIDEO_EXTENSIONS and source.is_file():
        try:
            frames = frames_lib.decode_video(source)
        except frames_lib.FrameInputError as e:
            return ClipFrames(0, lambda i: None, note=str(e))
        return ClipFrames(len(frames), lambda i: frames[i])
    found = "a file of another type" if source.exists() else "nothing"
    raise frames_lib.FrameInputError(source, "a frame folder or a video file", found)


def sam3_judge(detector: sam3.Sam3Detector, prompt: sam3.PromptFeatures,
               threshold: float = 0.0) -> Callable[[np.ndarray], revisit.FrameVerdict]:
    """BGR frame -> FrameVerdict: SAM-3 at `threshold`, then the coverage filter."""

    def judge(frame_bgr: np.ndarray) -> revisit.FrameVerdict:
        found = sam3.detect(detector, cv2.cvtColor(frame_bgr, cv2.COLOR_BGR2RGB), prompt,
                            threshold=threshold)
        return revisit.frame_verdict(found.mask_areas, found.scores, found.width,
                                     found.height)

    return judge


def object_revisit_score(clip: ClipFrames, r_start: int, detector: sam3.Sam3Detector,
                         prompt: str) -> revisit.ClipRevisit:
    """ORS of one clip whose R phase starts at `r_start` (frames r_start .. N-1)."""
    judge = sam3_judge(detector, sam3.encode_prompt(detector, prompt))
    return revisit.clip_revisit(
        revisit.r_phase_verdicts(clip.read, clip.num_frames, r_start, judge))
