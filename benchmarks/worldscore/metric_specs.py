"""WorldScore's metric table: the 10 aspects and 2 headlines of worldscore.json (the
leaderboard's columns), and the 11 evaluator metrics behind them (spec §4-§6).

Aspect and headline values are worldscore.json's (0-100, 2 decimals). A metric's value
is the pooled mean of its `score_normalized` (0-1, unrounded), its id
"<aspect>.<metric>" (two metric names equal their aspect's). Per instance, the same id
holds the value pooled, and "raw:<aspect>.<metric>[:<component>]" the raw score.
"""

from benchmarks.common.metric_table import TABLE_ORDER
from benchmarks.common.metric_table import MetricTable
from benchmarks.common.scorecard import MetricSpec
from benchmarks.worldscore import aspects

WORLDSCORE_JSON = "worldscore.json"
EVALUATION_JSON = "evaluation.json"
_ASPECT_AGG = ("round(100 x mean over the aspect's metrics of the mean score_normalized "
               "over all instances, 2) (run_evaluate.py::calculate_mean_scores)")


def metric_id(aspect: str, metric: str) -> str:
    return f"{aspect}.{metric}"


def raw_ids(metric: aspects.Metric):
    base = "raw:" + metric_id(metric.aspect, metric.name)
    parts = aspects.COMPONENTS.get(metric.name)
    return tuple(f"{base}:{p}" for p in parts) if parts else (base,)


def _title(name: str) -> str:
    return name.replace("_", " ").title()  # "3d_consistency" -> "3D Consistency"


# Ranges: worldscore.json's aspects and headlines are round(100 x means of
# score_normalized, 2), in [0, 100]; an evaluator metric's value in evaluation.json is its
# score_normalized, which normalize_score clips to [0, 1] (min-max: clip then scale;
# z-score: clip(..., 0, 1); composites: means of those) (spec §5, §6). The raw `score`
# has no common range (a failed metric's fallback is -100 or +100): it must be finite.
_PERCENT, _UNIT = (0.0, 100.0), (0.0, 1.0)
ASPECT_SPECS = tuple(
    MetricSpec(a.name, _title(a.name), "0-100", True, True, _ASPECT_AGG,
               official_column=a.name, step=a.movement, family=a.name,
               backends=tuple(m.name for m in a.metrics), output_files=(WORLDSCORE_JSON,),
               official_range=_PERCENT)
    for a in aspects.ASPECTS)
HEADLINE_SPECS = (
    MetricSpec(aspects.HEADLINE_STATIC, aspects.HEADLINE_STATIC, "0-100", True, True,
               "round(mean of the 7 static aspects, 2)",
               official_column=aspects.HEADLINE_STATIC, step="aggregate",
               family="aggregate", output_files=(WORLDSCORE_JSON,), official_range=_PERCENT),
    MetricSpec(aspects.HEADLINE_DYNAMIC, aspects.HEADLINE_DYNAMIC, "0-100", True, True,
               "round(mean of all 10 aspects, the 7 static ones included, 2)",
               official_column=aspects.HEADLINE_DYNAMIC, step="aggregate",
               family="aggregate", output_files=(WORLDSCORE_JSON,), official_range=_PERCENT),
)
# Each evaluator metric's backends, the official one first (the families' Backend names;
# //tests:worldscore_all_aspects_test holds every family to them). A "*" stands for the
# name of a flow the config supplies (NOT official), or DROID-SLAM's reduced input area.
_FLOW_ALT = "sam2.1-hiera-base-plus + *"
BACKENDS = {
    "camera_error": ("droid-slam", "droid-slam-area*"),
    "reprojection_error": ("droid-slam", "droid-slam-area*"),
    "object_detection": ("groundingdino-swint-ogc+spacy-en_core_web_sm-3.8.0",),
    "clip_score": ("torchmetrics-clipscore-vit-b16",),
    "optical_flow_aepe": ("sea-raft", "*"),
    "optical_flow": ("sea-raft", "*"),
    "gram_matrix": ("vgg19-gram-resize512", "vgg19-gram-resize128"),
    "clip_iqa+": ("clipiqa+-rn50",),
    "clip_aesthetic": ("laion-aes-pyiqa-tensor-preprocess",),
    "motion_accuracy": ("sam2.1-hiera-base-plus + sea-raft", _FLOW_ALT),
    "motion_smoothness": ("vfimamba-f32-local-tta", "vfimamba-f32-local-tta-float-mse"),
}
METRIC_SPECS = tuple(
    MetricSpec(metric_id(m.aspect, m.name), m.name, "0-1", True, False,
               "mean of score_normalized over the instances that have it",
               official_column=m.name, step=a.movement, family=a.name,
               backends=BACKENDS[m.name], output_files=(EVALUATION_JSON,),
               official_range=_UNIT)
    for a in aspects.ASPECTS for m in a.metrics)

PER_INSTANCE_IDS = tuple(spec.id for spec in METRIC_SPECS)
# --metrics chooses evaluator metrics by id, by name (gram_matrix) or by aspect
# (subjective_quality: all its metrics); an aspect's name wins over the metric named alike.
_ALIASES = {a.name: tuple(metric_id(a.name, m.name) for m in a.metrics)
            for a in aspects.ASPECTS}
_ALIASES.update({m.name: (metric_id(m.aspect, m.name),) for a in aspects.ASPECTS
                 for m in a.metrics if m.name not in _ALIASES})
TABLE = MetricTable("WorldScore", ASPECT_SPECS + HEADLINE_SPECS + METRIC_SPECS,
                    selectable=PER_INSTANCE_IDS, aliases=_ALIASES, order=TABLE_ORDER)
BY_ID = TABLE.by_id
