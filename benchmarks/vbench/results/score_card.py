"""The scorecard entries an import adds beside the dimensions: the backends, the six
scores (final_score.py) and the checks of a file's aggregate against its own list."""

import math
from typing import Dict, List, Mapping, Sequence

from benchmarks.common import scorecard as card_lib
from benchmarks.common import trust
from benchmarks.vbench import metric_specs
from benchmarks.vbench.results import aggregate as aggregate_lib
from benchmarks.vbench.results import final_score
from proto import scorecard_pb2

HEADLINE = ("quality_score", "semantic_score", "total_score")
CAL_FINAL_SCORE = ("cal_final_score_quality", "cal_final_score_semantic",
                   "cal_final_score_total")
_GROUPS = ("quality", "semantic", "total")
EVIDENCE = "benchmarks/vbench/results/testdata/cal_final_score_official.json"


def imported_backend() -> scorecard_pb2.Backend:
    """The official tool's own aggregates, read as written."""
    return scorecard_pb2.Backend(
        name="imported: VBench eval_results.json", official=True, digest_pinned=True,
        implementation="official Vchitect/VBench (vbench/__init__.py evaluate)",
        note="values read from the official eval_results.json, not recomputed",
        parity=trust.verified("the official files, read as written",
                              "the values are the official implementation's"))


def final_backend() -> scorecard_pb2.Backend:
    """cal_final_score.py's arithmetic (final_score.py), checked against its printout."""
    return scorecard_pb2.Backend(
        name=metric_specs.BY_ID["total_score"].backends[0], official=True,
        digest_pinned=True, implementation="benchmarks/vbench/results/final_score.py",
        note="scripts/cal_final_score.py's arithmetic on the dimensions' values",
        parity=trust.verified(EVIDENCE, "cal_final_score.py's printed quality, semantic "
                              "and total on generated results files (45e79ec)"))


def _close(a: float, b: float) -> bool:
    return math.isclose(a, b, rel_tol=1e-12, abs_tol=1e-15)


def consistency(d: str, written, rows: Sequence[aggregate_lib.VideoRow],
                source: str) -> List[str]:
    """A note where the file's aggregate is not the single-GPU aggregate of its own list
    (kept as written): a torchrun run (subject / appearance, spec §6) or an edited file.
    subject_consistency's list lacks the frame-pair counts its aggregate weighs by."""
    if not rows or d == "subject_consistency":
        return []
    try:
        ours = aggregate_lib.aggregate(d, rows)
    except (ValueError, KeyError, TypeError) as e:
        return [f"{d}: {source}'s aggregate cannot be checked against its list: {e}"]
    if _close(ours, float(written)):
        return []
    if d in aggregate_lib.DISTRIBUTED_DIFFERS:
        try:
            if _close(aggregate_lib.distributed_aggregate(d, rows), float(written)):
                return [f"{d}: {source}'s aggregate {written!r} is the torchrun value "
                        f"(several GPUs, spec §6), not the single-GPU {ours!r}; kept as "
                        "written"]
        except (ValueError, KeyError, TypeError):
            pass
    return [f"{d}: {source}'s aggregate {written!r} is not the single-GPU aggregate of its "
            f"per-video list ({ours!r}); kept as written"]


def _result(metric_id: str, value, reason: str) -> scorecard_pb2.MetricResult:
    result = card_lib.unavailable(metric_specs.BY_ID[metric_id], reason, final_backend())
    if value is not None:
        result.available, result.value = True, float(value)
    return result


def final_scores(dimensions: Sequence[scorecard_pb2.MetricResult],
                 file_aggregates: Mapping[str, object],
                 refused: Mapping[str, str]) -> List[scorecard_pb2.MetricResult]:
    """The six scores: ours from the dimensions' values (each needs all its dimensions),
    cal_final_score.py's from the files' aggregates as it reads them (absent = 0;
    unavailable where it would read a refused aggregate)."""
    values: Dict[str, float] = {m.id: m.value for m in dimensions
                                if m.available and m.id in metric_specs.DIMENSIONS}
    ours = final_score.ours(values).as_dict()
    missing = final_score.ours(values).missing
    out = [_result(metric_id, ours[group],
                   f"needs all its dimensions; absent or unavailable: "
                   f"{', '.join(missing.get(group, ()))}")
           for metric_id, group in zip(HEADLINE, _GROUPS)]
    if refused:
        why = "; ".join(f"{d}: {reason}" for d, reason in refused.items())
        return out + [_result(m, None, "cal_final_score.py would read a refused aggregate "
                              f"({why})") for m in CAL_FINAL_SCORE]
    cal = final_score.cal_final_score({d: float(v) for d, v in file_aggregates.items()})
    out += [_result(metric_id, cal.as_dict()[group], "")
            for metric_id, group in zip(CAL_FINAL_SCORE, _GROUPS)]
    return out


def absent_note(file_aggregates: Mapping[str, object]) -> List[str]:
    """The note that says which dimensions cal_final_score.py counted as 0."""
    absent = [d for d in metric_specs.DIMENSIONS if d not in file_aggregates]
    if not absent:
        return []
    return [f"cal_final_score_*: {len(absent)} dimensions absent, counted as 0 as "
            "cal_final_score.py counts them (negative where Min > 0): " + ", ".join(absent)]
