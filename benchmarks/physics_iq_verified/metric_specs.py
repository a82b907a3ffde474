"""Physics-IQ Verified's metric table (spec §10): the submission card's reported_scores.

Per run (one seed's 198 generated videos) physiq/calculate_iq_score_stable.py's
`final_score_view` and its four `score_*_view` subscores (verified_score.output_dict); over
the 1-4 runs, physiq/aggregate_runs_from_csvs.py's mean and standard deviation (pandas,
ddof 1), both x100: the `<score>_mean` / `<score>_std` pairs of `reported_scores` (a std
needs two runs or more: unavailable with one). Per sample (one view of one run) the row
holds the view's four clipped components x100 (not official per-view numbers).
"""

from benchmarks.common.metric_table import MetricTable
from benchmarks.common.scorecard import MetricSpec
from benchmarks.physics_iq import verified_score

BENCHMARK_ID = "physics-iq-verified"
BENCHMARK_VERSION = "physics-iq-verified/1"  # bump when a change moves a number
FAMILY = "physics_iq_verified"
CARD_FILE = "submission/submission.yaml"  # an imported submission card, as copied
BACKEND = "physics_iq_verified: OpenCV + numpy, weight-free (official arithmetic)"
METRICS_JSON = "results/<run>_metrics.json"
RUN_CSV = "results/<run>.csv"
AGGREGATE = "runs"          # step: the mean / std over the runs
# reported_scores name -> (output_dict key, display name, higher is better)
SCORES = (
    ("physiq", verified_score.VERIFIED_KEY, "Physics-IQ Verified score", True),
    ("spatial_iou", "score_spatial_view", "Spatial IoU ratio", True),
    ("weighted_spatial_iou", "score_weighted_spatial_view", "Weighted spatial IoU ratio",
     True),
    ("spatiotemporal_iou", "score_spatiotemporal_view", "Spatiotemporal IoU ratio", True),
    ("mse", "score_mse_view", "MSE ratio (variance / MSE)", True),
)
_VIEW = ("per (scenario, view): the ratio to the real take-1 vs take-2 variance (+1e-8; "
         "MSE inverted), clipped to [0, 1]; mean over the 198 views; x100")

SPECS = tuple(
    spec for name, key, display, higher in SCORES for spec in (
        MetricSpec(f"{name}_mean", display, "0-100 (%)", higher, name == "physiq",
                   ("mean over the rows of the four clipped components' mean, " if
                    name == "physiq" else "") + _VIEW + "; mean over runs",
                   official_column=f"reported_scores.{name}_mean ({key})", step=AGGREGATE,
                   family=FAMILY, backends=(BACKEND,), output_files=(METRICS_JSON,),
                   official_range=(0.0, 100.0)),
        MetricSpec(f"{name}_std", f"{display}: std over runs", "0-100 (%)", False, False,
                   "standard deviation over the runs (ddof 1) of the mean above; needs two "
                   "runs or more", official_column=f"reported_scores.{name}_std",
                   step=AGGREGATE, family=FAMILY, backends=(BACKEND,),
                   output_files=(METRICS_JSON,), official_range=(0.0, 100.0))))
KEY_OF = {name: key for name, key, _, _ in SCORES}

TABLE = MetricTable("Physics-IQ Verified", SPECS, selectable=("physiq_mean",),
                    aliases={"all": ("physiq_mean",)})
BY_ID = TABLE.by_id
