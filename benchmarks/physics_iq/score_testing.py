"""Synthetic Physics-IQ metrics rows for the scoring tests (test-only).

A recipe (a dict stored in testdata/*_official.json) names a seed, a scenario count, frame
counts and a kind; `rows(recipe)` rebuilds the same rows with Python's `random.Random`
(stable across Python and numpy versions), and `csv_text(recipe)` the CSV that was fed to
the official scripts in the scratch run (its sha256 is stored beside the recipe). Kinds:
  - "typical": IoUs in [0, 1] (frame 0 = 1.0), float32-valued MSEs, scalars in [0, 1];
  - "rounding": per-frame values at 4-dp rounding edges (x.xxxx5, 1e-05) and scalars with
    5th-6th decimals that move pvSP's 5-dp rounding;
  - "mid": as typical with physical-variance IoUs in [0.7, 1] (a score inside (0, 100));
  - "high": the model beats the physical variance (raw score > 100, clamped);
  - "low": a huge model MSE (raw score < 0, clamped).
`drop` lists columns removed from the CSV (and the keys removed from the rows).
"""

import csv
import io
import random
import struct
from typing import Dict, List, Mapping

from benchmarks.physics_iq import csv_file
from benchmarks.physics_iq.csv_file import KEYS, LIST_KEYS, VIEWS, ScenarioRow

_EDGES = (0.12345, 0.00005, 0.99995, 1e-05, 2.5e-05, 0.33335, 0.44445, 0.5555500000000001,
          0.00015, 0.0001499999, 0.87655, 0.10005, 0.65425, 0.0, 1.0)


def _f32(x: float) -> float:
    return struct.unpack("f", struct.pack("f", x))[0]


def _value(rng: random.Random, kind: str, key: str, frame: int) -> float:
    variance = key.startswith("variance")
    mse = key.endswith("mse")
    if kind == "rounding":
        edge = rng.choice(_EDGES)
        if mse:
            return edge * 0.1
        return edge if key in LIST_KEYS else round(rng.random(), 6)
    if mse:
        scale = {"high": 1e-4 if not variance else 0.02, "low": 0.01 if variance else 5.0}
        return _f32(rng.random() * scale.get(kind, 0.05))
    if key in LIST_KEYS and frame == 0:
        return 1.0  # the all-zero first mask frame: empty union, IoU 1.0 (spec §11.3)
    if kind == "high":
        return 0.05 + 0.1 * rng.random() if variance else 0.8 + 0.2 * rng.random()
    if kind == "mid" and variance:
        return 0.7 + 0.3 * rng.random()
    return rng.random()


def _frames(recipe: Mapping, index: int) -> int:
    frames = recipe["frames"]
    return frames[index % len(frames)] if isinstance(frames, list) else frames


def rows(recipe: Mapping) -> List[ScenarioRow]:
    rng = random.Random(recipe["seed"])
    out = []
    for i in range(recipe["scenarios"]):
        n = _frames(recipe, i)
        views: Dict[str, Dict[str, object]] = {}
        for view in VIEWS:
            views[view] = {
                key: ([_value(rng, recipe["kind"], key, t) for t in range(n)]
                      if key in LIST_KEYS else _value(rng, recipe["kind"], key, -1))
                for key in KEYS}
        out.append(ScenarioRow(f"trimmed-synthetic-{i:02d}.mp4", views))
    return out


def dropped_rows(recipe: Mapping) -> List[ScenarioRow]:
    """rows(recipe) without the keys of the recipe's dropped columns."""
    drop = set(recipe.get("drop", ()))
    return [ScenarioRow(row.scenario, {
        view: {k: v for k, v in values.items() if csv_file.column(k, view) not in drop}
        for view, values in row.views.items()}) for row in rows(recipe)]


def csv_text(recipe: Mapping, tmp_path) -> str:
    """The CSV fed to upstream: write_csv's text, minus the recipe's dropped columns."""
    path = tmp_path / "recipe.csv"
    csv_file.write_csv(path, rows(recipe))
    text = path.read_text(encoding="utf-8")
    drop = set(recipe.get("drop", ()))
    if not drop:
        return text
    records = list(csv.reader(io.StringIO(text)))
    keep = [i for i, name in enumerate(records[0]) if name not in drop]
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerows([[r[i] for i in keep] for r in records])
    return buffer.getvalue()
