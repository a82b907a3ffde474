"""A video's duration as upstream's ffprobe call reports it, read from the MP4 header.

Upstream checks each generated video with `ffprobe -show_entries format=duration`
(`code/run_physics_iq.py:135-142`, spec §2). For an ISO-BMFF (.mp4/.mov) file libavformat
takes the format duration from the movie header box (`moov/mvhd`: duration / timescale),
rescales it to microseconds (rounding to nearest) and ffprobe prints it with 6 decimals.
We read the same two numbers without an ffprobe binary. A file with no readable `mvhd`
(not ISO-BMFF, truncated, fragmented with a zero duration) gives None: ffprobe's number
there would come from elsewhere, so the caller reports it as unreadable rather than guess.
"""

import os
import struct
from typing import BinaryIO, Optional

_CONTAINERS = (b"moov",)


def _boxes(f: BinaryIO, end: int):
    """Yields (type, payload start, payload end) of the boxes between f.tell() and end."""
    while f.tell() + 8 <= end:
        start = f.tell()
        size, kind = struct.unpack(">I4s", f.read(8))
        header = 8
        if size == 1:
            (size,) = struct.unpack(">Q", f.read(8))
            header = 16
        elif size == 0:
            size = end - start
        if size < header or start + size > end:
            return
        yield kind, start + header, start + size
        f.seek(start + size)


def _mvhd(f: BinaryIO, start: int, end: int) -> Optional[float]:
    f.seek(start)
    body = f.read(min(end - start, 32))
    if len(body) < 4:
        return None
    if body[0] == 1:
        if len(body) < 32:
            return None
        timescale, duration = struct.unpack(">IQ", body[20:32])
    else:
        if len(body) < 20:
            return None
        timescale, duration = struct.unpack(">II", body[12:20])
    if timescale == 0 or duration == 0:
        return None
    micros = (2 * duration * 1_000_000 + timescale) // (2 * timescale)  # AV_ROUND_NEAR_INF
    return float(f"{micros / 1_000_000:.6f}")  # ffprobe prints %f; upstream float()s it


def duration_seconds(path) -> Optional[float]:
    """ffprobe's `format=duration` of an MP4 as upstream float()s it; None if unreadable."""
    try:
        end = os.path.getsize(path)
        with open(path, "rb") as f:
            for kind, start, stop in _boxes(f, end):
                if kind in _CONTAINERS:
                    f.seek(start)
                    for inner, istart, istop in _boxes(f, stop):
                        if inner == b"mvhd":
                            return _mvhd(f, istart, istop)
                    return None
    except (OSError, struct.error):
        return None
    return None
