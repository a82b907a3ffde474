"""The video the VQA judge watches: a model's generated frames re-encoded as llm-vqa.py does.

llm-vqa.py (find_frames_dir / find_mp4_file / frames_to_video): the clip folder named like
the case's `folder` (its frames/ or samples-rgb/ subfolder, else the folder itself) is
compiled into a temporary mp4 with OpenCV: fourcc mp4v, the first frame's native size,
fps 24 when there are more than 100 frames (LTX-Video, Open-Sora: 129) and 16 otherwise
(81); frames OpenCV cannot read are left out but still count for the fps rule (each is
named in the sample's input warnings). Frames are read through the shared frame reader
(metrics.video.frames.read_image: cv2.imread in colour, the same BGR pixels), so a file
OpenCV refuses outright (a PNG whose header claims more pixels than it allows: cv2.error
upstream) is a FrameInputError naming it, the clip's error row. Without a folder, a
pre-existing {folder}.mp4 is sent as it is.

Clips are found with benchmarks/memobench/generated.py (discover_synthetic), which also
accepts `{clip}/video.mp4` (sent as it is; llm-vqa.py would find no frames there and skip
the clip) and prefers a root `{clip}.mp4` over a same-named folder (llm-vqa.py prefers the
folder). Frames are ordered by frame number, and a folder whose lexicographic order (the
official sort) differs is refused (FrameInputError; MemoBench's rule in frame_order.py), so
the order always matches upstream.
"""

import dataclasses
import pathlib
from typing import Dict, List, Optional, Tuple

import cv2
import numpy as np

from benchmarks.common import sample_records
from benchmarks.common.errors import InputError
from benchmarks.memobench import frame_order
from benchmarks.memobench import generated as generated_lib
from metrics.video import frames as frames_lib

FOURCC = "mp4v"
MANY_FRAMES = 100      # llm-vqa.py: `if n > 100: fps = 24`
FPS_MANY, FPS_FEW = 24, 16


def fps_for(frame_count: int) -> int:
    """llm-vqa.py frames_to_video: 24 fps above 100 frames, else 16."""
    return FPS_MANY if frame_count > MANY_FRAMES else FPS_FEW


def discover(generated_dir: pathlib.Path) -> Dict[str, generated_lib.GeneratedClip]:
    """The synthetic generated clips by id ("Barnyard_001"); InputError if no such folder."""
    return {c.clip_id: c for c in generated_lib.discover_synthetic(pathlib.Path(generated_dir))}


@dataclasses.dataclass(frozen=True)
class EncodedVideo:
    """The mp4 given to the judge and how it was made."""

    path: pathlib.Path
    frame_count: int     # frames in the source (sets the fps)
    frames_written: int  # frames OpenCV could read (what the mp4 holds)
    fps: int
    width: int
    height: int
    re_encoded: bool     # False when a pre-existing mp4 is sent as it is
    warnings: Tuple[str, ...] = ()  # the frames left out, each named

    def diagnostics(self) -> Dict[str, str]:
        """The sample's diagnostics, with the input warnings (set on a new sample)."""
        found = {"vqa_frames": str(self.frame_count),
                 "vqa_frames_written": str(self.frames_written),
                 "vqa_fps": str(self.fps), "vqa_width": str(self.width),
                 "vqa_height": str(self.height), "vqa_re_encoded": str(self.re_encoded).lower()}
        if self.warnings:
            found[sample_records.WARNINGS] = "\n".join(self.warnings)
        return found


def _read(path: pathlib.Path) -> Optional[np.ndarray]:
    """cv2.imread's BGR frame, or None where it gives None (llm-vqa.py leaves the frame
    out); FrameInputError naming the file where OpenCV refuses it (cv2.error upstream)."""
    return frames_lib.read_image_or_none(path)


def frames_to_mp4(frame_dir: pathlib.Path, out_path: pathlib.Path) -> EncodedVideo:
    """Re-encodes a frame folder to `out_path` as llm-vqa.py frames_to_video does.

    Raises:
        FrameInputError: No frames, names without frame numbers, an order that differs from
            the lexicographic one, an unreadable first frame, a frame OpenCV refuses, or a
            writer OpenCV cannot open.
    """
    files: List[pathlib.Path] = frame_order.list_frames(frame_dir)
    first = _read(files[0])
    if first is None:
        # llm-vqa.py: `if first is None: return None` -> "No frames found ... skipping".
        raise frames_lib.FrameInputError(files[0], "a readable first frame")
    height, width = first.shape[:2]
    fps = fps_for(len(files))
    writer = cv2.VideoWriter(str(out_path), cv2.VideoWriter_fourcc(*FOURCC), fps,
                             (width, height))
    if not writer.isOpened():
        raise frames_lib.FrameInputError(out_path, f"an OpenCV {FOURCC} video writer",
                                         "none could be opened")
    written, left_out = 0, []
    try:
        for path in files:
            frame = _read(path)
            if frame is not None:
                writer.write(frame)
                written += 1
            else:
                left_out.append(f"{path}: not a readable image (cv2.imread gives None); "
                                "left out of the video sent to the judge, as llm-vqa.py "
                                "leaves it out (it still counts for the fps rule)")
    finally:
        writer.release()
    return EncodedVideo(out_path, len(files), written, fps, width, height, re_encoded=True,
                        warnings=tuple(left_out))


def existing_mp4(path: pathlib.Path) -> EncodedVideo:
    """A generated mp4 sent unchanged (llm-vqa.py find_mp4_file fallback)."""
    capture = cv2.VideoCapture(str(path))
    try:
        if not capture.isOpened():
            raise frames_lib.FrameInputError(path, "a video OpenCV can open")
        count = int(capture.get(cv2.CAP_PROP_FRAME_COUNT))
        fps = capture.get(cv2.CAP_PROP_FPS)
        width = int(capture.get(cv2.CAP_PROP_FRAME_WIDTH))
        height = int(capture.get(cv2.CAP_PROP_FRAME_HEIGHT))
    finally:
        capture.release()
    return EncodedVideo(path, count, count, int(round(fps)), width, height, re_encoded=False)


def judge_video(clip: generated_lib.GeneratedClip, scratch_dir: pathlib.Path) -> EncodedVideo:
    """The mp4 to send for a clip: its frames re-encoded into scratch_dir, or its own mp4.

    Raises:
        InputError: Discovery's error for the clip (e.g. two sources of one clip).
        FrameInputError: As frames_to_mp4 / existing_mp4.
    """
    if clip.error:
        raise InputError(clip.source, clip.expected, clip.error)
    if clip.source.is_file():
        return existing_mp4(clip.source)
    out = pathlib.Path(scratch_dir) / f"{clip.clip_id}.mp4"
    return frames_to_mp4(clip.source, out)
