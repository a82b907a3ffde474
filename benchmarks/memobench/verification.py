"""Whether a MemoBench scorecard may stand on the leaderboard, and if not, why."""

from benchmarks.common import scorecard as card_lib
from benchmarks.memobench import dataset
from proto import scorecard_pb2

OFFICIAL_MAX_SIDE = 640
OFFICIAL_SAMPLE_STEP = 4


def assess(card: scorecard_pb2.Scorecard, config, discovered: int) -> scorecard_pb2.Verification:
    """Blockers from data, coverage, failures, unavailable metrics and protocol flags."""
    blockers, deviations = [], []
    if config.bundled_sample:
        blockers.append(card_lib.blocker(
            scorecard_pb2.NOT_OFFICIAL_DATA,
            "the bundled synthetic sample (tools/fixtures), not the MemoBench dataset"))
    official_total = sum(dataset.OFFICIAL_CLIP_COUNTS.values())
    cov = card.coverage
    if cov.evaluated < official_total:
        blockers.append(card_lib.blocker(
            scorecard_pb2.INCOMPLETE_COVERAGE,
            f"{cov.evaluated} of the {official_total} official clips evaluated "
            f"({len(cov.missing_sample_ids)} of {cov.expected} phase-sheet clips have no "
            f"generated output)"))
    if cov.failed:
        blockers.append(card_lib.blocker(
            scorecard_pb2.SAMPLE_ERRORS, f"{cov.failed} clips failed: "
            + ", ".join(cov.failed_sample_ids[:10])
            + (" ..." if cov.failed > 10 else "")))
    for metric in card.metrics:
        if metric.leaderboard_metric and not metric.available:
            blockers.append(card_lib.blocker(
                scorecard_pb2.METRIC_UNAVAILABLE, metric.unavailable_reason, metric.id))
        elif metric.available and not metric.backend.official:
            blockers.append(card_lib.blocker(
                scorecard_pb2.NON_OFFICIAL_BACKEND, metric.backend.name, metric.id))
    if config.common.max_side != OFFICIAL_MAX_SIDE:
        deviations.append(f"--max_side={config.common.max_side} (official {OFFICIAL_MAX_SIDE})")
    if config.common.sample_step != OFFICIAL_SAMPLE_STEP:
        deviations.append(
            f"--sample_step={config.common.sample_step} (official {OFFICIAL_SAMPLE_STEP})")
    for deviation in deviations:
        blockers.append(card_lib.blocker(scorecard_pb2.PROTOCOL_DEVIATION, deviation))
    return card_lib.verification(blockers, deviations, evaluated=cov.evaluated)
