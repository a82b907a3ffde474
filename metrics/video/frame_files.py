"""Listing a folder's frame files by frame number (the frames API re-exports it).

A frame file is an image (.png/.jpg/.jpeg) whose name ends in its frame number:
`00016.png` is frame 16, `frames_7.png` frame 7, `NewLevelSequence5.0012.jpg` frame 12.
Frames are listed by that number. Which numbering a folder must have (where it starts,
whether it is padded, whether a gap is an error, whether the names must also sort as
strings in time order) is each benchmark's rule, not this module's: `scan_frame_folder`
reports what a folder holds (numbers, gaps, duplicates, names that are not frames) and the
benchmark decides.
"""

import dataclasses
import pathlib
import re
from typing import Optional, Tuple

from metrics.video.frame_errors import FrameInputError

IMAGE_EXTENSIONS = (".png", ".jpg", ".jpeg")

# A frame name: any prefix, then the frame number at the very end of the stem.
_FRAME_STEM = re.compile(r"(.*?)([0-9]+)", re.DOTALL)
FRAME_NAME_RULE = ("a frame file named by its frame number (<name><number>.png/.jpg/.jpeg, "
                   "e.g. 00001.png or frames_1.png)")


@dataclasses.dataclass(frozen=True)
class FrameName:
    """A frame file's name split into prefix, number (as written) and extension."""

    prefix: str
    digits: str
    suffix: str

    @property
    def number(self) -> int:
        return int(self.digits)

    def with_number(self, number: int) -> str:
        """The name this numbering gives frame `number` (same prefix, padding, suffix)."""
        padded = len(self.digits) > 1 and self.digits.startswith("0")
        digits = f"{number:0{len(self.digits)}d}" if padded else str(number)
        return f"{self.prefix}{digits}{self.suffix}"


def parse_frame_name(name: str) -> Optional[FrameName]:
    """The FrameName of an image file name, or None when it is not a frame name (not an
    image, or its stem does not end in a number: `cover.png`, `00005 (1).png`)."""
    path = pathlib.PurePath(name)
    if path.suffix.lower() not in IMAGE_EXTENSIONS:
        return None
    match = _FRAME_STEM.fullmatch(path.stem)
    if not match:
        return None
    return FrameName(match.group(1), match.group(2), path.suffix)


@dataclasses.dataclass(frozen=True)
class FrameListing:
    """What a folder's image files are, as frames.

    Attributes:
        folder: The folder.
        frames: One path per frame number, by number (a duplicated number keeps the
            first name in string order).
        numbers: The frame numbers of `frames`, ascending.
        gaps: The numbers missing between the first and the last frame, ascending.
        duplicates: (number, names) for each number more than one file has.
        not_frames: Image file names that do not end in a frame number, sorted.
        not_files: (name, what it is) for entries named like images that are not
            regular files (a dangling link, a directory), sorted.
    """

    folder: pathlib.Path
    frames: Tuple[pathlib.Path, ...]
    numbers: Tuple[int, ...]
    gaps: Tuple[int, ...]
    duplicates: Tuple[Tuple[int, Tuple[str, ...]], ...]
    not_frames: Tuple[str, ...]
    not_files: Tuple[Tuple[str, str], ...]

    def missing_names(self) -> Tuple[str, ...]:
        """The names the gaps' frames would have, numbered like the frame before each."""
        names, k = [], 0
        for number in self.gaps:
            while k + 1 < len(self.numbers) and self.numbers[k + 1] < number:
                k += 1
            names.append(parse_frame_name(self.frames[k].name).with_number(number))
        return tuple(names)

    def gap_text(self, limit: int = 5) -> str:
        """e.g. "00016.png missing (frame 16 of 1..32)"; "" without gaps."""
        if not self.gaps:
            return ""
        names = self.missing_names()
        shown = ", ".join(names[:limit]) + (f" and {len(names) - limit} more"
                                            if len(names) > limit else "")
        return (f"{shown} missing (numbered {self.numbers[0]}..{self.numbers[-1]}, "
                f"{len(self.frames)} frames)")


def _not_a_file(path: pathlib.Path) -> str:
    if path.is_symlink() and not path.exists():
        return "a link to nothing"
    return "a directory" if path.is_dir() else "not a regular file"


def scan_frame_folder(folder) -> FrameListing:
    """Reports a folder's image files as frames, refusing nothing but a missing folder.

    Raises:
        FrameInputError: If `folder` is not a folder.
    """
    folder = pathlib.Path(folder)
    if not folder.is_dir():
        found = "a file" if folder.exists() else "nothing"
        raise FrameInputError(folder, "a folder of .png/.jpg/.jpeg frames", found)
    images = sorted(p for p in folder.iterdir() if p.suffix.lower() in IMAGE_EXTENSIONS)
    not_files = tuple((p.name, _not_a_file(p)) for p in images if not p.is_file())
    by_number, not_frames = {}, []
    for path in images:
        if not path.is_file():
            continue
        name = parse_frame_name(path.name)
        if name is None:
            not_frames.append(path.name)
            continue
        by_number.setdefault(name.number, []).append(path)
    numbers = tuple(sorted(by_number))
    present = set(numbers)
    gaps = tuple(n for n in range(numbers[0], numbers[-1]) if n not in present) if numbers else ()
    duplicates = tuple((n, tuple(p.name for p in by_number[n]))
                       for n in numbers if len(by_number[n]) > 1)
    return FrameListing(folder, tuple(by_number[n][0] for n in numbers), numbers, gaps,
                        duplicates, tuple(not_frames), not_files)


def list_frame_files(folder):
    """Lists the image frames of a folder by frame number.

    A frame's number is the number its file name ends in (`NewLevelSequence5.0012.jpg`
    is frame 12); frames are ordered by it, whatever the padding. A gap in the numbering
    is not refused here (scan_frame_folder reports it): a benchmark whose official code
    fails on it, or reads names in another order, checks that itself.

    Args:
        folder: Folder of .png/.jpg/.jpeg frames (not searched recursively).

    Returns:
        The frame paths, sorted by frame number.

    Raises:
        FrameInputError: If the folder is missing, holds no image files, an entry named
            like a frame is not a file (a dangling link, a directory), an image's name
            does not end in a frame number (`cover.png`, a copy `00005 (1).png`), or two
            files share a frame number.
    """
    listing = scan_frame_folder(folder)
    folder = listing.folder
    for name, found in listing.not_files:  # never score a clip on fewer frames than it has
        raise FrameInputError(folder / name, "a frame image file", found)
    if not (listing.frames or listing.not_frames):
        raise FrameInputError(folder, "a folder of .png/.jpg/.jpeg frames", "no image files")
    if listing.not_frames:
        names = listing.not_frames
        raise FrameInputError(folder / names[0], FRAME_NAME_RULE,
                              "a name that does not end in a frame number (not a frame; "
                              "rename or remove it)" + (f"; also {', '.join(names[1:])}"
                                                        if len(names) > 1 else ""))
    if listing.duplicates:
        number, names = listing.duplicates[0]
        raise FrameInputError(folder, "one file per frame number",
                              f"{' and '.join(sorted(names))} are both frame {number}")
    return list(listing.frames)
