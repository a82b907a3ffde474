"""Storing masks as a (lossy) video and reading them back as a decoder returns them.

Some benchmarks store their motion masks as ordinary compressed videos and
score what the decoder gives back, not the binary arrays that were written:
codec blocking blurs mask borders and the grey frames come back as 3-channel
BGR whose channels may differ by a level or two. Reproducing such a benchmark
therefore needs the same file round trip: write with the same fourcc, frame
rate and size, and decode with cv2 (same OpenCV build, same codec bits).

Odd sizes: OpenCV's FFmpeg writer only accepts even frame sizes, and given
frames one row or column larger than the writer's (even) size it encodes the
top-left (W & -2) x (H & -2) part. `write_mask_video` makes that explicit by
opening the writer at (W & -2, H & -2) and cropping every frame to it, which
decodes to the very same frames (pinned by mask_video_test).
"""

import os

import cv2
import numpy as np


def even_size(width, height):
    """(width, height) rounded down to even, as a video writer needs it."""
    return width & -2, height & -2


def write_mask_video(path, masks, *, fps, fourcc):
    """Writes single-channel uint8 masks to a video file.

    Args:
        path: Output file path (its folder must exist).
        masks: Non-empty iterable of uint8 arrays of shape (H, W), all one
            size; typically 0 or 255.
        fps: Frame rate stored in the file (passed to cv2.VideoWriter as is).
        fourcc: Four-character codec code, e.g. "mp4v".

    Returns:
        The number of frames written.

    Raises:
        ValueError: If a mask is not a 2-D uint8 array, sizes differ, the
            iterable is empty, or the size is below 2 x 2.
        OSError: If OpenCV cannot open a writer for `path` and `fourcc`.
    """
    writer = None
    size = None
    count = 0
    try:
        for index, mask in enumerate(masks):
            if not isinstance(mask, np.ndarray) or mask.dtype != np.uint8 or mask.ndim != 2:
                raise ValueError(f"mask {index} must be a 2-D uint8 array")
            if writer is None:
                size = (mask.shape[1], mask.shape[0])
                width, height = even_size(*size)
                if width == 0 or height == 0:
                    raise ValueError(f"mask size {size} is too small for a video")
                writer = cv2.VideoWriter(
                    os.fspath(path),
                    cv2.VideoWriter_fourcc(*fourcc),
                    fps,
                    (width, height),
                    isColor=False,
                )
                if not writer.isOpened():
                    raise OSError(f"cannot open a {fourcc!r} video writer for {path}")
            elif (mask.shape[1], mask.shape[0]) != size:
                raise ValueError(f"mask {index} has size {mask.shape[::-1]}, expected {size}")
            writer.write(np.ascontiguousarray(mask[:height, :width]))
            count += 1
    finally:
        if writer is not None:
            writer.release()
    if count == 0:
        raise ValueError("no masks to write")
    return count


def iter_video_frames(path):
    """Yields the frames of a video as cv2 decodes them (BGR uint8, H x W x 3).

    Raises:
        OSError: If the file cannot be opened.
    """
    capture = cv2.VideoCapture(os.fspath(path))
    try:
        if not capture.isOpened():
            raise OSError(f"cannot open video {path}")
        while True:
            ok, frame = capture.read()
            if not ok:
                return
            yield frame
    finally:
        capture.release()
