"""Which clips ORS scores and what it needs of each (compute_ors.py `run_model`).

A clip is scored when it has a metadata row, a phase-sheet row and a GT frame count,
and the model generated it. Order: synthetic clips sorted by id, then real ones.

The GT frame count is ORS's own (spec §12 quirk 12), not Step 1's: synthetic, the rows
of `{n}/intrinsics.npy` (else `intrinsics.npy` in the clip folder, else the images of
`RGB{n}/`); real, the images of `FRAMES/`. The phase sheets are read without the
Real_Selected filter, which ORS does not apply.

Frames: compute_ors prefers a clip's PNG frames (`frames/`, `samples-rgb/`, the clip
folder) over its video; where discovery picked a video of a clip that also has PNG
frames, the frames are used.
"""

import dataclasses
import os
import pathlib
from typing import Dict, List, Optional, Sequence, Tuple

import numpy as np

from benchmarks.memobench import dataset
from benchmarks.memobench import keyframes as keyframes_lib
from benchmarks.memobench import phase_sheets
from benchmarks.memobench.generated import GeneratedClip
from benchmarks.memobench.ors.metadata import MetadataRow

_IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png")


@dataclasses.dataclass(frozen=True)
class OrsClip:
    """A generated clip with what ORS needs of its ground truth."""

    clip: GeneratedClip
    meta: Optional[MetadataRow]
    keyframes: Optional[phase_sheets.PhaseRow]
    gt_frames: Optional[int]
    source: pathlib.Path   # the frames ORS reads (see the module docstring)

    def problem(self) -> str:
        """Why this clip cannot be scored ('' when it can)."""
        split = self.clip.split
        if self.clip.error:  # discovery's (e.g. two sources of one clip)
            return f"{self.clip.expected}, found {self.clip.error}"
        if self.meta is None:
            return f"no row for {self.clip.clip_id} in {split}_metadata.csv"
        if self.keyframes is None:
            return f"no row for {self.clip.clip_id} in the {split} phase sheet"
        if not self.gt_frames:
            return (f"no GT frame count for {self.clip.clip_id} (intrinsics.npy rows or "
                    "RGB{n}/ images; real: FRAMES/ images)")
        return ""


def _count_images(folder: pathlib.Path) -> int:
    if not folder.is_dir():
        return 0
    return sum(1 for name in os.listdir(folder) if name.lower().endswith(_IMAGE_SUFFIXES))


def gt_frame_count(data_root: pathlib.Path, split: str, clip_id: str) -> Optional[int]:
    """ORS's GT frame count (gt_frame_count_synthetic / _real), or None."""
    if split == dataset.REAL:
        return _count_images(data_root / "Real_Raw" / clip_id / "FRAMES") or None
    clip_dir = data_root / "Synthetic_processed" / clip_id.rsplit("_", 1)[0] / clip_id
    n = dataset.clip_number(clip_id)
    for intrinsics in (clip_dir / n / "intrinsics.npy", clip_dir / "intrinsics.npy"):
        if intrinsics.is_file():
            return int(np.load(intrinsics).shape[0])
    return _count_images(clip_dir / f"RGB{n}") or None


def r_start(keyframes: phase_sheets.PhaseRow, gt_frames: int, num_frames: int) -> int:
    """R keyframe in generated frames: map_keyframes, with upstream's clamps also for
    clips shorter than the 6 frames Step 1 requires (their R range may be empty)."""
    if num_frames >= keyframes_lib.MIN_GENERATED_FRAMES:
        return keyframes_lib.map_keyframes(keyframes.h_gt, keyframes.r_gt, gt_frames, num_frames)[1]
    h = max(2, min(round(keyframes.h_gt / gt_frames * num_frames), num_frames - 4))
    return max(h + 2, min(round(keyframes.r_gt / gt_frames * num_frames), num_frames - 1))


def _has_png(folder: pathlib.Path) -> bool:
    return folder.is_dir() and any(p.suffix == ".png" and p.is_file() for p in folder.iterdir())


def frames_source(clip: GeneratedClip) -> pathlib.Path:
    """The discovered source, or the PNG frames compute_ors prefers to a video."""
    if clip.source.is_dir():
        return clip.source
    video = clip.source
    folder = video.parent if video.name == "video.mp4" else video.parent / video.stem
    for candidate in (folder / "frames", folder / "samples-rgb", folder):
        if _has_png(candidate):
            return candidate
    return video


def sheet_paths(data_root: pathlib.Path, synthetic_sheet: Optional[pathlib.Path] = None,
                real_sheet: Optional[pathlib.Path] = None):
    """{split: the phase sheet given, else the one at the official location, else None}."""
    return {
        dataset.SYNTHETIC: synthetic_sheet or phase_sheets.find_sheet(
            data_root / "Synthetic_processed", "Synthetic_ExitReenter"),
        dataset.REAL: real_sheet or phase_sheets.find_sheet(data_root / "Real_Raw",
                                                            "Real_ExitReenter"),
    }


def load_sheets(paths) -> Dict[str, Dict[str, phase_sheets.PhaseRow]]:
    """{split: {clip_id: PhaseRow}} from sheet_paths' result, without the Real_Selected
    filter; a split without a sheet has no rows (compute_ors: no keyframes, no score)."""
    readers = {dataset.SYNTHETIC: phase_sheets.read_synthetic_sheet,
               dataset.REAL: phase_sheets.read_real_sheet}
    return {split: readers[split](path) if path else {} for split, path in paths.items()}


def plan(clips: Sequence[GeneratedClip], metadata: Dict[Tuple[str, str], MetadataRow],
         sheets: Dict[str, Dict[str, phase_sheets.PhaseRow]],
         data_root: pathlib.Path) -> Tuple[List[OrsClip], List[str]]:
    """(clips in compute_ors order, ids "split/clip" that upstream would score).

    The expected ids are the metadata rows with a phase-sheet row and a GT count;
    generated clips without a metadata row come last (they get an error sample).
    """
    by_key = {(c.split, c.clip_id): c for c in clips}
    expected, ordered = [], []
    for split in (dataset.SYNTHETIC, dataset.REAL):
        for key in sorted(k for k in metadata if k[0] == split):
            keyframes = sheets[split].get(key[1])
            gt_frames = gt_frame_count(data_root, split, key[1])
            if keyframes is not None and gt_frames:
                expected.append(f"{split}/{key[1]}")
            if key in by_key:
                clip = by_key.pop(key)
                ordered.append(OrsClip(clip, metadata[key], keyframes, gt_frames,
                                       frames_source(clip)))
    for clip in by_key.values():
        ordered.append(OrsClip(clip, None, None, None, clip.source))
    return ordered, expected
