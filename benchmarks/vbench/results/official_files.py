"""`{name}_eval_results.json` as VBench.evaluate writes it (vbench/__init__.py:179-192,
utils.py:386-388; spec §3), and `{name}_full_info.json` from a ready entry list.

eval_results: `{dimension: [aggregate, [per-video dict, ...]]}`, the dimensions in the
order requested, each dict `{"video_path", "video_results", <extras in upstream's order>}`
(aggregate.DECLARATIONS), video_results a JSON bool for dynamic_degree and human_action,
written as upstream's `save_json` does: `json.dump(data, f, indent=4)` into a UTF-8 file
(no newline at the end), whole or not at all (sample_store.atomic_file). Upstream writes
NaN where np.mean([]) gives it; a dimension with no video is left out here instead
(aggregate.NoVideos), and cal_final_score.py then counts it as 0, as it does any absent one.
"""

import dataclasses
import json
import math
import pathlib
from typing import Dict, List, Mapping, Sequence, Tuple

import numpy as np

from benchmarks.common import sample_store
from benchmarks.vbench import metric_specs
from benchmarks.vbench.results import aggregate as aggregate_lib


# The order upstream evaluates and writes the dimensions in when none are named
# (vbench/__init__.py:18-19 build_full_dimension_list); named ones keep the order given.
DEFAULT_ORDER = ("subject_consistency", "background_consistency", "aesthetic_quality",
                 "imaging_quality", "object_class", "multiple_objects", "color",
                 "spatial_relationship", "scene", "temporal_style", "overall_consistency",
                 "human_action", "temporal_flickering", "motion_smoothness", "dynamic_degree",
                 "appearance_style")


@dataclasses.dataclass(frozen=True)
class DimensionResult:
    """One dimension's entry: its aggregate and its official list, in order."""

    dimension: str
    aggregate: float
    rows: Sequence[aggregate_lib.VideoRow]


def _number(value, where: str):
    """An int stays an int (upstream's 0 and 1 frame scores), anything else a float."""
    if isinstance(value, bool):
        raise ValueError(f"{where}: {value!r} is a bool, expected a number")
    if isinstance(value, (int, np.integer)):
        return int(value)
    value = float(value)
    if not math.isfinite(value):
        raise ValueError(f"{where}: {value!r} is not finite")
    return value


def _typed(kind: str, value, where: str):
    if kind == aggregate_lib.INT:
        number = _number(value, where)
        if number != int(number):
            raise ValueError(f"{where}: {value!r} is not an integer")
        return int(number)
    if kind == aggregate_lib.FLOAT:
        return float(_number(value, where))
    if kind == aggregate_lib.FLOAT_LIST:
        return [float(_number(v, where)) for v in value]
    if kind == aggregate_lib.NUMBER_LIST:
        return [_number(v, where) for v in value]
    raise ValueError(f"{where}: unknown extra type {kind!r}")


def video_dict(dimension: str, row: aggregate_lib.VideoRow) -> dict:
    """The official per-video dict of `row` for `dimension`, keys in upstream's order."""
    declared = aggregate_lib.DECLARATIONS[dimension]
    where = f"{row.video_path} ({dimension})"
    value = row.value(dimension)
    if declared.video_type is bool:
        if value not in (0, 1):
            raise ValueError(f"{where}: video_results {value!r} is not a bool (1.0 / 0.0)")
        video_results = bool(value)
    else:
        video_results = float(_number(value, where))
    out = {"video_path": row.video_path, "video_results": video_results}
    for key, kind in declared.extras:
        out[key] = _typed(kind, row.extra(dimension, key), f"{where} {key}")
    return out


def eval_results(results: Sequence[DimensionResult]) -> Dict[str, list]:
    """The eval_results.json object, the dimensions in the order given."""
    out: Dict[str, list] = {}
    for result in results:
        if result.dimension not in aggregate_lib.DECLARATIONS:
            raise ValueError(f"{result.dimension}: not a VBench dimension")
        if not math.isfinite(result.aggregate):
            raise ValueError(f"{result.dimension}: aggregate {result.aggregate!r} is not "
                             "finite")
        out[result.dimension] = [float(result.aggregate),
                                 [video_dict(result.dimension, row)
                                  for row in aggregate_lib.scored(result.dimension,
                                                                  result.rows)]]
    return out


def from_rows(dimensions: Sequence[str], rows: Sequence[aggregate_lib.VideoRow]
              ) -> Tuple[List[DimensionResult], Dict[str, str]]:
    """Each requested dimension's entry from the rows (aggregate.aggregate); the
    dimensions without one, with why (a dimension with no video)."""
    results, reasons = [], {}
    for d in dimensions:
        try:
            results.append(DimensionResult(d, aggregate_lib.aggregate(d, rows), rows))
        except aggregate_lib.NoVideos as e:
            reasons[d] = str(e)
    return results, reasons


def _dump(path: pathlib.Path, data) -> pathlib.Path:
    with sample_store.atomic_file(path) as f:
        json.dump(data, f, indent=4)   # utils.py:386-388 save_json
    return path


def write_eval_results(out_dir: pathlib.Path, name: str,
                       results: Sequence[DimensionResult]) -> pathlib.Path:
    """`{out_dir}/{name}_eval_results.json`."""
    return _dump(pathlib.Path(out_dir) / metric_specs.EVAL_RESULTS_JSON.format(name=name),
                 eval_results(results))


def write_full_info(out_dir: pathlib.Path, name: str,
                    entries: Sequence[Mapping[str, object]]) -> pathlib.Path:
    """`{out_dir}/{name}_full_info.json` of a ready entry list (suite/layout builds it)."""
    return _dump(pathlib.Path(out_dir) / metric_specs.FULL_INFO_JSON.format(name=name),
                 list(entries))
