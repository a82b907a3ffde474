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
from benchmarks.physics_iq import sample as sample_lib
from benchmarks.physics_iq import scenario_rows
from proto import scorecard_pb2

# descriptions/descriptions.csv of google-deepmind/physics-IQ-benchmark at e457754 (396
# rows, 66 scenarios x 3 views x 2 takes): the official suite.
OFFICIAL_DESCRIPTIONS_SHA256 = "d66e9b2c726c2d954362c560436dbb688239eca1e329dc578ff57ea0ae83d22c"
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


def results(laid: layout_lib.Layout, chosen: Sequence[layout_lib.Sample],
            samples: Sequence[scorecard_pb2.SampleScore], output_dir: pathlib.Path,
            model: str) -> Results:
    """The CSV (`results/<model>.csv`, upstream's `{O}/results/{basename(D)}.csv`) and the
    metrics; a view not in a complete scenario is a missing sample of every metric."""
    rows, lacking = scenario_rows.scenario_rows(samples)
    in_rows = {(r.scenario, v) for r in rows for v in csv_file.VIEWS}
    by_name = {s.sample_id: s for s in samples}
    missing = {f"{sample_lib.SPLIT}/{item.name}": _missing_reason(item, by_name.get(item.name))
               for item in chosen if (item.scenario, item.view) not in in_rows}
    if not rows:
        first = next(iter(missing.values()), "no view of the descriptions was chosen")
        why = f"no scenario has all three views scored (first: {first})"
        return Results([card_lib.unavailable(s, why, BACKEND) for s in metric_specs.SPECS],
                       None, None, lacking)
    path = output_dir / "results" / f"{model}.csv"
    path.parent.mkdir(parents=True, exist_ok=True)
    csv_file.write_csv(path, rows)
    score = iq_score.calculate_iq_score(csv_file.read_csv(path))
    values = {"physics_iq_score": score.score, "spatiotemporal_iou": score.spatiotemporal_iou,
              "spatial_iou": score.spatial_iou,
              "weighted_spatial_iou": score.weighted_spatial_iou, "mse": score.mse}
    out = []
    for spec in metric_specs.SPECS:
        result = card_lib.unavailable(spec, "", BACKEND)
        result.available, result.unavailable_reason = True, ""
        result.value = float(values[spec.id])
        result.sample_count = 3 * len(rows)
        result.expected_sample_count = len(chosen)
        for key, why in missing.items():
            result.missing_sample_ids.append(key)
            result.missing_reasons[key] = why
        out.append(result)
    return Results(out, path, score, lacking)


def _sha256(path: pathlib.Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def facts(laid: layout_lib.Layout, bundled: bool) -> gate.Facts:
    """Official data: the official descriptions file, all 198 views of it."""
    why = []
    if bundled:
        why.append("the bundled synthetic tree: 3 scenarios of our own, not Physics-IQ's 66")
    elif _sha256(laid.descriptions) != OFFICIAL_DESCRIPTIONS_SHA256:
        why.append(f"{laid.descriptions} is not the official descriptions.csv (sha256 "
                   f"{OFFICIAL_DESCRIPTIONS_SHA256[:12]}...)")
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
        s = result.score
        out.append(f"physical variance (real take-1 vs take-2, as calculate_iq_score rounds "
                   f"it): pvST {s.pv_spatiotemporal_iou}, pvSP {s.pv_spatial_iou}, "
                   f"pvWS {s.pv_weighted_spatial_iou}, pvMSE {s.pv_mse}; score before the "
                   f"clamp {s.raw!r}; second return value {s.physical_variance}")
    return out
