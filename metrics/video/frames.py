"""Loading evaluation frames from frame folders and video files.

Frame folders can be decoded on a small thread pool (`workers`): OpenCV releases the
GIL while it decodes and resizes, so a 2-core machine decodes about twice as fast. The
frames (and digests) never depend on the number of workers. This module is the API;
frame_files.py lists a folder by frame number (the numbering a folder must have is each
benchmark's rule), frame_decode.py decodes images, video_files.py videos.

Readers that take a `warnings` list append to it, with the file named, what they used
though it was read only in part or not as its file declares (a truncated JPEG decoded
with grey fill, a video whose container declares another frame count than it decodes).
`as_declared` reads a video by its container's count, `complete` reads all of it but
refuses one that decodes fewer frames than its container declares (see video_files).
"""

import hashlib
import pathlib

from metrics.video.frame_decode import (  # noqa: F401  (re-exported: the frames API)
    decode_folder, decode_image, partial_image_reason, read_frame_files, read_image,
    read_image_or_none)
from metrics.video.frame_errors import (  # noqa: F401  (re-exported: the frames API)
    MAX_DEFAULT_WORKERS, VIDEO_EXTENSIONS, WORKERS_ENV, FrameInputError, broken_link,
    check_workers, default_workers, not_a_file, resize_area)
from metrics.video.frame_files import (  # noqa: F401  (re-exported: the frames API)
    IMAGE_EXTENSIONS, FrameListing, list_frame_files, parse_frame_name, scan_frame_folder)
from metrics.video.video_files import (  # noqa: F401  (re-exported: the frames API)
    decode_video, decode_video_checked, read_video_frames, video_frame_count)


def read_frame_folder(folder, max_side=None, workers=None):
    """Reads all frames of a folder into one array.

    Args:
        folder: Folder of image frames (see list_frame_files).
        max_side: If given, each frame is shrunk with resize_max_side.
        workers: Decode threads (None: default_workers()); the result is the same
            for any number.

    Returns:
        Array of shape (N, H, W, 3) and dtype uint8, BGR.

    Raises:
        FrameInputError: As list_frame_files/read_image, or on mixed sizes (the
            first offending file in frame order is named).
        ValueError: If max_side or workers is given and not a positive int.
    """
    return decode_folder(folder, max_side, workers, None)


def _frame_source(source):
    """('folder' | 'video', path), else FrameInputError."""
    source = pathlib.Path(source)
    if source.is_dir():
        return "folder", source
    if source.suffix.lower() in VIDEO_EXTENSIONS:
        return "video", source
    found = ("a file of another type" if source.exists() else
             broken_link(source) if source.is_symlink() else "nothing")
    expected = "a frame folder or a .mp4/.avi/.mov/.mkv video"
    raise FrameInputError(source, expected, found)


def load_frames(source, max_side=None, workers=None, warnings=None, as_declared=False,
                complete=False):
    """Loads frames from a frame folder or a video file.

    Args:
        source: A folder of image frames, or a .mp4/.avi/.mov/.mkv file.
        max_side: If given, each frame is shrunk with resize_max_side.
        workers: Decode threads for a frame folder (None: default_workers());
            a video is decoded sequentially. The result does not depend on it.
        warnings: If a list, partial reads are appended to it (module docstring).
        as_declared: A video is read by its container's frame count (video_files).
        complete: A video that decodes fewer frames than its container declares fails;
            every decoded frame is kept (video_files).

    Returns:
        Array of shape (N, H, W, 3) and dtype uint8, BGR.

    Raises:
        FrameInputError: If source is neither or cannot be read, or (as_declared or
            complete) is a video that decodes fewer frames than its container declares.
        ValueError: If max_side or workers is given and not a positive int.
    """
    kind, source = _frame_source(source)
    if kind == "folder":
        return decode_folder(source, max_side, workers, None, warnings)
    return decode_video_checked(source, max_side, warnings, as_declared, complete)


def file_digest_update(digest, path, chunk_size=1 << 20):
    """Updates `digest` with path.name + b"\0" + the file's bytes (read in chunks)."""
    path = pathlib.Path(path)
    digest.update(path.name.encode() + b"\0")
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(chunk_size), b""):
            digest.update(chunk)


def source_digest(source):
    """The sha256 load_frames_and_digest returns, without decoding anything.

    Args:
        source: A folder of image frames, or a .mp4/.avi/.mov/.mkv file.

    Returns:
        Hex sha256 over name + b"\0" + bytes of each file in frame order (a video:
        of the one file).

    Raises:
        FrameInputError: If source is neither, or its frames cannot be listed.
    """
    kind, source = _frame_source(source)
    digest = hashlib.sha256()
    for path in (list_frame_files(source) if kind == "folder" else [source]):
        file_digest_update(digest, path)
    return digest.hexdigest()


def load_frames_and_digest(source, max_side=None, workers=None, warnings=None,
                           as_declared=False, complete=False):
    """load_frames plus a sha256 of the input, reading each file once.

    The digest is a clip's input digest: sha256 over, for each file in
    frame order (list_frame_files), its name, a NUL byte and its bytes; for a video,
    over the video's name, a NUL byte and its bytes. A frame folder's files are read
    once and decoded from those same bytes.

    Args:
        source: A folder of image frames, or a .mp4/.avi/.mov/.mkv file.
        max_side: If given, each frame is shrunk with resize_max_side.
        workers: Decode threads for a frame folder (None: default_workers()).
        warnings: If a list, partial reads are appended to it (module docstring).
        as_declared: A video is read by its container's frame count (video_files).
        complete: A video that decodes fewer frames than its container declares fails;
            every decoded frame is kept (video_files).

    Returns:
        (frames (N, H, W, 3) uint8 BGR, hex sha256 digest).

    Raises:
        FrameInputError: If source is neither or cannot be read, or (as_declared or
            complete) is a video that decodes fewer frames than its container declares.
        ValueError: If max_side or workers is given and not a positive int.
    """
    kind, source = _frame_source(source)
    digest = hashlib.sha256()
    if kind == "folder":
        frames = decode_folder(source, max_side, workers, digest, warnings)
    else:
        frames = decode_video_checked(source, max_side, warnings, as_declared, complete)
        file_digest_update(digest, source)
    return frames, digest.hexdigest()
