"""GT camera intrinsics, and rescaling them to the generated frame size.

The official CameraControllability loads K but never uses it (MapAnything
estimates its own). The weight-free backend needs K for the generated
frames: the GT intrinsics describe the GT images, so they are rescaled by the
width and height ratios of the generated frames to the GT images.
"""

import csv
import math
import pathlib
import re

import numpy as np

from metrics.camera import gt_poses

REAL_INTRINSICS_KEY = "intrinsic"
CSV_COLUMNS = ("fx", "fy", "cx", "cy")
_SIZE = re.compile(r"^\s*(\d+)\s*[xX]\s*(\d+)\s*$")


def camera_matrix(fx, fy, cx, cy):
    """3x3 pinhole matrix [[fx, 0, cx], [0, fy, cy], [0, 0, 1]]."""
    return np.array([[fx, 0.0, cx], [0.0, fy, cy], [0.0, 0.0, 1.0]],
                    dtype=np.float64)


def _check_matrix(k, path):
    """Returns k, raising ValueError unless it is a usable pinhole matrix."""
    if (k.shape != (3, 3) or not np.all(np.isfinite(k))
            or not np.allclose(k[2], [0.0, 0.0, 1.0])
            or k[0, 0] <= 0 or k[1, 1] <= 0 or k[1, 0] != 0):
        raise ValueError(
            f"{path}: expected a pinhole matrix [[fx, s, cx], [0, fy, cy], "
            f"[0, 0, 1]] with fx, fy > 0, got {k.tolist()}")
    return k


def _from_array(array, path):
    """K from (N, 4) / (4,) [fx, fy, cx, cy] rows (first row) or (3, 3)."""
    array = np.asarray(array)
    if not np.issubdtype(array.dtype, np.number):
        raise ValueError(f"{path}: non-numeric intrinsics ({array.dtype})")
    array = array.astype(np.float64)
    if array.ndim == 2 and array.shape[1] == 4 and array.shape[0] >= 1:
        k = camera_matrix(*array[0])
    elif array.shape == (4,):
        k = camera_matrix(*array)
    elif array.shape == (3, 3):
        k = array
    else:
        raise ValueError(
            f"{path}: expected intrinsics of shape (N, 4), (4,) or (3, 3), "
            f"got {array.shape}")
    return _check_matrix(k, path)


def _from_csv(path):
    """K from the fx, fy, cx, cy columns of a UE5 CSV's first data row."""
    with open(path, newline="", encoding="utf-8-sig") as handle:
        reader = csv.DictReader(handle)
        row = next(reader, None)
        missing = [c for c in CSV_COLUMNS if c not in (reader.fieldnames or [])]
    if missing or row is None:
        raise ValueError(
            f"{path}: expected a CSV with columns {', '.join(CSV_COLUMNS)} "
            "and at least one data row")
    try:
        values = [float(row[c]) for c in CSV_COLUMNS]
    except (TypeError, ValueError):
        values = [math.nan]
    if not all(map(math.isfinite, values)):
        raise ValueError(f"{path}: non-numeric intrinsics in the first row")
    return _check_matrix(camera_matrix(*values), path)


def load_intrinsics(path):
    """Loads a 3x3 K as the official loaders do.

    Args:
        path: `intrinsics.npy` ((N, 4) [fx, fy, cx, cy] per GT frame: the
            first row is used; (4,) and (3, 3) are accepted too), a
            MapAnything `.npz` (key "intrinsic", (3, 3)), or a UE5
            `camera_full{n}.csv` (fx, fy, cx, cy of the first row).

    Returns:
        (3, 3) float64 K for the GT image size.

    Raises:
        FileNotFoundError: If the file does not exist.
        ValueError: For another suffix, a missing key or a bad shape.
    """
    path = pathlib.Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"{path}: no such intrinsics file")
    suffix = path.suffix.lower()
    if suffix == ".csv":
        return _from_csv(path)
    if suffix not in (".npy", ".npz"):
        raise ValueError(
            f"{path}: expected an intrinsics .npy, .npz or UE5 .csv file")
    return _from_array(gt_poses.load_numpy_array(path, REAL_INTRINSICS_KEY),
                       path)


def parse_size(text):
    """Parses "WxH" (e.g. "1280x720") into positive ints (width, height).

    Raises:
        ValueError: Unless text is two positive integers joined by "x".
    """
    match = _SIZE.match(str(text))
    if not match or int(match.group(1)) <= 0 or int(match.group(2)) <= 0:
        raise ValueError(f"expected a size WxH such as 1280x720, got {text!r}")
    return int(match.group(1)), int(match.group(2))


def rescale(k, from_size, to_size):
    """Rescales K from one image size to another.

    fx, the skew and cx are multiplied by to_width / from_width; fy and cy by
    to_height / from_height. This treats pixel coordinates as continuous
    (it ignores the half-pixel shift between pixel-centre conventions,
    which is negligible for rotations).

    Args:
        k: (3, 3) K for images of from_size.
        from_size: (width, height) the intrinsics refer to.
        to_size: (width, height) of the target frames.

    Returns:
        (3, 3) float64 K for images of to_size.

    Raises:
        ValueError: If a size is not two positive numbers.
    """
    for size in (from_size, to_size):
        if len(size) != 2 or min(size) <= 0:
            raise ValueError(f"sizes must be (width, height) > 0, got {size}")
    sx = to_size[0] / from_size[0]
    sy = to_size[1] / from_size[1]
    return np.diag([sx, sy, 1.0]) @ np.asarray(k, dtype=np.float64)
