"""Comparing two runs of one benchmark: per metric, B minus A over the samples both
evaluated, with a paired bootstrap 95% interval, and warnings where the comparison is
not like for like (code, protocol and run flags, backend, checkpoint, coverage). A
flagged comparison is shown, never hidden."""

import dataclasses
import math
from typing import Dict, List, Optional, Sequence

from proto import scorecard_pb2
from tools.report import bootstrap
from tools.report import runs as runs_lib


@dataclasses.dataclass
class MetricComparison:
    """One metric of a comparison. `difference` is mean(B - A) over `paired` samples."""

    key: str
    display_name: str
    unit: str
    higher_is_better: bool
    n_a: int = 0
    n_b: int = 0
    paired: int = 0
    mean_a: Optional[float] = None
    mean_b: Optional[float] = None
    difference: Optional[float] = None
    low: Optional[float] = None
    high: Optional[float] = None
    excludes_zero: bool = False
    better: str = ""  # "A" or "B" when the interval excludes zero
    unavailable: str = ""  # why there is no difference
    warnings: List[str] = dataclasses.field(default_factory=list)


@dataclasses.dataclass
class Comparison:
    a: str
    b: str
    seed: int
    resamples: int
    interval_method: str
    warnings: List[str]
    metrics: List[MetricComparison]

    @property
    def flagged(self) -> bool:
        return bool(self.warnings) or any(m.warnings for m in self.metrics)


# Run flags that name the inputs, the outputs or the model: they differ between any two
# models' runs and say nothing about the protocol.
_PER_RUN_FLAGS = ("generated", "output", "model_name", "_dir", "resume", "shard", "api_key")


def _flag_differences(a: runs_lib.Run, b: runs_lib.Run) -> List[str]:
    fa, fb = a.card.run.flags, b.card.run.flags
    names = sorted(n for n in set(fa) | set(fb)
                   if not any(part in n for part in _PER_RUN_FLAGS) and fa.get(n) != fb.get(n))
    return [f"{n}={fa.get(n, '(unset)')} vs {fb.get(n, '(unset)')}" for n in names]


def _evaluated_ids(run: runs_lib.Run):
    if run.samples is None:
        return None
    return {runs_lib.sample_key(s) for s in run.samples if not s.error}


def run_warnings(a: runs_lib.Run, b: runs_lib.Run) -> List[str]:
    """Differences between the runs that make the comparison not like for like."""
    out = []
    pa, pb = a.card.provenance, b.card.provenance
    if pa.code_revision != pb.code_revision:
        out.append(f"code differs: {pa.code_revision or '?'} vs {pb.code_revision or '?'}")
    if pa.code_dirty or pb.code_dirty:
        dirty = [r.label for r in (a, b) if r.card.provenance.code_dirty]
        out.append(f"uncommitted code changes in: {', '.join(dirty)}")
    if a.card.benchmark_version != b.card.benchmark_version:
        out.append(f"benchmark version differs: {a.card.benchmark_version} vs "
                   f"{b.card.benchmark_version}")
    va, vb = a.card.verification, b.card.verification
    if list(va.deviations) != list(vb.deviations) or va.official_protocol != vb.official_protocol:
        out.append(f"protocol differs: deviations {list(va.deviations) or 'none'} vs "
                   f"{list(vb.deviations) or 'none'}")
    flags = _flag_differences(a, b)
    if flags:
        out.append(f"run flags differ: {'; '.join(flags)}")
    ids_a, ids_b = _evaluated_ids(a), _evaluated_ids(b)
    if ids_a is not None and ids_b is not None:
        if ids_a != ids_b:
            out.append(f"coverage differs: {len(ids_a - ids_b)} samples only in A, "
                       f"{len(ids_b - ids_a)} only in B, {len(ids_a & ids_b)} in both")
    elif a.card.coverage.evaluated != b.card.coverage.evaluated:
        out.append(f"coverage differs: {a.card.coverage.evaluated} vs "
                   f"{b.card.coverage.evaluated} samples evaluated")
    return out


def _checkpoints(card: scorecard_pb2.Scorecard, metric_id: str) -> List[str]:
    return sorted(f"{c.id}@{c.sha256 or c.revision or '?'}"
                  for c in card.provenance.checkpoints if c.metric_id == metric_id)


def metric_warnings(a: runs_lib.Run, b: runs_lib.Run, ra: scorecard_pb2.MetricResult,
                    rb: scorecard_pb2.MetricResult) -> List[str]:
    out = []
    ba, bb = ra.backend, rb.backend
    if (ba.name, ba.implementation) != (bb.name, bb.implementation):
        out.append(f"backend differs: {ba.name or '?'} vs {bb.name or '?'}")
    if ba.official != bb.official:
        out.append("official backend in one run only")
    ca, cb = _checkpoints(a.card, ra.id), _checkpoints(b.card, rb.id)
    if ca != cb or ba.checkpoint_id != bb.checkpoint_id:
        out.append(f"checkpoint differs: {', '.join(ca) or ba.checkpoint_id or 'none'} vs "
                   f"{', '.join(cb) or bb.checkpoint_id or 'none'}")
    return out


def _mean(values: Sequence[float]) -> float:
    return math.fsum(values) / len(values)


def compare_metric(a: runs_lib.Run, b: runs_lib.Run, ra: scorecard_pb2.MetricResult,
                   rb: Optional[scorecard_pb2.MetricResult], seed: int,
                   resamples: int) -> MetricComparison:
    out = MetricComparison(runs_lib.metric_key(ra), ra.display_name or ra.id, ra.unit,
                           ra.higher_is_better)
    if rb is None:
        out.unavailable = "not in B's scorecard"
        return out
    out.warnings = metric_warnings(a, b, ra, rb)
    if not (ra.available and rb.available):
        missing = [r.label for r, m in ((a, ra), (b, rb)) if not m.available]
        out.unavailable = f"unavailable in {', '.join(missing)}"
        return out
    va, vb = runs_lib.per_sample_values(a, ra), runs_lib.per_sample_values(b, rb)
    out.n_a, out.n_b = len(va), len(vb)
    both = sorted(set(va) & set(vb))
    out.paired = len(both)
    if not both:
        notes = [f"{r.label}: {r.samples_note}" for r in (a, b) if r.samples_note]
        out.unavailable = ("; ".join(notes) if notes else
                           "no sample carries a value in both runs (a set-level metric, "
                           "or disjoint samples)")
        return out
    if len(both) < max(len(va), len(vb)):
        out.warnings.append(f"compared on the {len(both)} samples both evaluated "
                            f"(A has {len(va)}, B {len(vb)})")
    diffs = [vb[k] - va[k] for k in both]
    out.mean_a, out.mean_b = _mean([va[k] for k in both]), _mean([vb[k] for k in both])
    out.difference = _mean(diffs)
    interval = bootstrap.paired_interval(diffs, seed, resamples)
    if interval is None:
        out.warnings.append("one paired sample: no interval")
        return out
    out.low, out.high, out.excludes_zero = interval.low, interval.high, interval.excludes_zero
    if out.excludes_zero:
        b_higher = out.low > 0
        out.better = "B" if b_higher == ra.higher_is_better else "A"
    return out


def compare(a: runs_lib.Run, b: runs_lib.Run, metrics: Sequence[str] = (),
            seed: int = bootstrap.DEFAULT_SEED,
            resamples: int = bootstrap.DEFAULT_RESAMPLES) -> Comparison:
    """B minus A for every metric of A (or those in `metrics`, by id or id@split)."""
    results_b: Dict[str, scorecard_pb2.MetricResult] = {
        runs_lib.metric_key(m): m for m in b.card.metrics}
    chosen = list(a.card.metrics)
    if metrics:
        known = {runs_lib.metric_key(m) for m in chosen} | {m.id for m in chosen}
        unknown = [m for m in metrics if m not in known]
        if unknown:
            raise runs_lib.RunError(f"unknown metric(s) {', '.join(unknown)}; A's metrics: "
                                    f"{', '.join(sorted(known))}")
        chosen = [m for m in chosen if m.id in metrics or runs_lib.metric_key(m) in metrics]
    rows = [compare_metric(a, b, m, results_b.get(runs_lib.metric_key(m)), seed, resamples)
            for m in chosen]
    method = bootstrap.BootstrapInterval(0, 0, seed, resamples).method
    return Comparison(a.label, b.label, seed, resamples, method, run_warnings(a, b), rows)
