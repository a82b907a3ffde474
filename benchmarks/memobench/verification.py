"""Whether a MemoBench scorecard may stand on the leaderboard, and if not, why.

The full-suite gate: a scorecard is FULL_SUITE and leaderboard-eligible only when
  - each of the 14 leaderboard metrics (metric_specs.LEADERBOARD) is in it, available,
    and every available metric's backend has the three trust facts (benchmarks/common/
    trust.py: official algorithm and weights, verified parity, pinned digests) and was
    computed on every clip it should have been (per-metric coverage);
  - no clip failed on a worldeval bug;
  - each step covered all of its official clips with no sample error: Step 1 and ORS the
    360 official clips, VQA the 45 synthetic failure-cases clips, the only clips the
    official VQA has questions for (spec §2.5, §7), and no clip outside those sets was
    averaged in (the leaderboard's means pool every row, spec §8);
  - the inputs are the official dataset and no flag changed the protocol.
Anything else is a machine-readable blocker (proto BlockingReason).
"""

import dataclasses
from typing import Collection, Dict, List, Mapping, Optional, Sequence

from benchmarks.common import gate
from benchmarks.common import scorecard as card_lib
from benchmarks.common import trust
from benchmarks.memobench import metric_specs
from benchmarks.memobench import official_clips
from proto import scorecard_pb2

OFFICIAL_MAX_SIDE = 640
OFFICIAL_SAMPLE_STEP = 4
SYNTHETIC, REAL = "synthetic", "real"
_LISTED = 10  # clip ids named in one blocker's detail


def clip_key(split: str, clip_id: str) -> str:
    """How clips are named in coverage: "synthetic/Barnyard_001", "real/001"."""
    return f"{split}/{clip_id}"


OFFICIAL_CLIPS = frozenset([clip_key(SYNTHETIC, c) for c in official_clips.SYNTHETIC]
                           + [clip_key(REAL, c) for c in official_clips.REAL])
VQA_CLIPS = frozenset(clip_key(SYNTHETIC, c) for c in official_clips.VQA)


@dataclasses.dataclass(frozen=True)
class Step:
    """One stage of the official pipeline, its leaderboard metrics and the clips it scores."""

    name: str
    metric_ids: Sequence[str]
    clips: frozenset
    clip_set: str


_TABLE = metric_specs.TABLE
STEP1 = Step("Step 1", _TABLE.of_step(metric_specs.STEP1, leaderboard_only=True),
             OFFICIAL_CLIPS, "official clips")
ORS = Step("ORS", _TABLE.of_step(metric_specs.ORS, leaderboard_only=True), OFFICIAL_CLIPS,
           "official clips")
VQA = Step("VQA", _TABLE.of_step(metric_specs.VQA, leaderboard_only=True), VQA_CLIPS,
           "VQA clips (failure-cases.csv)")
STEPS = (STEP1, ORS, VQA)


VQA_COVERAGE_NOTE = (
    "VQA coverage is counted against the 45 synthetic clips of failure-cases.csv, the only "
    "clips with VQA questions (spec §2.5, §7): 45 of 45 is complete VQA coverage, and the "
    "other 315 official clips have no VQA by design, not missing; the VQA columns are means "
    "over those 45 clips only")


def _listed(ids: Collection[str]) -> str:
    ids = sorted(ids)
    return ", ".join(ids[:_LISTED]) + (" ..." if len(ids) > _LISTED else "")


def describe_step(step: Step, evaluated: Collection[str], failed: Collection[str]) -> str:
    """One line: how many of the step's official clips it covers."""
    covered = len(step.clips & set(evaluated))
    text = f"{step.name}: {covered} of the {len(step.clips)} {step.clip_set}"
    if failed:
        text += f", {len(failed)} failed"
    extra = set(evaluated) - step.clips
    if extra:
        text += f", {len(extra)} clips outside that set"
    return text


def metric_blockers(metrics: Sequence[scorecard_pb2.MetricResult],
                    per_metric_coverage: bool = True) -> List[scorecard_pb2.Blocker]:
    """Each leaderboard metric present and available; every available metric's backend
    trusted (trust.backend_blockers) and, with `per_metric_coverage`, computed on every
    clip it should have been (importers know only the files' counts)."""
    blockers = []
    by_id = {m.id: m for m in metrics}
    for spec in metric_specs.LEADERBOARD:
        metric = by_id.get(spec.id)
        if metric is None:
            blockers.append(card_lib.blocker(
                scorecard_pb2.METRIC_UNAVAILABLE,
                "not computed: not among this run's metrics (--metrics)", spec.id))
        elif not metric.available:
            blockers.append(card_lib.blocker(
                scorecard_pb2.METRIC_UNAVAILABLE, metric.unavailable_reason, spec.id))
    blockers += trust.backend_blockers(metrics)
    if per_metric_coverage:
        blockers += trust.metric_coverage_blockers(metrics)
    return blockers


def coverage_blockers(evaluated: Mapping[str, Optional[Collection[str]]],
                      failed: Mapping[str, Collection[str]],
                      metrics: Sequence[scorecard_pb2.MetricResult]) -> List[scorecard_pb2.Blocker]:
    """Per step: no failed clip; and, when one of its metrics is available, all its
    official clips evaluated and none extra. `evaluated[step.name]` is None when only
    model-level values are known."""
    available = {m.id for m in metrics if m.available}
    blockers = []
    for step in STEPS:
        if failed.get(step.name):
            blockers.append(card_lib.blocker(
                scorecard_pb2.SAMPLE_ERRORS,
                f"{step.name}: {len(failed[step.name])} clips failed: "
                + _listed(failed[step.name])))
        if not available & set(step.metric_ids):
            continue  # metric_blockers says why its metrics are missing
        ids = evaluated.get(step.name)
        if ids is None:
            blockers.append(card_lib.blocker(
                scorecard_pb2.INCOMPLETE_COVERAGE,
                f"{step.name}: per-clip coverage unknown (model-level values only)"))
            continue
        ids = set(ids)
        missing = step.clips - ids
        if missing:
            blockers.append(card_lib.blocker(
                scorecard_pb2.INCOMPLETE_COVERAGE,
                f"{describe_step(step, ids, failed.get(step.name, ()))}; missing: "
                + _listed(missing)))
        if ids - step.clips:
            blockers.append(card_lib.blocker(
                scorecard_pb2.NOT_OFFICIAL_DATA,
                f"{step.name}: {len(ids - step.clips)} clips outside the {len(step.clips)} "
                f"{step.clip_set} are in its means: " + _listed(ids - step.clips)))
    return blockers


def evaluated_by_step(samples: Sequence[scorecard_pb2.SampleScore]) -> Dict[str, set]:
    """For a recomputed run: Step 1 = every clip scored without error; ORS and VQA = the
    clips (without error) that hold one of their metrics."""
    ok = [s for s in samples if not s.error]
    return {step.name: {clip_key(s.split, s.sample_id) for s in ok
                        if step is STEP1 or set(step.metric_ids) & set(s.metrics)}
            for step in STEPS}


def _count_coverage_blockers(cov: scorecard_pb2.Coverage) -> List[scorecard_pb2.Blocker]:
    """Without the samples: clip counts only (Step 1)."""
    blockers = []
    if cov.evaluated < len(OFFICIAL_CLIPS):
        blockers.append(card_lib.blocker(
            scorecard_pb2.INCOMPLETE_COVERAGE,
            f"{cov.evaluated} of the {len(OFFICIAL_CLIPS)} official clips evaluated "
            f"({len(cov.missing_sample_ids)} of {cov.expected} phase-sheet clips have no "
            f"generated output)"))
    if cov.failed:
        blockers.append(card_lib.blocker(
            scorecard_pb2.SAMPLE_ERRORS, f"{cov.failed} clips failed: "
            + _listed(cov.failed_sample_ids)))
    return blockers


def facts(config, samples: Optional[Sequence[scorecard_pb2.SampleScore]] = None
          ) -> gate.Facts:
    """The gate's facts: the 14 leaderboard metrics are required, every available metric
    trusted; coverage is MemoBench's per step (clip by clip against the official ids with
    `samples`, by counts without); --max_side (640) and --sample_step (4) are its own
    protocol flags."""
    deviations = []
    if config.max_side != OFFICIAL_MAX_SIDE:
        deviations.append(f"--max_side={config.max_side} (official {OFFICIAL_MAX_SIDE})")
    if config.sample_step != OFFICIAL_SAMPLE_STEP:
        deviations.append(
            f"--sample_step={config.sample_step} (official {OFFICIAL_SAMPLE_STEP})")
    if samples is None:
        rule = lambda card: _count_coverage_blockers(card.coverage)  # noqa: E731
    else:
        failed = {STEP1.name: {clip_key(s.split, s.sample_id) for s in samples if s.error}}
        rule = lambda card: coverage_blockers(  # noqa: E731
            evaluated_by_step(samples), failed, card.metrics)
    bundled = ["the bundled synthetic sample (tools/fixtures), not the MemoBench dataset"]
    return gate.Facts(not_official_data=bundled if config.bundled_sample else (),
                      required=[spec.id for spec in metric_specs.LEADERBOARD],
                      coverage_rule=rule, protocol_deviations=deviations,
                      native_max_side=False)


def assess(card: scorecard_pb2.Scorecard, config, discovered: int,
           samples: Optional[Sequence[scorecard_pb2.SampleScore]] = None
           ) -> scorecard_pb2.Verification:
    """The gate (benchmarks/common/gate.py) on MemoBench's facts. `discovered` (generated
    clips found) is kept for the callers."""
    del discovered
    return gate.assess(card, facts(config, samples), config.common, "clips")
