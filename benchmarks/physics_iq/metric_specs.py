"""Physics-IQ's metric table, original track (spec §7-§9).

The score is calculate_iq_score.py's over the per-model CSV (iq_score.py); the four
components are its model means (ST, SP, WS, MSE: take-1 vs the generated video). Per
sample (one scenario and view) the row holds the same four as that view's means over
frames (sample.py): a view's own numbers, not the official set-level ones, which round
every per-frame value to 4 dp and average the concatenated views.
"""

from benchmarks.common.metric_table import MetricTable
from benchmarks.common.scorecard import MetricSpec

BENCHMARK_ID = "physics-iq"
BENCHMARK_VERSION = "physics-iq/1"  # bump when a change moves a number
CSV_FILE = "results/<model>.csv"
PER_VIEW = "per_view"   # one (scenario, view): view_metrics.compute_view_metrics
IQ_SCORE = "iq_score"   # calculate_iq_score over the CSV
FAMILY = "physics_iq"
BACKEND = "physics_iq_original: OpenCV + numpy, weight-free (official arithmetic)"
_MEAN = ("mean over the CSV's scenarios of the mean of the three views' per-frame values, "
         "each rounded to 4 dp (calculate_iq_score.py)")
_SCALAR = "mean over the CSV's scenarios and three views (calculate_iq_score.py)"
_BOUNDED = (0.0, 1.0)

SPECS = (
    MetricSpec("physics_iq_score", "Physics-IQ score", "0-100 (2 dp)", True, True,
               "((ST/pvST + SP/pvSP + WS/pvWS)/3 - (MSE - pvMSE)) x 100, clamped to "
               "[0, 100], rounded to 2 dp; pv = real take-1 vs take-2, rounded to 4 dp "
               "(pvSP 5)", step=IQ_SCORE, family=FAMILY, backends=(BACKEND,),
               output_files=(CSV_FILE,), official_range=(0.0, 100.0)),
    MetricSpec("spatiotemporal_iou", "Spatiotemporal IoU", "IoU 0-1", True, False, _MEAN,
               official_column="spatiotemporal_iou_v1_<view>", step=PER_VIEW, family=FAMILY,
               backends=(BACKEND,), output_files=(CSV_FILE,), official_range=_BOUNDED),
    MetricSpec("spatial_iou", "Spatial IoU", "IoU 0-1", True, False, _SCALAR,
               official_column="spatial_iou_v1_<view>", step=PER_VIEW, family=FAMILY,
               backends=(BACKEND,), output_files=(CSV_FILE,), official_range=_BOUNDED),
    MetricSpec("weighted_spatial_iou", "Weighted spatial IoU", "IoU 0-1", True, False,
               _SCALAR, official_column="weighted_spatial_iou_v1_<view>", step=PER_VIEW,
               family=FAMILY, backends=(BACKEND,), output_files=(CSV_FILE,),
               official_range=_BOUNDED),
    MetricSpec("mse", "MSE", "mean squared error of [0, 1] BGR frames", False, False, _MEAN,
               official_column="v1_mse_<view>", step=PER_VIEW, family=FAMILY,
               backends=(BACKEND,), output_files=(CSV_FILE,), official_range=_BOUNDED),
)

# One computation gives every number: nothing to select.
TABLE = MetricTable("Physics-IQ", SPECS, selectable=("physics_iq_score",),
                    aliases={"all": ("physics_iq_score",)})
BY_ID = TABLE.by_id
