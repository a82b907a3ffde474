"""The SAM-3 metadata CSVs and the text prompt of each clip (compute_ors.py, spec §2.4, §6).

`sam3_metadata/synthetic_metadata.csv` (scene, video_id, subject, exr_path, prompt) and
`sam3_metadata/real_metadata.csv` (video_id, subject, full_image_path, prompt), read
with csv.DictReader as upstream. Clip ids: `f"{scene}_{int(video_id):03d}"` and
`video_id.zfill(3)`. Text prompt: synthetic, the first `sees (...(subject)...)` phrase of
the prompt, stripped, without trailing '.' or ','; else the subject. Real: the subject.
"""

import csv
import dataclasses
import os
import pathlib
import re
from typing import Dict, Optional, Tuple

from benchmarks.common.errors import InputError
from benchmarks.memobench.dataset import REAL, SYNTHETIC

METADATA_DIR_ENV = "WORLDFOUNDRY_MEMOBENCH_SAM3_METADATA_DIR"
OFFICIAL_SUBDIR = "sam3_metadata"   # compute_ors.py's SAM3_DATA = "data/sam3_metadata"
CSV_NAMES = {SYNTHETIC: "synthetic_metadata.csv", REAL: "real_metadata.csv"}
_SUBJECT_PHRASE = re.compile(r"sees (.*?\(subject\)[^.,]*)", re.IGNORECASE)


@dataclasses.dataclass(frozen=True)
class MetadataRow:
    """One clip of a metadata CSV."""

    clip_id: str
    split: str
    scene: str        # "real" for real clips, as in ors_scores.csv
    subject: str
    prompt: str

    @property
    def text_prompt(self) -> str:
        """What SAM-3 is asked to find in this clip."""
        if self.split == SYNTHETIC:
            return extract_subject_phrase(self.prompt) or self.subject
        return self.subject


def extract_subject_phrase(prompt: str) -> Optional[str]:
    """'... sees another person(subject) crossing from the left to right. ...' ->
    'another person(subject) crossing from the left to right'; None without a match."""
    match = _SUBJECT_PHRASE.search(prompt)
    return match.group(1).strip().rstrip(".,") if match else None


def metadata_dir(data_root: pathlib.Path, explicit: Optional[os.PathLike] = None) -> pathlib.Path:
    """The explicit folder, else $WORLDFOUNDRY_MEMOBENCH_SAM3_METADATA_DIR, else
    <data root>/sam3_metadata (the official location)."""
    chosen = explicit or os.environ.get(METADATA_DIR_ENV)
    return pathlib.Path(chosen) if chosen else pathlib.Path(data_root) / OFFICIAL_SUBDIR


def _rows(path: pathlib.Path, columns):
    with open(path, newline="", encoding="utf-8") as f:
        reader = csv.DictReader(f)
        missing = [c for c in columns if c not in (reader.fieldnames or ())]
        if missing:
            raise InputError(path, f"a SAM-3 metadata CSV with columns {', '.join(columns)}",
                             f"no {', '.join(missing)}")
        yield from reader


def _video_id(path, value) -> int:
    try:
        return int(value)
    except (TypeError, ValueError):
        raise InputError(path, "integer video_id values", repr(value)) from None


def read_metadata(folder: pathlib.Path) -> Dict[Tuple[str, str], MetadataRow]:
    """{(split, clip_id): MetadataRow} from the CSVs present in `folder`.

    A missing CSV contributes no rows (as upstream); neither present is an InputError.
    """
    folder = pathlib.Path(folder)
    paths = {split: folder / name for split, name in CSV_NAMES.items()}
    if not any(p.is_file() for p in paths.values()):
        raise InputError(folder, "the SAM-3 metadata CSVs synthetic_metadata.csv and/or "
                         f"real_metadata.csv (set ${METADATA_DIR_ENV} or the flag)", "neither")
    rows = {}
    if paths[SYNTHETIC].is_file():
        for row in _rows(paths[SYNTHETIC], ("scene", "video_id", "subject")):
            clip_id = f"{row['scene']}_{_video_id(paths[SYNTHETIC], row['video_id']):03d}"
            rows[(SYNTHETIC, clip_id)] = MetadataRow(clip_id, SYNTHETIC, row["scene"],
                                                     row["subject"], row.get("prompt") or "")
    if paths[REAL].is_file():
        for row in _rows(paths[REAL], ("video_id", "subject")):
            clip_id = str(row["video_id"]).zfill(3)
            rows[(REAL, clip_id)] = MetadataRow(clip_id, REAL, REAL, row["subject"],
                                                row.get("prompt") or "")
    return rows
