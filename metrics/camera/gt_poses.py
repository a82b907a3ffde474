"""Ground-truth camera poses for the rotation-ATE camera score (spec §4.5).

Where the official code looks, relative to the dataset's `data/` folder
(`{n}` is the clip number without padding, `NNN` the real clip id):

  Synthetic (clip dir `Synthetic_processed/{Scene}/{Scene}_{NNN}`):
    1. `{clip dir}/{n}/poses.npy`       (N, 4, 4) c2w, OpenCV camera axes
    2. `{clip dir}/poses.npy`           (legacy layout)
    3. `{clip dir}/camera_full{n}.csv`  raw UE5 track, see ue5_csv_to_c2w
  Real:
    1. `Real_Raw/{NNN}/raw/{NNN}_mapanything.npz`, key "cam_c2w"
    2. `mapanything/outputs/real/{NNN}_mapanything.npz` (legacy copy)

The official code returns None when nothing is found; here a
FileNotFoundError lists every path tried. GT poses are resampled uniformly
over the whole clip to the generated frame count (phases are ignored).
"""

import csv
import math
import os
import pathlib
import re
import zipfile

import numpy as np

from metrics.video import sampling

UE5_ROTATION_COLUMNS = ("rot_x", "rot_y", "rot_z")
UE5_LOCATION_COLUMNS = ("loc_x", "loc_y", "loc_z")
REAL_POSES_KEY = "cam_c2w"
FLIP_YZ = np.diag([1.0, -1.0, -1.0, 1.0])


def rotation_x_lh(angle):
    """UE5 'left-handed' rotation about x, as the official code writes it."""
    c, s = math.cos(angle), math.sin(angle)
    return np.array([[1.0, 0.0, 0.0], [0.0, c, s], [0.0, -s, c]])


def rotation_y_lh(angle):
    """UE5 'left-handed' rotation about y, as the official code writes it."""
    c, s = math.cos(angle), math.sin(angle)
    return np.array([[c, 0.0, -s], [0.0, 1.0, 0.0], [s, 0.0, c]])


def rotation_z_lh(angle):
    """UE5 'left-handed' rotation about z, as the official code writes it."""
    c, s = math.cos(angle), math.sin(angle)
    return np.array([[c, s, 0.0], [-s, c, 0.0], [0.0, 0.0, 1.0]])


def ue5_row_to_c2w(rot_x, rot_y, rot_z, loc_x, loc_y, loc_z):
    """One UE5 camera sample as a 4x4 c2w ("c2w_ue @ flip_yz").

    The angles go straight into cos/sin, i.e. they are taken as radians,
    exactly as the official code does (no degree conversion).

    Returns:
        `[Rz_LH(rot_z) @ Ry_LH(rot_y) @ Rx_LH(rot_x) | loc] @ diag(1,-1,-1,1)`.
    """
    c2w_ue = np.eye(4)
    c2w_ue[:3, :3] = (rotation_z_lh(rot_z) @ rotation_y_lh(rot_y)
                      @ rotation_x_lh(rot_x))
    c2w_ue[:3, 3] = [loc_x, loc_y, loc_z]
    return c2w_ue @ FLIP_YZ


def ue5_csv_to_c2w(path):
    """Converts a UE5 camera CSV (`camera_full{n}.csv`) to (N, 4, 4) c2w.

    Args:
        path: CSV with a header row holding at least the columns rot_x,
            rot_y, rot_z, loc_x, loc_y, loc_z (other columns are ignored).

    Returns:
        (N, 4, 4) float64 poses, one per data row (see ue5_row_to_c2w).

    Raises:
        FileNotFoundError: If the file does not exist.
        ValueError: If a column is missing, a value is not a finite number,
            or there are no data rows.
    """
    path = pathlib.Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"{path}: no UE5 camera CSV there")
    columns = UE5_ROTATION_COLUMNS + UE5_LOCATION_COLUMNS
    with open(path, newline="", encoding="utf-8-sig") as handle:
        reader = csv.DictReader(handle)
        missing = [c for c in columns if c not in (reader.fieldnames or [])]
        if missing:
            raise ValueError(
                f"{path}: missing UE5 camera column(s) {', '.join(missing)}; "
                f"header is {reader.fieldnames}")
        poses = []
        for row in reader:
            try:
                values = [float(row[c]) for c in columns]
            except (TypeError, ValueError):
                values = None
            if values is None or not all(map(math.isfinite, values)):
                raise ValueError(
                    f"{path}: data row {len(poses) + 1} has a non-numeric "
                    f"camera value: {[row.get(c) for c in columns]}")
            poses.append(ue5_row_to_c2w(*values))
    if not poses:
        raise ValueError(f"{path}: no data rows")
    return np.stack(poses)


def _check_poses(poses, path):
    """Returns poses as float64, raising ValueError unless finite (N, 4, 4)."""
    poses = np.asarray(poses)
    if poses.ndim != 3 or poses.shape[1:] != (4, 4) or poses.shape[0] < 1:
        raise ValueError(
            f"{path}: expected camera poses of shape (N, 4, 4), got "
            f"{poses.shape}")
    if not np.issubdtype(poses.dtype, np.number):
        raise ValueError(f"{path}: poses have non-numeric dtype {poses.dtype}")
    poses = poses.astype(np.float64)
    if not np.all(np.isfinite(poses)):
        raise ValueError(f"{path}: poses hold NaN or infinite values")
    return poses


def load_pose_file(path):
    """Loads (N, 4, 4) c2w poses from a .npy, .npz ("cam_c2w") or UE5 .csv.

    Raises:
        FileNotFoundError: If the file does not exist.
        ValueError: For another suffix, a missing npz key, a wrong shape or
            an unreadable file.
    """
    path = pathlib.Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"{path}: no such pose file")
    suffix = path.suffix.lower()
    if suffix == ".csv":
        return ue5_csv_to_c2w(path)
    if suffix not in (".npy", ".npz"):
        raise ValueError(
            f"{path}: expected a .npy, .npz or UE5 .csv pose file")
    poses = load_numpy_array(path, REAL_POSES_KEY)
    return _check_poses(poses, path)


def load_numpy_array(path, npz_key):
    """Reads a .npy array, or the array `npz_key` of a .npz file.

    Raises:
        ValueError: If the file is unreadable or the key is missing.
    """
    try:
        loaded = np.load(path, allow_pickle=False)
        if not isinstance(loaded, np.lib.npyio.NpzFile):
            return loaded
        with loaded:
            keys = sorted(loaded.files)
            array = loaded[npz_key] if npz_key in keys else None
    except (OSError, EOFError, zipfile.BadZipFile, ValueError) as e:
        # numpy's own text for an object array suggests allow_pickle: never do that
        # (a pickle runs code), so say what the file holds instead.
        why = ("it holds pickled Python objects, not a numeric array"
               if "pickle" in str(e) else f"{type(e).__name__}: {e}")
        raise ValueError(f"{path}: not a readable numpy file ({why})") from None
    if array is None:
        raise ValueError(f"{path}: no '{npz_key}' array (keys: {keys})")
    return array


def resample_poses(poses, num_frames):
    """Picks num_frames GT poses spread uniformly over the whole clip.

    Equal lengths return the poses unchanged (as the official code does);
    otherwise index i is `round(i * (N_gt - 1) / (num_frames - 1))`, Python
    (half-to-even) rounding, via metrics.video.sampling.resample_to_length.
    For num_frames == 1 that helper gives [0] where the official code divides
    by zero; the metric needs 2 frames either way.

    Raises:
        ValueError: If poses is empty or num_frames is not positive.
    """
    if len(poses) == 0:
        raise ValueError("no GT poses to resample")
    if len(poses) == num_frames:
        return poses
    return poses[sampling.resample_to_length(len(poses), num_frames)]


def clip_number(clip_id):
    """Clip number of a synthetic clip id: "Barnyard_007" -> 7.

    Raises:
        ValueError: If clip_id does not end in "_<digits>".
    """
    match = re.search(r"_(\d+)$", str(clip_id))
    if not match:
        raise ValueError(f"cannot parse a clip number from {clip_id!r}")
    return int(match.group(1))


def synthetic_pose_candidates(clip_dir, clip_id=None):
    """Paths tried, in order, for a synthetic clip's GT poses.

    Args:
        clip_dir: `.../Synthetic_processed/{Scene}/{Scene}_{NNN}`.
        clip_id: `{Scene}_{NNN}`; defaults to the folder name.
    """
    clip_dir = pathlib.Path(clip_dir)
    n = clip_number(clip_id or clip_dir.name)
    return [clip_dir / str(n) / "poses.npy", clip_dir / "poses.npy",
            clip_dir / f"camera_full{n}.csv"]


def real_pose_candidates(data_dir, clip_id):
    """Paths tried, in order, for a real clip's GT poses.

    Args:
        data_dir: The dataset's `data/` folder.
        clip_id: Zero-padded id such as "001".
    """
    data_dir = pathlib.Path(data_dir)
    name = f"{clip_id}_mapanything.npz"
    return [data_dir / "Real_Raw" / clip_id / "raw" / name,
            data_dir / "mapanything" / "outputs" / "real" / name]


def _load_first(candidates):
    """Loads the first existing candidate, else FileNotFoundError."""
    for path in candidates:
        if os.path.exists(path):
            return load_pose_file(path)
    tried = ", ".join(str(p) for p in candidates)
    raise FileNotFoundError(f"no GT camera poses found; tried {tried}")


def load_synthetic_gt_poses(clip_dir, num_frames, clip_id=None):
    """GT c2w of a synthetic clip, resampled to num_frames (float64)."""
    poses = _load_first(synthetic_pose_candidates(clip_dir, clip_id))
    return resample_poses(poses, num_frames)


def load_real_gt_poses(data_dir, clip_id, num_frames):
    """GT c2w (MapAnything) of a real clip, resampled to num_frames."""
    poses = _load_first(real_pose_candidates(data_dir, clip_id))
    return resample_poses(poses, num_frames)
