"""MiraBench inputs: the meta CSV rows and where each row's frames come from.

The official calculate_score.py reads the meta CSV with pandas (columns video_idx,
video_path and six captions, spec §1) and works on <frame_dir>/<video_idx>/frames_%d.png
that ffmpeg extracts from video_path. Ours, per row, in this order: a frame folder
<generated_dir>/<video_idx>/ (as the official frame_dir: used as it is when non-empty),
a video <generated_dir>/<video_idx>.mp4 (or .avi/.mov/.mkv), else the row's video_path
(absolute, or relative to the meta CSV's folder, then to the working directory).

Each row's video_idx must be a non-negative integer (the official frame folder
<frame_dir>/<video_idx>/ and video_score.csv's numeric video_id; 7, 007 and 7.0 are
video 7): any other value (text, a path such as ../../x, a negative number) is that
row's input error, naming the CSV, the row and the value, and an empty cell is one
("missing"); the other rows are scored. A meta CSV with no row under its header, and a
--generated_dir (or --gt_dir) that is missing, not a folder or empty, are refused before
any work (`check_folder`): without the flag the rows' video_path is read, as upstream
extracts each row's video_path.

A frame folder is read as calculate_score.py reads it (spec §1, `frame_files`):
frames_1.png ... frames_N.png, numbered from 1 and unpadded as ffmpeg's frames_%d.png
writes them, read by number (frames_10.png after frames_9.png), with N the number of
entries in the folder. Anything the official loop would fail on is that video's input
error, naming the first file it would miss: a gap (frames_7.png), an entry that is not
a frame (it makes N one larger than the frames), a padded or other name.
"""

import dataclasses
import math
import os
import pathlib
import re
from typing import Dict, List, Optional, Tuple

import pandas as pd

from benchmarks.common.errors import InputError

VIDEO_IDX, VIDEO_PATH = "video_idx", "video_path"
CAPTIONS = ("short_caption", "dense_caption", "main_object_caption", "background_caption",
            "style_caption", "camera_caption")
REQUIRED = (VIDEO_IDX,)
_VIDEO_SUFFIXES = (".mp4", ".avi", ".mov", ".mkv")
FRAME_PATTERN = "frames_%d.png"           # calculate_score.py's ffmpeg output pattern
_FRAME_NAME = re.compile(r"frames_([1-9][0-9]*)\.png")


@dataclasses.dataclass(frozen=True)
class Row:
    """One meta CSV row: its index, the source found for it (None: none), captions."""

    video_idx: str
    position: int                       # 0-based row in the CSV
    source: Optional[pathlib.Path]
    expected: str                       # where the source was looked for (error text)
    video_path: str                     # the row's video_path cell ("" when absent)
    captions: Dict[str, Optional[str]]  # caption column -> text (None: missing / NaN)
    caption_problems: Dict[str, str]    # caption column -> why it is unusable
    # (path, expected, found) of an InputError when the row's video_idx is unusable
    # (missing or not a non-negative integer): the row is then that error, unscored.
    problem: Tuple[str, ...] = ()
    idx_cell: Optional[str] = None      # video_idx as the CSV spells it (None: empty)


def _text(value) -> Optional[str]:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return None
    return str(value)


_INDEX = re.compile(r"([0-9]+)(?:\.0*)?")  # 7, 007, 7.0: video 7


def row_number(position: int) -> int:
    """The row a spreadsheet shows for 0-based data row `position` (the header is row 1)."""
    return position + 2


def _index(cell) -> Tuple[str, Optional[str]]:
    """(sample id, the cell's text or None when empty) of one video_idx cell: a
    non-negative integer's id is its digits ("7"), any other text is its own id."""
    text = _text(cell)
    text = None if text is None or not text.strip() else text.strip()
    if text is None:
        return "", None
    match = _INDEX.fullmatch(text)
    return (str(int(match.group(1))) if match else text), text


def read_meta(path: pathlib.Path) -> Tuple[pd.DataFrame, List[str]]:
    """The meta CSV as the official pandas.read_csv reads it (video_idx kept as its text),
    and its missing caption columns; InputError naming the file when it is unreadable,
    lacks video_idx, has no row under its header or repeats a video_idx."""
    if not path.is_file():
        raise InputError(path, "a MiraBench meta CSV (columns video_idx, video_path, "
                         + ", ".join(CAPTIONS) + ")", "no such file")
    try:
        frame = pd.read_csv(path, dtype={VIDEO_IDX: str})
    except (ValueError, OSError, UnicodeDecodeError) as e:
        raise InputError(path, "a readable CSV", f"{type(e).__name__}: {e}") from e
    missing = [c for c in REQUIRED if c not in frame.columns]
    if missing:
        raise InputError(path, "the column video_idx (the official meta CSV's first column)",
                         "columns " + ", ".join(map(str, frame.columns)))
    if not len(frame.index):
        raise InputError(path, "at least one video row under the header (nothing to "
                         "evaluate otherwise)", "a header and no rows")
    ids = [_index(v)[0] for v in frame[VIDEO_IDX]]
    dupes = sorted({i for i in ids if i and ids.count(i) > 1})
    if dupes:
        raise InputError(path, "one row per video_idx", "repeated: " + ", ".join(dupes))
    return frame, [c for c in CAPTIONS if c not in frame.columns]


def check_folder(folder: Optional[pathlib.Path], flag: str) -> None:
    """InputError (exit 2, before any work) when a folder of videos the user named is
    missing, not a folder or empty; None (the flag not given) is fine: each meta row's
    video_path is then read, as calculate_score.py extracts it."""
    if folder is None:
        return
    folder = pathlib.Path(folder)
    expected = (f"a folder of <video_idx>.mp4 videos or <video_idx>/ frame folders ({flag}; "
                "leave it out to read each meta row's video_path)")
    if not folder.is_dir():
        found = ("a link to nothing" if folder.is_symlink() and not folder.exists() else
                 "a file" if folder.exists() else "no such folder")
        raise InputError(folder, expected, found)
    try:
        empty = not any(folder.iterdir())
    except OSError as e:
        raise InputError(folder, expected, f"a folder that cannot be listed "
                         f"({type(e).__name__}: {e.strerror or e})") from e
    if empty:
        raise InputError(folder, expected, "an empty folder")


def _source(video_idx: str, video_path: str, generated_dir: Optional[pathlib.Path],
            meta_dir: pathlib.Path) -> Tuple[Optional[pathlib.Path], str]:
    looked = []
    if generated_dir is not None:
        folder = generated_dir / video_idx
        if folder.is_dir() and any(folder.iterdir()):
            return folder, ""
        looked.append(f"{folder}/")
        for suffix in _VIDEO_SUFFIXES:
            if (generated_dir / (video_idx + suffix)).is_file():
                return generated_dir / (video_idx + suffix), ""
        looked.append(f"{generated_dir / video_idx}.mp4")
    if video_path:
        given = pathlib.Path(video_path)
        for candidate in ([given] if given.is_absolute() else [meta_dir / given, given]):
            if candidate.is_file() or candidate.is_dir():
                return candidate, ""
            looked.append(str(candidate))
    return None, " or ".join(looked) or "a video (no --generated_dir and no video_path)"


def rows(meta_csv: pathlib.Path, generated_dir: Optional[pathlib.Path]) -> List[Row]:
    """Every meta CSV row with its source and its captions' problems."""
    frame, missing_captions = read_meta(meta_csv)
    out = []
    for position in range(frame.shape[0]):
        record = frame.iloc[position]
        video_idx, cell = _index(record[VIDEO_IDX])
        number, problem = row_number(position), ()
        if cell is None:
            video_idx = f"(row {number})"  # an id no valid video_idx can take
            problem = (str(meta_csv), f"a video_idx on row {number} (a non-negative "
                       "integer; the header is row 1)", "none: the value is missing (an "
                       "empty cell)")
        elif not video_idx.isdigit():
            problem = (str(meta_csv), f"a non-negative integer video_idx on row {number} "
                       "(the header is row 1; the official code names the video's frame "
                       "folder <frame_dir>/<video_idx>/)", repr(cell))
        video_path = _text(record[VIDEO_PATH]) if VIDEO_PATH in frame.columns else None
        source, looked = ((None, "") if problem else
                          _source(video_idx, video_path or "", generated_dir, meta_csv.parent))
        caps, problems = {}, {}
        for column in CAPTIONS:
            caps[column] = None if column in missing_captions else _text(record[column])
            if column in missing_captions:
                problems[column] = f"{meta_csv} has no {column} column"
            elif caps[column] is None:
                problems[column] = f"{meta_csv} row video_idx={video_idx}: {column} is empty (NaN)"
        out.append(Row(video_idx, position, source, looked, video_path or "", caps, problems,
                       problem, cell))
    return out


def frame_name(number: int) -> str:
    """The file calculate_score.py reads for 1-based frame `number`."""
    return FRAME_PATTERN % number


def frame_files(folder: pathlib.Path) -> List[pathlib.Path]:
    """The frames of a frame folder, as calculate_score.py reads them.

    The official loop reads frames_1.png ... frames_N.png by number (iio.imread), with N
    = len(os.listdir(folder)); it fails on the first one missing. Here that is an
    InputError naming that file and what the folder holds instead.

    Returns:
        folder/frames_1.png ... folder/frames_N.png, in that (numeric) order.

    Raises:
        InputError: The folder cannot be listed, a frame the official loop reads is
            missing or not a file, or an entry is not a frames_<n>.png frame.
    """
    folder = pathlib.Path(folder)
    try:
        names = sorted(os.listdir(folder))
    except OSError as e:
        raise InputError(folder, "a readable frame folder", f"{type(e).__name__}: {e}") from e
    count = len(names)
    if not count:
        raise InputError(folder, f"{FRAME_PATTERN} frames (calculate_score.py's layout)",
                         "an empty folder")
    present = set(names)
    expected = (f"{frame_name(1)} ... {frame_name(count)} (calculate_score.py reads "
                f"{FRAME_PATTERN} from 1 by number, up to the folder's {count} entries)")
    others = [n for n in names if not _FRAME_NAME.fullmatch(n)]
    missing = next((k for k in range(1, count + 1) if frame_name(k) not in present), None)
    if missing is not None:
        found = f"no {frame_name(missing)}"
        numbers = sorted(int(_FRAME_NAME.fullmatch(n).group(1)) for n in names
                         if _FRAME_NAME.fullmatch(n))
        if numbers and missing < numbers[-1]:
            found += (f" (a gap: frames numbered {numbers[0]}..{numbers[-1]}, "
                      f"{len(numbers)} of them)")
        if others:
            shown = ", ".join(others[:5]) + (f" and {len(others) - 5} more"
                                             if len(others) > 5 else "")
            found += f"; entries that are not {FRAME_PATTERN} frames: {shown}"
        raise InputError(folder / frame_name(missing), expected, found)
    paths = [folder / frame_name(k) for k in range(1, count + 1)]
    for path in paths:
        if not path.is_file():
            found = ("a link to nothing" if path.is_symlink() and not path.exists()
                     else "a directory" if path.is_dir() else "not a regular file")
            raise InputError(path, "a frame image file", found)
    return paths
