"""Listing a folder's frame files in time order (the frames API re-exports it)."""

import pathlib
import re

from metrics.video.frame_errors import FrameInputError

IMAGE_EXTENSIONS = (".png", ".jpg", ".jpeg")

_DIGIT_RUN = re.compile(r"[0-9]+")


def _frame_number(path):
    """Returns the integer of the last run of digits in the file stem."""
    runs = _DIGIT_RUN.findall(path.stem)
    if not runs:
        raise FrameInputError(path, "a frame number in the name", "no digits")
    return int(runs[-1])


def list_frame_files(folder):
    """Lists the image frames of a folder in time order.

    Frames are ordered by the last run of digits in the file stem, e.g.
    `NewLevelSequence5.0012.jpg` is frame 12. The official code
    sorts names lexicographically, so both orders must agree.

    Args:
        folder: Folder of .png/.jpg/.jpeg frames (not searched recursively).

    Returns:
        The frame paths, sorted by frame number.

    Raises:
        FrameInputError: If the folder is missing, holds no image files, an
            entry named like a frame is not a file (a dangling link, a
            directory), a name has no digits, two files share a frame number,
            or lexicographic order differs from numeric order.
    """
    folder = pathlib.Path(folder)
    expected = "a folder of .png/.jpg/.jpeg frames"
    if not folder.is_dir():
        found = "a file" if folder.exists() else "nothing"
        raise FrameInputError(folder, expected, found)
    files = sorted(p for p in folder.iterdir() if p.suffix.lower() in IMAGE_EXTENSIONS)
    for path in files:  # never score a clip on fewer frames than it has
        if not path.is_file():
            found = ("a link to nothing" if path.is_symlink() and not path.exists()
                     else "a directory" if path.is_dir() else "not a regular file")
            raise FrameInputError(path, "a frame image file", found)
    if not files:
        raise FrameInputError(folder, expected, "no image files")
    by_number = {}
    for path in files:
        number = _frame_number(path)
        if number in by_number:
            pair = " and ".join(sorted([by_number[number].name, path.name]))
            found = f"{pair} are both frame {number}"
            raise FrameInputError(folder, "one file per frame number", found)
        by_number[number] = path
    ordered = [by_number[n] for n in sorted(by_number)]
    for earlier, later in zip(ordered, ordered[1:]):
        if earlier.name > later.name:
            raise FrameInputError(
                folder,
                "consistently zero-padded frame numbers",
                f"{later.name} sorts before {earlier.name}; lexicographic "
                "order (used by the official code) would scramble "
                "time",
            )
    return ordered
