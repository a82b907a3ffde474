"""Physics-IQ's set-level step: the official CSV from the scored views, calculate_iq_score
over it (read back from the file, as upstream reads it), the scorecard's metrics, the
gate's facts and the notes.
"""

import dataclasses
import hashlib
import pathlib
from typing import Dict, List, Optional, Sequence

from benchmarks.common import gate
from benchmarks.common import scorecard as card_lib
from benchmarks.common import trust
from benchmarks.physics_iq import csv_file, iq_score, metric_specs
from benchmarks.physics_iq import layout as layout_lib
from benchmarks.physics_iq import scenario_rows
from proto import scorecard_pb2

# descriptions/descriptions.csv of google-deepmind/physics-IQ-benchmark at e457754 (396
# rows, 66 scenarios x 3 views x 2 takes): the official suite.
OFFICIAL_DESCRIPTIONS = {
    "d66e9b2c726c2d954362c560436dbb688239eca1e329dc578ff57ea0ae83d22c":
        "descriptions/descriptions.csv @ e457754"}
OFFICIAL_VIEWS = 198
_LISTED = 10

BACKEND = scorecard_pb2.Backend(
    name=metric_specs.BACKEND, official=True, digest_pinned=True,
    implementation="benchmarks/physics_iq (view_metrics, csv_file, iq_score) on "
                   "metrics/motion_masks; OpenCV decode as upstream's cv2.VideoCapture",
    note="masks go through the official mp4v round trip; the score is computed from the "
         "written CSV, read as pandas 2.3.3 reads it",
    parity=trust.verified(
        "//benchmarks/physics_iq:official_tree_test (recomputed in CI against "
        "benchmarks/physics_iq/testdata/official_tree: upstream e457754's run_physics_iq.py "
        "on //tools/fixtures:physics_iq_tree, 3 scenarios x 3 views, 3 models)",
        "weight-free: every mask file and the per-model CSV byte for byte, "
        "calculate_iq_score's two numbers with =="))


@dataclasses.dataclass(frozen=True)
class Results:
    metrics: List[scorecard_pb2.MetricResult]
    csv_path: Optional[pathlib.Path]
    score: Optional[iq_score.IQScore]
    lacking: Dict[str, List[str]]  # scenario -> views without a value


def _missing_reason(item: layout_lib.Sample, sample) -> str:
    if item.generated is None:
        return f"no generated video: {item.generated_why}"
    if sample is None:
        return "not scored in this run"
    if sample.error:
        return f"the view failed: {sample.error.splitlines()[0]}"
    return "another view of its scenario has no value (the CSV needs all three)"


@dataclasses.dataclass(frozen=True)
class RunRows:
    """One run's CSV rows, and its views not in them (split/id -> why)."""

    rows: List[csv_file.ScenarioRow]
    lacking: Dict[str, List[str]]
    missing: Dict[str, str]


def run_rows(chosen: Sequence[layout_lib.Sample], samples: Sequence[scorecard_pb2.SampleScore],
             split: str) -> RunRows:
    """The rows of the run whose samples are `split`; a view not in a complete scenario is
    a missing sample of every metric."""
    samples = [s for s in samples if s.split == split]
    rows, lacking = scenario_rows.scenario_rows(samples)
    in_rows = {(r.scenario, v) for r in rows for v in csv_file.VIEWS}
    by_name = {s.sample_id: s for s in samples}
    missing = {f"{split}/{item.name}": _missing_reason(item, by_name.get(item.name))
               for item in chosen if (item.scenario, item.view) not in in_rows}
    return RunRows(rows, lacking, missing)


def write_run_csv(output_dir: pathlib.Path, name: str, rows) -> pathlib.Path:
    """`results/<name>.csv` (upstream's `{O}/results/{basename(D)}.csv`)."""
    path = output_dir / "results" / f"{name}.csv"
    path.parent.mkdir(parents=True, exist_ok=True)
    csv_file.write_csv(path, rows)
    return path


def results(chosen: Sequence[layout_lib.Sample], samples: Sequence[scorecard_pb2.SampleScore],
            output_dir: pathlib.Path, model: str, split: str) -> Results:
    """The CSV and the metrics (the score read back from the written file)."""
    run = run_rows(chosen, samples, split)
    lacking, missing = run.lacking, run.missing
    if not run.rows:
        first = next(iter(missing.values()), "no view of the descriptions was chosen")
        why = f"no scenario has all three views scored (first: {first})"
        return Results([card_lib.unavailable(s, why, BACKEND) for s in metric_specs.SPECS],
                       None, None, lacking)
    rows = run.rows
    path = write_run_csv(output_dir, model, rows)
    score = iq_score.calculate_iq_score(csv_file.read_csv(path))
    out = metric_results(score, BACKEND, 3 * len(rows), len(chosen), missing)
    return Results(out, path, score, lacking)


def metric_results(score: iq_score.IQScore, backend: scorecard_pb2.Backend, sample_count: int,
                   expected: int, missing: Dict[str, str]) -> List[scorecard_pb2.MetricResult]:
    """The table's five metrics from calculate_iq_score's result; `missing` (split/id ->
    why) the views not in the CSV."""
    values = {"physics_iq_score": score.score, "spatiotemporal_iou": score.spatiotemporal_iou,
              "spatial_iou": score.spatial_iou,
              "weighted_spatial_iou": score.weighted_spatial_iou, "mse": score.mse}
    out = []
    for spec in metric_specs.SPECS:
        result = card_lib.unavailable(spec, "", backend)
        result.available, result.unavailable_reason = True, ""
        result.value = float(values[spec.id])
        result.sample_count = sample_count
        result.expected_sample_count = expected
        for key in sorted(missing):
            result.missing_sample_ids.append(key)
            result.missing_reasons[key] = missing[key]
        out.append(result)
    return out


def score_note(s: iq_score.IQScore) -> str:
    """The physical variance behind the score, the score before the clamp, and
    calculate_iq_score's second return value."""
    return (f"physical variance (real take-1 vs take-2, as calculate_iq_score rounds it): "
            f"pvST {s.pv_spatiotemporal_iou}, pvSP {s.pv_spatial_iou}, pvWS "
            f"{s.pv_weighted_spatial_iou}, pvMSE {s.pv_mse}; score before the clamp "
            f"{s.raw!r}; second return value {s.physical_variance}")


def _sha256(path: pathlib.Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def facts(laid: layout_lib.Layout, bundled: bool,
          official: Dict[str, str] = OFFICIAL_DESCRIPTIONS) -> gate.Facts:
    """Official data: an official descriptions file (`official`: sha256 -> which), all 198
    views of it."""
    why = []
    if bundled:
        why.append("the bundled synthetic tree: 3 scenarios of our own, not Physics-IQ's 66")
    elif _sha256(laid.descriptions) not in official:
        why.append(f"{laid.descriptions} is none of the official descriptions files ("
                   + ", ".join(official.values()) + ")")
    elif len(laid.samples) != OFFICIAL_VIEWS:
        why.append(f"{len(laid.samples)} views, the official suite has {OFFICIAL_VIEWS}")
    return gate.Facts(not_official_data=why)


def notes(laid: layout_lib.Layout, result: Results) -> List[str]:
    out = list(laid.notes)
    out += [f"{p} (upstream would stop here)" for p in laid.upstream_stops]
    problems = [str(p) for p in laid.problems if p not in laid.refused]
    if problems:
        out.append(f"{len(problems)} input problem(s): " + "; ".join(problems[:_LISTED])
                   + (" ..." if len(problems) > _LISTED else ""))
    if result.lacking:
        out.append("scenarios left out of the CSV, a view without a value: " + "; ".join(
            f"{s} (lacking {', '.join(v)})" for s, v in list(result.lacking.items())[:_LISTED]))
    if result.score is not None:
        out.append(score_note(result.score))
    return out
