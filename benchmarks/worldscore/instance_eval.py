"""One instance's evaluation.json entries from its metric outcomes, as process_batch
builds them (spec §4, §5.4), for a runner to write with official_json.write_evaluation.

Order: the keys of an evaluation.json already there first (the official defaultdict is
filled from it before the metrics run), then the evaluator's aspect list with each
aspect's metrics in aspect_info order. content_alignment is skipped when camera_path[0]
is an intra layout. A metric that raised gets the official fallback (score -100 or +100,
score_normalized 0); for camera_error and motion_smoothness the official job crashes
there instead, so the metric is left out and an error names it.
"""

from typing import Dict, List, Mapping, Optional, Sequence, Tuple

from benchmarks.worldscore import aspects
from benchmarks.worldscore import normalize
from benchmarks.worldscore import official_json

Key = Tuple[str, str]


def skipped(movement: str, camera_path: Sequence[str]) -> Dict[Key, str]:
    """The metrics the official evaluator skips for this instance, with why."""
    if movement != aspects.STATIC or not camera_path:
        return {}
    if aspects.LAYOUT_TYPES.get(camera_path[0]) != "intra":
        return {}
    return {(a, m.name): f"skipped for the intra layout {camera_path[0]} (camera_path[0])"
            for a in aspects.SKIPPED_FOR_INTRA for m in aspects.BY_NAME[a].metrics}


def entries(movement: str, camera_path: Sequence[str], outcomes: Mapping[Key, object],
            existing: Optional[official_json.Entries] = None
            ) -> Tuple[official_json.Entries, List[str]]:
    """(entries, errors). `outcomes` maps (aspect, metric) to the raw score, or to the
    exception the metric raised; metrics not in it were not computed and stay out
    (an existing entry is kept, as the official evaluator keeps it)."""
    result: official_json.Entries = dict(existing or {})
    errors = []
    skip = skipped(movement, camera_path)
    for aspect in aspects.ASPECTS_OF[movement]:
        for metric in aspects.BY_NAME[aspect].metrics:
            key = (aspect, metric.name)
            if key in skip or key not in outcomes:
                continue
            outcome = outcomes[key]
            if isinstance(outcome, BaseException):
                try:
                    result[key] = normalize.failure_score(metric)
                except normalize.FallbackCrash as e:
                    errors.append(f"{aspect}.{metric.name}: {type(outcome).__name__}: "
                                  f"{outcome}; {e}")
                continue
            result[key] = (outcome, normalize.normalize(metric, outcome))
    return result, errors
