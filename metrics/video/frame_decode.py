"""Decoding image frames: one file, a list of files, or a whole folder on threads.

A file that decodes only in part (a JPEG cut short decodes with grey fill, as the
official cv2.imread reads it) is decoded the same way, and, when the caller passes a
`warnings` list, reported there with its path (`partial_image_reason`).
"""

import concurrent.futures
import os
import pathlib

import cv2
import numpy as np

from metrics.video.frame_errors import FrameInputError, check_workers, resize_area
from metrics.video.frame_files import list_frame_files
from metrics.video.resize import check_max_side, max_side_size


def read_image(path):
    """Reads an image as BGR uint8; gray and 4-channel images become BGR.

    Args:
        path: Image file path.

    Returns:
        Array of shape (H, W, 3) and dtype uint8.

    Raises:
        FrameInputError: If the file cannot be read or decoded, or OpenCV refuses it
            (a header claiming more pixels than CV_IO_MAX_IMAGE_PIXELS).
    """
    image = _imread(path)
    if image is None:
        raise FrameInputError(path, "a readable PNG/JPEG image")
    return image


def read_image_or_none(path):
    """cv2.imread's own contract, for code that reproduces a caller which skips a frame
    cv2.imread cannot decode: BGR uint8, or None where cv2.imread returns None.

    Raises:
        FrameInputError: OpenCV refuses the file (a header claiming more pixels than
            CV_IO_MAX_IMAGE_PIXELS: cv2.error, not None, in the official call).
    """
    return _imread(path)


def _refused(path, data, error):
    """The FrameInputError for an image OpenCV refuses with cv2.error instead of
    returning None: a header claiming more pixels than CV_IO_MAX_IMAGE_PIXELS (2^30) or a
    size its decoder asserts against. It is unusable input, as an undecodable file is."""
    lines = [line.strip() for line in str(error).strip().splitlines() if line.strip()]
    reason = lines[-1].split(" error: ", 1)[-1] if lines else ""
    size = _png_header_size(data)
    found = (f"a PNG whose header claims {size[0]}x{size[1]} pixels, which OpenCV refuses"
             if size is not None else "an image OpenCV refuses to decode")
    return FrameInputError(path, "a readable PNG/JPEG image",
                           found + (f": {reason}" if reason else ""))


def _png_header_size(data):
    """(width, height) from a PNG's IHDR chunk, or None."""
    if not data or len(data) < 24 or not data.startswith(b"\x89PNG\r\n\x1a\n"):
        return None
    if data[12:16] != b"IHDR":
        return None
    return int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")


def _imread(path, data=None):
    """cv2.imread in colour; FrameInputError (not cv2.error) when OpenCV refuses it."""
    try:
        return cv2.imread(os.fspath(path), cv2.IMREAD_COLOR)
    except cv2.error as e:
        raise _refused(path, _read_bytes(path) if data is None else data, e) from None


def _imdecode(data, path):
    """cv2.imdecode in colour; FrameInputError (not cv2.error) when OpenCV refuses it."""
    try:
        return cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)
    except cv2.error as e:
        raise _refused(path, data, e) from None


def decode_image(data, path):
    """Decodes encoded PNG/JPEG bytes exactly as `read_image` reads the file.

    Args:
        data: The file's bytes.
        path: The file they came from (named in errors).

    Returns:
        Array of shape (H, W, 3) and dtype uint8, BGR.

    OpenCV's imdecode refuses a JPEG cut short that imread decodes with grey fill
    (OpenCV 4.14, measured); such bytes are decoded by imread from `path`, so the
    frame is the one the official code's cv2.imread gets.

    Raises:
        FrameInputError: If the bytes do not decode, or OpenCV refuses them (as
            read_image).
    """
    image = None
    if data:
        image = _imdecode(data, path)
        if image is None and partial_image_reason(data, path):
            image = _imread(path, data)
    if image is None:
        raise FrameInputError(path, "a readable PNG/JPEG image")
    return image


def partial_image_reason(data, path):
    """Why an image file that decodes is only partly there, or None.

    A JPEG whose last scan (SOS marker) has no end-of-image marker after it was cut
    short: libjpeg fills the missing rows with grey. A PNG without its IEND chunk was
    cut short too (the rows it holds may still decode).
    """
    suffix = pathlib.Path(path).suffix.lower()
    last_eoi = data.rfind(b"\xff\xd9") if suffix in (".jpg", ".jpeg") else -1
    if suffix in (".jpg", ".jpeg") and data.find(b"\xff\xda", max(last_eoi, 0)) >= 0:
        return (f"{path}: a JPEG cut short (no end-of-image marker after its last scan); "
                "decoded with grey fill, as the official cv2.imread reads it")
    if suffix == ".png" and b"IEND" not in data[-12:]:
        return f"{path}: a PNG cut short (no IEND chunk); decoded as far as it goes"
    return None


def _read_bytes(path):
    try:
        return pathlib.Path(path).read_bytes()
    except OSError:
        return b""  # reported as read_image reports an unreadable file


def _decode_into(path, out, size, first_shape, keep_bytes):
    """Decodes one file into `out` (resizing to `size` if given) unless its native
    shape differs from first_shape; returns (bytes or None, native shape, partial read
    reason or None)."""
    data = _read_bytes(path)
    frame = decode_image(data, path)
    partial = partial_image_reason(data, path)
    if frame.shape == first_shape:
        if size is None:
            out[...] = frame
        else:
            resized = cv2.resize(frame, size, dst=out, interpolation=cv2.INTER_AREA)
            if not np.shares_memory(resized, out):  # OpenCV chose another buffer
                out[...] = resized
    return (data if keep_bytes else None), frame.shape, partial


def decode_folder(folder, max_side, workers, digest, warnings=None):
    """read_frame_folder's work on `workers` threads; updates `digest` (if given) with
    name + b"\0" + bytes of each file, in frame order, and appends partial reads to
    `warnings` (if a list; in frame order).

    The first frame fixes the output shape; every frame is then decoded and resized
    (resize_max_side's rule) straight into its slot of one preallocated array.
    """
    if max_side is not None:
        check_max_side(max_side)
    workers = check_workers(workers)
    paths = list_frame_files(folder)
    keep = digest is not None
    first = _read_bytes(paths[0])
    frame = decode_image(first, paths[0])
    partial = partial_image_reason(first, paths[0])
    if partial and warnings is not None:
        warnings.append(partial)
    first_shape = frame.shape
    size = None if max_side is None else max_side_size(first_shape, max_side)
    if size is not None:
        frame = cv2.resize(frame, size, interpolation=cv2.INTER_AREA)
    frames = np.empty((len(paths),) + frame.shape, np.uint8)
    frames[0] = frame
    if keep:
        digest.update(paths[0].name.encode() + b"\0")
        digest.update(first)
    del first, frame

    def take(path, result):
        data, shape, partial = result
        if partial and warnings is not None:
            warnings.append(partial)
        if shape != first_shape:
            want = f"{paths[0].name}'s size {first_shape[1]}x{first_shape[0]}"
            raise FrameInputError(path, want, f"{shape[1]}x{shape[0]}")
        if keep:
            digest.update(path.name.encode() + b"\0")
            digest.update(data)

    rest = list(enumerate(paths))[1:]
    if workers == 1 or len(rest) <= 1:
        for i, path in rest:
            take(path, _decode_into(path, frames[i], size, first_shape, keep))
        return frames
    pool = concurrent.futures.ThreadPoolExecutor(
        max_workers=min(workers, len(rest)), thread_name_prefix="frame-decode")
    try:
        futures = [pool.submit(_decode_into, path, frames[i], size, first_shape, keep)
                   for i, path in rest]
        for k, (_, path) in enumerate(rest):
            result, futures[k] = futures[k].result(), None  # bytes freed once hashed
            take(path, result)
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
    return frames


def read_frame_files(paths, size=None, workers=None, warnings=None):
    """Reads the given image files (any order, repeats allowed) on `workers` threads.

    Each file is decoded from its bytes exactly as read_image reads it; partial reads
    are appended to `warnings` (if a list), in the order given.

    Args:
        paths: Image file paths.
        size: If given, (width, height): each image is resized to it with
            cv2.INTER_AREA (from native resolution; no crop) as it is read.
        workers: Decode threads (None: default_workers()).

    Returns:
        One (H, W, 3) uint8 BGR array per path, in the order given.

    Raises:
        FrameInputError: As read_image, for the first unreadable path in order.
        ValueError: If workers is not a positive int.
    """
    paths = list(paths)
    workers = check_workers(workers)

    def one(path):
        data = _read_bytes(path)
        frame = decode_image(data, path)
        return (frame if size is None else resize_area(frame, size),
                partial_image_reason(data, path))

    if workers == 1 or len(paths) <= 1:
        results = [one(path) for path in paths]
    else:
        pool = concurrent.futures.ThreadPoolExecutor(
            max_workers=min(workers, len(paths)), thread_name_prefix="frame-decode")
        try:
            futures = [pool.submit(one, path) for path in paths]
            results = [future.result() for future in futures]
        finally:
            pool.shutdown(wait=True, cancel_futures=True)
    if warnings is not None:
        warnings.extend(reason for _, reason in results if reason)
    return [frame for frame, _ in results]
