"""Numbers an official implementation produced outside the repository (official_runs/),
and the comparison of worldeval's tensors with them.

Format (CSV): frame, tensor, shape, stat, value; per frame and tensor the shape
("3x378x518"), `sum` and `sumsq` (float64), and `at:<flat index>` values at seeded
positions; scalars have stat `value`. Sums are compared as the mean and the RMS, so that
every compared number is on the scale of the tensor's values.
"""

import csv
from typing import Dict, List, Sequence, Tuple

import numpy as np

from benchmarks.common import paths
from tools.calibration import parity_table

Official = Dict[Tuple[int, str], List[Tuple[str, str, float]]]


def _on_value_scale(shape: str, stat: str, value: float) -> float:
    """A sum as the mean, a sum of squares as the RMS (on the scale of the values)."""
    count = int(np.prod([int(n) for n in shape.split("x")])) if shape else 1
    if stat == "sum":
        return value / count
    return float(np.sqrt(value / count)) if stat == "sumsq" else value


def read(relative: str) -> Official:
    """The stored numbers of a runfile, keyed (frame, tensor)."""
    table: Official = {}
    with open(paths.runfile(relative), newline="", encoding="utf-8") as f:
        for row in csv.DictReader(f):
            value = _on_value_scale(row["shape"], row["stat"], float(row["value"]))
            table.setdefault((int(row["frame"]), row["tensor"]), []).append(
                (row["shape"], row["stat"], value))
    return table


def stats_like(tensor, wanted) -> np.ndarray:
    """Our values of the stats in `wanted` ((shape, stat, value) rows) for `tensor`.

    Raises:
        ValueError: The tensor's shape is not the official one.
    """
    array = tensor.detach().cpu().double().numpy() if hasattr(tensor, "detach") else \
        np.asarray(tensor, dtype=np.float64)
    shape = "x".join(map(str, array.shape))
    flat = array.ravel()
    out = []
    for want_shape, stat, _ in wanted:
        if want_shape != shape:
            raise ValueError(f"shape {shape}, the official run had {want_shape}")
        raw = (flat.sum() if stat == "sum" else (flat ** 2).sum() if stat == "sumsq"
               else flat[int(stat.split(":")[1])])
        out.append(_on_value_scale(shape, stat, float(raw)))
    return np.array(out)


def compare_tensors(backend: str, check: str, name: str, ours: Sequence, official: Official,
                    what: str, **common) -> parity_table.Row:
    """The Row comparing our per-frame tensors `ours` with the official `name` numbers."""
    theirs = [np.array([v for _, _, v in official[(i, name)]]) for i in range(len(ours))]
    mine = [stats_like(t, official[(i, name)]) for i, t in enumerate(ours)]
    return parity_table.compare(
        backend, check, mine, theirs, compared=f"{name} ({what}): shape, mean, RMS and 32 "
        "values per frame vs the official run's", **common)
