"""WorldScore's metric table: the 10 aspects and 2 headlines of worldscore.json (the
leaderboard's columns), and the 11 evaluator metrics behind them (spec §4-§6).

Aspect and headline values are worldscore.json's (0-100, 2 decimals). A metric's value
is the pooled mean of its `score_normalized` (0-1, unrounded), its id
"<aspect>.<metric>" (two metric names equal their aspect's). Per instance, the same id
holds the value pooled, and "raw:<aspect>.<metric>[:<component>]" the raw score.
"""

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


ASPECT_SPECS = tuple(
    MetricSpec(a.name, _title(a.name), "0-100", True, True, _ASPECT_AGG,
               official_column=a.name, step=a.movement, family=a.name,
               backends=tuple(m.name for m in a.metrics), output_files=(WORLDSCORE_JSON,))
    for a in aspects.ASPECTS)
HEADLINE_SPECS = (
    MetricSpec(aspects.HEADLINE_STATIC, aspects.HEADLINE_STATIC, "0-100", True, True,
               "round(mean of the 7 static aspects, 2)",
               official_column=aspects.HEADLINE_STATIC, step="aggregate",
               family="aggregate", output_files=(WORLDSCORE_JSON,)),
    MetricSpec(aspects.HEADLINE_DYNAMIC, aspects.HEADLINE_DYNAMIC, "0-100", True, True,
               "round(mean of all 10 aspects, the 7 static ones included, 2)",
               official_column=aspects.HEADLINE_DYNAMIC, step="aggregate",
               family="aggregate", output_files=(WORLDSCORE_JSON,)),
)
METRIC_SPECS = tuple(
    MetricSpec(metric_id(m.aspect, m.name), m.name, "0-1", True, False,
               "mean of score_normalized over the instances that have it",
               official_column=m.name, step=a.movement, family=a.name,
               backends=(m.name,), output_files=(EVALUATION_JSON,))
    for a in aspects.ASPECTS for m in a.metrics)

TABLE = MetricTable("WorldScore", ASPECT_SPECS + HEADLINE_SPECS + METRIC_SPECS)
BY_ID = TABLE.by_id
