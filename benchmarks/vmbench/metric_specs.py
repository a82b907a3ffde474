"""VMBench's metric table: the five per-video metrics (spec §4) and the two Totals (§5).

Each metric is declared once: id (the official results.json key), unit, direction, the
family and backends (official first) and the official files that carry it. Scorecard
values are on scores.csv's scale: the mean over the videos that have the key, x100 (PAS:
its raw, unbounded mean x100). Two Totals are derived from them: `total_score`, the
official Total of calculate_score.py (PAS dropped by its key typo), and
`total_score_corrected`, the mean of all five as the README's table intends.
"""

from benchmarks.common.metric_table import TABLE_ORDER
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


def _metric(metric_id, name, family, backends, unit="0-100", in_csv=True,
            official_range=(0.0, 1.0), nominal_range=None):
    return MetricSpec(metric_id, name, unit, True, True, _MEAN, official_column=metric_id,
                      step="per_video", family=family, backends=tuple(backends),
                      output_files=(RESULTS_JSON, SCORES_CSV) if in_csv else (RESULTS_JSON,),
                      official_range=official_range, nominal_range=nominal_range)


# Ranges are results.json's per-video values (0-1; scores.csv holds them x100), from the
# official arithmetic (spec §4, §5):
PER_VIDEO = (
    # Not in scores.csv: calculate_score.py looks for 'perceptible_amplitude_socre'.
    # PAS: a mean path length over the frame diagonal, >= 0, unbounded, unclipped (§4.1).
    _metric(scores.PAS, "Perceptible Amplitude Score", "pas", (PAS_OFFICIAL, PAS_LK),
            unit="x100 (raw, unbounded)", in_csv=False, official_range=(0.0, None)),
    # OIS: 0.5 length_score + 0.5 angle_score, each normal parts / all, in [0, 1] (§4.2).
    _metric(scores.OIS, "Object Integrity Score", "ois", ("rtmdet-m + rtmpose-m",)),
    # TCS: the mean of (objects - counted events) / objects for vanish and emerge: at most
    # 1, nominally >= 0, but an object that vanishes twice counts twice, so it "can be
    # negative in theory with repeated events" (§4.3): kept, with a warning.
    _metric(scores.TCS, "Temporal Coherence Score", "tcs", (TCS_OFFICIAL, TCS_GIVEN),
            official_range=(None, 1.0), nominal_range=(0.0, 1.0)),
    # CAS: sum_k p_k w_k, w = 0..1, an expected ordinal rating in [0, 1] (§4.4).
    _metric(scores.CAS, "Commonsense Adherence Score", "cas", (CAS_OFFICIAL, CAS_AS_SHIPPED)),
    # MSS: 1 - artifact frames / T, in [0, 1] (§4.5).
    _metric(scores.MSS, "Motion Smoothness Score", "mss", ("q-align-one-align",)),
)
TOTAL = "total_score"
TOTAL_CORRECTED = "total_score_corrected"
TOTALS = (
    MetricSpec(TOTAL, "Total Score (official calculate_score.py)", "0-100", True, False,
               "statistics.mean of the metric means present, x100; PAS is never among "
               "them (key typo 'perceptible_amplitude_socre')",
               official_column=scores.TOTAL_ROW, step="aggregate", family="aggregate",
               backends=("calculate_score.py",), output_files=(SCORES_CSV,),
               # scores.csv's own scale (x100): a mean of OIS, TCS, MSS, CAS means x100,
               # so at most 100 and, as TCS, below 0 only in theory.
               official_range=(None, 100.0), nominal_range=(0.0, 100.0)),
    MetricSpec(TOTAL_CORRECTED, "Total Score, corrected (mean of all five)", "0-100", True,
               False, "mean of the five metric means, each x100 (the README table's Avg)",
               step="aggregate", family="aggregate", backends=("calculate_score.py, typo "
                                                               "repaired",)),
)

PER_VIDEO_IDS = tuple(spec.id for spec in PER_VIDEO)
# --metrics chooses per-video metrics (the Totals follow), by id or by the short names of
# the issue's --metrics=pas,ois,tcs,cas,mss; in evaluate.sh's order whatever the order given.
TABLE = MetricTable("VMBench", PER_VIDEO + TOTALS, selectable=PER_VIDEO_IDS,
                    aliases={"pas": (scores.PAS,), "ois": (scores.OIS,),
                             "tcs": (scores.TCS,), "cas": (scores.CAS,),
                             "mss": (scores.MSS,)}, order=TABLE_ORDER)
BY_ID = TABLE.by_id
