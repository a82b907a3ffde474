"""A MiraBench run's scorecard results: per-metric means, set-level values, blockers.

Per-video metrics: the mean over the videos that have the value (card_lib.aggregate),
which is what average_score.csv's pandas mean gives. Set-level metrics (fvd, kvd, fid,
kid) come from set_metrics.py. No composite: the official code has none (spec §1).
"""

from typing import Dict, List, Sequence

from benchmarks.common import gate
from benchmarks.common import scorecard as card_lib
from benchmarks.common import trust
from benchmarks.mirabench import consistency_3d
from benchmarks.mirabench import metric_specs
from proto import scorecard_pb2

OFFICIAL_PROMPTS = 150

NOT_REPRODUCIBLE_3D = (
    "3D consistency: the official value is not reproducible run to run (FLANN's "
    "randomised kd-trees and RANSAC draw random numbers; four identical official calls on "
    "one synthetic pair gave mean errors 0.237, 0.036, 0.040 and 0.072 px, issue 15). Ours "
    "seeds OpenCV's RNG per pair (seed {seed}); --consistency_3d_repeats=K gives the spread "
    "over K seeds.")


def _seed_spread(samples, metric_id: str, seeds: Sequence[int]):
    """(low, high) over seeds of the mean over videos, or None with one seed."""
    if len(seeds) < 2:
        return None
    means = []
    for seed in seeds:
        values = [s.metrics[f"seed{seed}:{metric_id}"] for s in samples
                  if not s.error and f"seed{seed}:{metric_id}" in s.metrics]
        if values:
            means.append(sum(values) / len(values))
    return (min(means), max(means)) if means else None


def metric_results(samples, prepared, metric_ids, set_results: Dict[str, object],
                   config) -> List[scorecard_pb2.MetricResult]:
    out = []
    seeds = [config.consistency_3d_seed + k for k in range(config.consistency_3d_repeats)]
    for spec in metric_specs.TABLE.specs:
        mid = spec.id
        backend = prepared.backend_of(mid) or scorecard_pb2.Backend()
        if mid not in metric_ids:
            out.append(card_lib.unavailable(spec, "not selected (--metrics)", backend))
        elif spec.step == metric_specs.SET_LEVEL:
            out.append(set_results[mid])
        elif mid in prepared.unavailable:
            out.append(card_lib.unavailable(spec, prepared.unavailable[mid][0], backend))
        else:
            fam = prepared.family_of(mid)
            result = card_lib.aggregate(spec, samples, trust.with_digests(
                backend, fam.checkpoints_for(mid) if fam else ()))
            spread = (_seed_spread(samples, mid, seeds)
                      if mid in consistency_3d.COLUMNS else None)
            if spread and result.available:
                result.aggregation += (f"; over seeds {seeds[0]}..{seeds[-1]} the mean "
                                       f"ranges {spread[0]:.6g} to {spread[1]:.6g}")
            out.append(result)
    return out


def facts(config, meta_rows: int) -> gate.Facts:
    """The gate's facts: the official suite is the 150 prompts' meta rows (`meta_rows`:
    the meta CSV's, all shards'); every metric of the table counts."""
    bundled = ["the bundled synthetic sample, not MiraBench's 150 prompts"]
    return gate.Facts(not_official_data=bundled if config.bundled_sample else (),
                      counts=[gate.Count(str(config.meta_csv), meta_rows, OFFICIAL_PROMPTS,
                                         "rows")])
