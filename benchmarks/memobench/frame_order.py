"""MemoBench's rule for frame folders: the official code reads the file names as sorted strings.

run_eval.py (Step 1), compute_ors.py (ORS) and llm-vqa.py (VQA) take a folder's frames
in `sorted()` order (spec §2.6: "Frames are sorted lexicographically"); the GT RGB{n}/
frames likewise ("sorted files, indexed by position"). worldeval lists frames by number
(metrics/video/frame_files.py); the two orders agree for every consistently padded folder
(00000.png ..., NewLevelSequence5.0000.jpg ...). A folder whose orders differ (1.png,
2.png, 10.png) is refused, so that MemoBench never scores time in an order the official
code would not use.

A gap in the numbering (frames/00016.png missing of 00000..00031) is not refused: the
official code reads the sorted list it finds, so the frames after the gap move up one
place and the clip is scored on one frame fewer, as upstream scores it. The number is
kept (equal to the official one) and the gap is recorded as the sample's warning
(`gap_warnings`), naming the missing file, so a researcher sees that the clip was scored
on a broken sequence.
"""

import pathlib
from typing import List

from metrics.video import frames as frames_lib

ORDER_RULE = ("frame names whose string order (the official code's sorted()) is their "
              "numeric order (consistently zero-padded, e.g. 00000.png ... 00120.png)")


def check_lexicographic(listing: frames_lib.FrameListing) -> None:
    """FrameInputError when the listing's numeric order is not its string order."""
    frames = listing.frames
    for earlier, later in zip(frames, frames[1:]):
        if earlier.name > later.name:
            raise frames_lib.FrameInputError(
                listing.folder, ORDER_RULE,
                f"{later.name} sorts before {earlier.name}; lexicographic order (used by "
                "the official code) would scramble time")


def list_frames(folder) -> List[pathlib.Path]:
    """A frame folder's frames in time order, under MemoBench's rule.

    Raises:
        FrameInputError: As frames.list_frame_files (no frames, a name that is not a
            frame, a repeated frame number, an entry that is not a file), or when the
            names' string order differs from their numeric order.
    """
    return list(_checked_listing(folder).frames)


def _checked_listing(folder) -> frames_lib.FrameListing:
    frames_lib.list_frame_files(folder)  # its refusals, with its messages
    listing = frames_lib.scan_frame_folder(folder)
    check_lexicographic(listing)
    return listing


def gap_warnings(source) -> List[str]:
    """The sample warning for a frame folder whose numbering has a gap ([] for none, or
    for a video); raises FrameInputError as `list_frames` does."""
    source = pathlib.Path(source)
    if not source.is_dir():
        return []
    listing = _checked_listing(source)
    if not listing.gaps:
        return []
    return [f"{source}: frame numbering has a gap, {listing.gap_text()}; scored as the "
            "official code scores it, on the frames present in sorted order (the frames "
            "after a gap move up one place)"]
