"""The MemoBench dataset on disk: ground truth per clip, current and legacy layouts.

Current layout (MemoBench HEAD, spec §2.1), under the data root (MemoBench's `data/`):
    Synthetic_processed/{Scene}/{Scene}_{NNN}/RGB{n}/*.jpg, {n}/intrinsics.npy, {n}/poses.npy
    Real_Raw/{NNN}/{NNN}.mp4, Real_Raw/{NNN}/raw/{NNN}_mapanything.npz
Legacy layout (rev 8822e27 and the WorldFoundry copy, spec §2.3):
    Synthetic_processed/{Scene}/{Scene}_{NNN}/intrinsics.npy, poses.npy;
    GT video Synthetic_videos/{SceneWithoutUnderscores}{n}.mp4
    Real_Raw/{NNN}/{NNN}.mp4, {NNN}-intrinsics.json, timestamps.txt

GT frame counts follow run_eval.py: the number of RGB{n} images, or the mp4's
CAP_PROP_FRAME_COUNT (legacy real: the non-empty lines of timestamps.txt).
"""

import dataclasses
import json
import pathlib
import re
from typing import Optional, Tuple

import numpy as np

from benchmarks.common.errors import InputError
from benchmarks.common import input_digest
from benchmarks.memobench import frame_order
from benchmarks.memobench import phase_sheets
from metrics.camera import gt_poses
from metrics.video import frames as frames_lib

SYNTHETIC = "synthetic"
REAL = "real"
SYNTHETIC_SHEET_STEM = "Synthetic_processed/Synthetic_ExitReenter"
REAL_SHEET_STEM = "Real_Raw/Real_ExitReenter"
REAL_SELECTION_STEM = "Real_Selected"
OFFICIAL_CLIP_COUNTS = {SYNTHETIC: 196, REAL: 164}  # spec §2.5: 360 clips

_CLIP_RE = re.compile(r"^(.+)_(\d+)$")


@dataclasses.dataclass(frozen=True)
class GroundTruth:
    """What the evaluation needs of one clip's ground truth."""

    clip_id: str
    split: str
    scene: str
    source: pathlib.Path      # a folder of GT frames or a GT video
    gt_total: int             # the scaling denominator of the phase mapping
    h_gt: int
    r_gt: int
    prompt: str
    intrinsics: Tuple[float, float, float, float]  # fx, fy, cx, cy (GT image pixels)
    layout: str               # "current" or "legacy"
    pose_candidates: Tuple[pathlib.Path, ...] = ()  # GT pose files, upstream's order
    camera_files: Tuple[pathlib.Path, ...] = ()  # the intrinsics (and count) files read
    notes: Tuple[str, ...] = ()  # what is odd about its phase-sheet row (kept as upstream)

    @property
    def fx(self) -> float:
        return self.intrinsics[0]

    @property
    def fy(self) -> float:
        return self.intrinsics[1]


def resolve_data_root(path: pathlib.Path) -> pathlib.Path:
    """Accepts MemoBench's `data/` folder or the MemoBench checkout that contains it."""
    if not path.is_dir():
        raise InputError(path, "the MemoBench data folder (with Synthetic_processed/ "
                         "and/or Real_Raw/)", "no such directory")
    for root in (path, path / "data"):
        if (root / "Synthetic_processed").is_dir() or (root / "Real_Raw").is_dir():
            return root
    raise InputError(path, "a MemoBench data folder containing Synthetic_processed/ or "
                     "Real_Raw/", "neither")


def clip_number(clip_id: str) -> str:
    """'CityPark_005' -> '5' (the unpadded number of RGB5/ and 5/)."""
    m = _CLIP_RE.match(clip_id)
    return str(int(m.group(2))) if m else ""


def _load_array(path: pathlib.Path, npz_key: str) -> np.ndarray:
    """A numeric .npy array or an .npz's `npz_key`; InputError naming the file otherwise."""
    try:
        array = np.asarray(gt_poses.load_numpy_array(path, npz_key))
    except ValueError as e:
        what = f"an .npz with a numeric {npz_key!r} array" if path.suffix == ".npz" else (
            "a numeric .npy array")
        raise InputError(path, what, str(e).split(": ", 1)[-1]) from None
    if not np.issubdtype(array.dtype, np.number):
        raise InputError(path, "a numeric numpy array", f"dtype {array.dtype}")
    return array.astype(np.float64)


def _checked(path: pathlib.Path, values) -> Tuple[float, float, float, float]:
    """(fx, fy, cx, cy), or InputError unless all are finite and fx, fy > 0."""
    fx, fy, cx, cy = (float(v) for v in values)
    if not all(np.isfinite([fx, fy, cx, cy])) or fx <= 0 or fy <= 0:
        raise InputError(path, "camera intrinsics with finite fx, fy > 0, cx, cy",
                         f"fx={fx}, fy={fy}, cx={cx}, cy={cy}")
    return fx, fy, cx, cy


def _intrinsics_row(path: pathlib.Path):
    data = _load_array(path, "intrinsic")
    if data.shape == (3, 3):
        return _checked(path, (data[0, 0], data[1, 1], data[0, 2], data[1, 2]))
    row = data[0] if data.ndim == 2 and len(data) else data
    if row.ndim != 1 or row.shape[0] < 4:
        raise InputError(path, "intrinsics of shape (N, 4) [fx, fy, cx, cy]", f"shape {data.shape}")
    return _checked(path, row[:4])


def _npz_intrinsics(path: pathlib.Path):
    k = _load_array(path, "intrinsic")
    if k.ndim == 3:
        k = k[0]
    if k.shape == (3, 3):
        return _checked(path, (k[0, 0], k[1, 1], k[0, 2], k[1, 2]))
    if k.ndim == 2 and k.shape[1] == 4:
        k = k[0]
    if k.ndim == 1 and k.shape[0] >= 4:
        return _checked(path, k[:4])
    raise InputError(path, "'intrinsic' as (3,3), (N,4) or (4,)", f"shape {k.shape}")


def _json_intrinsics(path: pathlib.Path):
    try:
        cam = json.loads(path.read_text())
        cam = cam.get("camera", cam)
        values = [float(cam[k]) for k in ("fx", "fy", "cx", "cy")]
    except (ValueError, KeyError, TypeError, AttributeError) as e:
        raise InputError(path, 'intrinsics JSON {"camera": {"fx", "fy", "cx", "cy"}}',
                         f"{type(e).__name__}: {e}") from None
    return _checked(path, values)


def synthetic_ground_truth(data_root: pathlib.Path, clip_id: str,
                           row: phase_sheets.PhaseRow) -> GroundTruth:
    """Locates a synthetic clip's GT; InputError names what is missing."""
    scene = clip_id.rsplit("_", 1)[0]
    n = clip_number(clip_id)
    clip_dir = data_root / "Synthetic_processed" / scene / clip_id
    rgb_dir, intrinsics = clip_dir / f"RGB{n}", clip_dir / n / "intrinsics.npy"
    # camera_controllability.py's order: processed poses, then the raw UE5 camera CSV.
    poses = (clip_dir / n / "poses.npy", clip_dir / "poses.npy",
             clip_dir / f"camera_full{n}.csv",
             data_root / "Synthetic_Raw" / scene / "cameras" / f"camera_full{n}.csv")
    if rgb_dir.is_dir() and intrinsics.is_file():
        gt_total = len(frame_order.list_frames(rgb_dir))
        return GroundTruth(clip_id, SYNTHETIC, scene, rgb_dir, gt_total, row.h_gt, row.r_gt,
                           row.prompt, _intrinsics_row(intrinsics), "current", poses,
                           (intrinsics,))
    legacy_video = data_root / "Synthetic_videos" / f"{scene.replace('_', '')}{n}.mp4"
    legacy_intrinsics = clip_dir / "intrinsics.npy"
    if legacy_video.is_file() and legacy_intrinsics.is_file():
        return GroundTruth(clip_id, SYNTHETIC, scene, legacy_video,
                           frames_lib.video_frame_count(legacy_video), row.h_gt, row.r_gt,
                           row.prompt, _intrinsics_row(legacy_intrinsics), "legacy", poses,
                           (legacy_intrinsics,))
    raise InputError(clip_dir, f"GT frames RGB{n}/ and {n}/intrinsics.npy (current layout) "
                     f"or {legacy_video} and intrinsics.npy (legacy layout)", "neither")


def real_ground_truth(data_root: pathlib.Path, clip_id: str,
                      row: phase_sheets.PhaseRow) -> GroundTruth:
    """Locates a real clip's GT video and intrinsics; InputError names what is missing."""
    clip_dir = data_root / "Real_Raw" / clip_id
    video = clip_dir / f"{clip_id}.mp4"
    npz = clip_dir / "raw" / f"{clip_id}_mapanything.npz"
    legacy_json = clip_dir / f"{clip_id}-intrinsics.json"
    timestamps = clip_dir / "timestamps.txt"
    poses = (npz, data_root / "mapanything" / "outputs" / "real" / f"{clip_id}_mapanything.npz")
    if not video.is_file():
        raise InputError(video, "the real clip's GT video")
    if npz.is_file():
        return GroundTruth(clip_id, REAL, REAL, video, frames_lib.video_frame_count(video),
                           row.h_gt, row.r_gt, "", _npz_intrinsics(npz), "current", poses,
                           (npz,))
    if legacy_json.is_file() and timestamps.is_file():
        gt_total = sum(1 for line in timestamps.read_text().splitlines() if line.strip())
        return GroundTruth(clip_id, REAL, REAL, video, gt_total, row.h_gt, row.r_gt, "",
                           _json_intrinsics(legacy_json), "legacy", poses,
                           (legacy_json, timestamps))
    raise InputError(clip_dir, f"raw/{clip_id}_mapanything.npz (current layout) or "
                     f"{clip_id}-intrinsics.json + timestamps.txt (legacy layout)", "neither")


def reference_digest(gt: GroundTruth) -> str:
    """The resume digest of a clip's ground-truth side: the stat of every GT file its
    numbers can read (frames or video, intrinsics, poses) and its phase-sheet row."""
    frames = (frames_lib.list_frame_files(gt.source) if gt.source.is_dir() else [gt.source])
    poses = [p for p in gt.pose_candidates if p.exists()]
    return input_digest.files_digest(
        list(frames) + list(gt.camera_files) + poses,
        {"h_gt": gt.h_gt, "r_gt": gt.r_gt, "prompt": gt.prompt, "gt_total": gt.gt_total})


def load_sheets(data_root: pathlib.Path, synthetic_sheet: Optional[pathlib.Path] = None,
                real_sheet: Optional[pathlib.Path] = None):
    """(synthetic rows, real rows, (synthetic sheet, real sheet)); rows are SheetRows.

    A split whose sheet is absent has no rows. The optional Real_Selected sheet filters
    the real rows, as in run_eval.py.
    """
    syn_path = synthetic_sheet or phase_sheets.find_sheet(
        data_root / "Synthetic_processed", "Synthetic_ExitReenter")
    real_path = real_sheet or phase_sheets.find_sheet(data_root / "Real_Raw", "Real_ExitReenter")
    for given in (synthetic_sheet, real_sheet):
        if given is not None and not given.is_file():
            raise InputError(given, "a phase sheet (.xlsx, .xls or .csv)", "no such file")
    syn = phase_sheets.read_synthetic_sheet(syn_path) if syn_path else phase_sheets.SheetRows()
    real = phase_sheets.read_real_sheet(real_path) if real_path else phase_sheets.SheetRows()
    selection_path = phase_sheets.find_sheet(data_root, REAL_SELECTION_STEM)
    selection = phase_sheets.read_real_selection(selection_path) if selection_path else None
    if selection is not None:
        for clip in [k for k in real if k not in selection]:
            del real[clip]  # in place: the sheet's problems stay with its rows
    return syn, real, (syn_path, real_path)
