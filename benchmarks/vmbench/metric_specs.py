"""VMBench's metric table: the five per-video metrics (spec §4) and the two Totals (§5).

Each metric is declared once: id (the official results.json key), unit, direction, the
family and backends (official first) and the official files that carry it. Scorecard
values are on scores.csv's scale: the mean over the videos that have the key, x100 (PAS:
its raw, unbounded mean x100). Two Totals are derived from them: `total_score`, the
official Total of calculate_score.py (PAS dropped by its key typo), and
`total_score_corrected`, the mean of all five as the README's table intends.
"""

import difflib

from benchmarks.common.errors import InputError
from benchmarks.common.metric_table import MetricTable
from benchmarks.common.scorecard import MetricSpec
from benchmarks.vmbench import official_scores as scores

RESULTS_JSON, SCORES_CSV = "results.json", "scores.csv"
_MEAN = "statistics.mean over the videos having the key, x100 (calculate_score.py)"

# Backend names (the first of each metric is the official one).
PAS_OFFICIAL = "groundingdino-swinb + sam-v1-vit-h + cotracker3-offline"
PAS_LK = "opencv-lk-grid"
TCS_OFFICIAL = "groundingdino-swinb + sam2.1-hiera-large + cotracker3-offline"
TCS_GIVEN = "given-tracks-and-masks"
CAS_OFFICIAL = "videomae-v2-vit-g14-5cls"  # metrics/videomae/classifier.BACKEND_NAME
CAS_AS_SHIPPED = CAS_OFFICIAL + " (random init, as shipped)"


def _metric(metric_id, name, family, backends, unit="0-100", in_csv=True):
    return MetricSpec(metric_id, name, unit, True, True, _MEAN, official_column=metric_id,
                      step="per_video", family=family, backends=tuple(backends),
                      output_files=(RESULTS_JSON, SCORES_CSV) if in_csv else (RESULTS_JSON,))


PER_VIDEO = (
    # Not in scores.csv: calculate_score.py looks for 'perceptible_amplitude_socre'.
    _metric(scores.PAS, "Perceptible Amplitude Score", "pas", (PAS_OFFICIAL, PAS_LK),
            unit="x100 (raw, unbounded)", in_csv=False),
    _metric(scores.OIS, "Object Integrity Score", "ois", ("rtmdet-m + rtmpose-m",)),
    _metric(scores.TCS, "Temporal Coherence Score", "tcs", (TCS_OFFICIAL, TCS_GIVEN)),
    _metric(scores.CAS, "Commonsense Adherence Score", "cas", (CAS_OFFICIAL, CAS_AS_SHIPPED)),
    _metric(scores.MSS, "Motion Smoothness Score", "mss", ("q-align-one-align",)),
)
TOTAL = "total_score"
TOTAL_CORRECTED = "total_score_corrected"
TOTALS = (
    MetricSpec(TOTAL, "Total Score (official calculate_score.py)", "0-100", True, False,
               "statistics.mean of the metric means present, x100; PAS is never among "
               "them (key typo 'perceptible_amplitude_socre')",
               official_column=scores.TOTAL_ROW, step="aggregate", family="aggregate",
               backends=("calculate_score.py",), output_files=(SCORES_CSV,)),
    MetricSpec(TOTAL_CORRECTED, "Total Score, corrected (mean of all five)", "0-100", True,
               False, "mean of the five metric means, each x100 (the README table's Avg)",
               step="aggregate", family="aggregate", backends=("calculate_score.py, typo "
                                                               "repaired",)),
)

TABLE = MetricTable("VMBench", PER_VIDEO + TOTALS)
BY_ID = TABLE.by_id
PER_VIDEO_IDS = tuple(spec.id for spec in PER_VIDEO)
# --metrics takes these short names too (the issue's --metrics=pas,ois,tcs,cas,mss).
SHORT = {"pas": scores.PAS, "ois": scores.OIS, "tcs": scores.TCS, "cas": scores.CAS,
         "mss": scores.MSS}


def select(requested):
    """Per-video metric ids for --metrics (short names or ids); InputError with
    "did you mean" for unknown ones."""
    if not requested:
        return list(PER_VIDEO_IDS)
    ids = [SHORT.get(m.lower(), m) for m in requested]
    for metric in ids:
        close = difflib.get_close_matches(metric.lower(), SHORT, n=1, cutoff=0.6)
        if metric not in TABLE.by_id and close:
            raise InputError("--metrics", "VMBench metrics: " + ", ".join(SHORT) + " (or "
                             "their ids: " + ", ".join(PER_VIDEO_IDS) + ")",
                             f"{metric} (did you mean {close[0]}?)")
    chosen = TABLE.select(ids)
    return [m for m in PER_VIDEO_IDS if m in chosen]
