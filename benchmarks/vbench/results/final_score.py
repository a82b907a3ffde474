"""VBench's Quality, Semantic and Total scores (scripts/constant.py, scripts/cal_final_score.py;
spec §7, quirk 15).

Each dimension's aggregate is normalised as `(x - Min) / (Max - Min)`, then multiplied by
its weight, with no clipping (constant.py:64-81, cal_final_score.py:42-50). Quality is the
sum over the 7 quality dimensions / Σ their weights (6.5: dynamic_degree weighs 0.5),
Semantic the sum over the 9 semantic ones / 9, Total `(4·Quality + 1·Semantic) / 5`
(cal_final_score.py:52-67). Sums run in constant.py's QUALITY_LIST / SEMANTIC_LIST order
(builtin `sum`), so the values are the script's to the last bit.

Two entry points:
  - `ours`: a score is None, with the dimensions it lacks, unless all its dimensions are
    given (the scorecard's quality_score / semantic_score / total_score);
  - `cal_final_score`: as the script computes it, an absent dimension counting as 0
    (cal_final_score.py:37-39), which is negative where Min > 0 (the
    cal_final_score_* metrics: comparable with the script's printout only).
"""

import dataclasses
from typing import Dict, Mapping, Optional, Tuple


@dataclasses.dataclass(frozen=True)
class Normalisation:
    low: float      # constant.py NORMALIZE_DIC "Min"
    high: float     # "Max"
    weight: float   # DIM_WEIGHT


# constant.py:32-49 (DIM_WEIGHT) and :64-81 (NORMALIZE_DIC), in TASK_INFO's order.
NORMALISATION: Dict[str, Normalisation] = {
    "subject_consistency": Normalisation(0.1462, 1.0, 1),
    "background_consistency": Normalisation(0.2615, 1.0, 1),
    "temporal_flickering": Normalisation(0.6293, 1.0, 1),
    "motion_smoothness": Normalisation(0.706, 0.9975, 1),
    "dynamic_degree": Normalisation(0.0, 1.0, 0.5),
    "aesthetic_quality": Normalisation(0.0, 1.0, 1),
    "imaging_quality": Normalisation(0.0, 1.0, 1),
    "object_class": Normalisation(0.0, 1.0, 1),
    "multiple_objects": Normalisation(0.0, 1.0, 1),
    "human_action": Normalisation(0.0, 1.0, 1),
    "color": Normalisation(0.0, 1.0, 1),
    "spatial_relationship": Normalisation(0.0, 1.0, 1),
    "scene": Normalisation(0.0, 0.8222, 1),
    "appearance_style": Normalisation(0.0009, 0.2855, 1),
    "temporal_style": Normalisation(0.0, 0.364, 1),
    "overall_consistency": Normalisation(0.0, 0.364, 1),
}
# The summation orders (constant.py:100-119 QUALITY_LIST, SEMANTIC_LIST): dynamic_degree
# last among the quality dimensions, appearance before temporal style.
QUALITY_ORDER = ("subject_consistency", "background_consistency", "temporal_flickering",
                 "motion_smoothness", "aesthetic_quality", "imaging_quality", "dynamic_degree")
SEMANTIC_ORDER = ("object_class", "multiple_objects", "human_action", "color",
                  "spatial_relationship", "scene", "appearance_style", "temporal_style",
                  "overall_consistency")
QUALITY_WEIGHT = 4   # constant.py:95-96
SEMANTIC_WEIGHT = 1


def official_key(dimension: str) -> str:
    """The key cal_final_score.py files a dimension under (`key.replace('_', ' ')`)."""
    return dimension.replace("_", " ")


def normalised(dimension: str, value: float) -> float:
    """(value - Min) / (Max - Min), times the weight; not clipped."""
    n = NORMALISATION[dimension]
    score = (value - n.low) / (n.high - n.low)
    return score * n.weight


def _group(order: Tuple[str, ...], values: Mapping[str, float]) -> float:
    return (sum([normalised(d, values[d]) for d in order])
            / sum([NORMALISATION[d].weight for d in order]))


def _total(quality: float, semantic: float) -> float:
    return ((quality * QUALITY_WEIGHT + semantic * SEMANTIC_WEIGHT)
            / (QUALITY_WEIGHT + SEMANTIC_WEIGHT))


@dataclasses.dataclass(frozen=True)
class Scores:
    """quality / semantic / total; None where `missing` names the absent dimensions."""

    quality: Optional[float]
    semantic: Optional[float]
    total: Optional[float]
    missing: Mapping[str, Tuple[str, ...]] = dataclasses.field(default_factory=dict)

    def as_dict(self) -> Dict[str, Optional[float]]:
        return {"quality": self.quality, "semantic": self.semantic, "total": self.total}


def ours(aggregates: Mapping[str, float]) -> Scores:
    """Each score only when all its dimensions are in `aggregates` (keyed by dimension)."""
    absent_q = tuple(d for d in QUALITY_ORDER if d not in aggregates)
    absent_s = tuple(d for d in SEMANTIC_ORDER if d not in aggregates)
    quality = None if absent_q else _group(QUALITY_ORDER, aggregates)
    semantic = None if absent_s else _group(SEMANTIC_ORDER, aggregates)
    total = None if quality is None or semantic is None else _total(quality, semantic)
    missing = {name: absent for name, absent in (("quality", absent_q),
                                                  ("semantic", absent_s),
                                                  ("total", absent_q + absent_s)) if absent}
    return Scores(quality, semantic, total, missing)


def cal_final_score(aggregates: Mapping[str, float]) -> Scores:
    """As cal_final_score.py prints them: an absent dimension counts as 0 (`missing` lists
    which were absent; the scores are numbers all the same)."""
    filled = {d: aggregates.get(d, 0) for d in NORMALISATION}
    quality = _group(QUALITY_ORDER, filled)
    semantic = _group(SEMANTIC_ORDER, filled)
    absent = tuple(d for d in NORMALISATION if d not in aggregates)
    return Scores(quality, semantic, _total(quality, semantic),
                  {"total": absent} if absent else {})
