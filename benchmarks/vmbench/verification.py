"""What a VMBench run may claim: its blockers, deviations and notes."""

from typing import List

from benchmarks.common import max_side
from benchmarks.common import scorecard as card_lib
from benchmarks.common import shards
from benchmarks.common import trust
from benchmarks.vmbench import metric_specs
from benchmarks.vmbench import prompt_suite
from proto import scorecard_pb2

LK_DEVIATION = ("perceptible_amplitude_score: backend opencv-lk-grid (OpenCV Lucas-Kanade "
                "grid tracks, NOT CoTracker3; no GroundingDINO/SAM detection, so every "
                "video takes the official no-detection branch: PAS = whole-frame motion "
                "degree). A PAS-like value, not the official PAS.")
TOTALS_NOTE = ("total_score is the official Total of calculate_score.py: PAS is never in "
               "it (key typo 'perceptible_amplitude_socre'), statistics.mean over the "
               "metrics present; total_score_corrected is the mean of all five x100 (the "
               "README table's Avg), unavailable until all five are computed")


def assess(card: scorecard_pb2.Scorecard, config, evaluated: int,
           metric_ids) -> scorecard_pb2.Verification:
    blockers: List[scorecard_pb2.Blocker] = []
    cov = card.coverage
    if config.bundled_sample:
        blockers.append(card_lib.blocker(
            scorecard_pb2.NOT_OFFICIAL_DATA, "the bundled synthetic sample, not VMBench's "
            "1,050 prompts"))
    elif cov.expected != prompt_suite.SUITE_SIZE:
        blockers.append(card_lib.blocker(
            scorecard_pb2.NOT_OFFICIAL_DATA, f"the prompt manifest has {cov.expected} "
            f"prompts, not the official {prompt_suite.SUITE_SIZE}"))
    if cov.missing_sample_ids:
        blockers.append(card_lib.blocker(
            scorecard_pb2.INCOMPLETE_COVERAGE, f"{len(cov.missing_sample_ids)} of "
            f"{cov.expected} prompts have no <index>.mp4"))
    blockers.extend(shards.subset_blockers(config.common))
    blockers.extend(max_side.blockers(config.common.max_side))
    if cov.failed:
        blockers.append(card_lib.blocker(
            scorecard_pb2.SAMPLE_ERRORS, f"{cov.failed} videos failed: "
            + ", ".join(cov.failed_sample_ids[:10])))
    for m in card.metrics:
        if not m.available and m.id in metric_specs.PER_VIDEO_IDS:
            blockers.append(card_lib.blocker(scorecard_pb2.METRIC_UNAVAILABLE,
                                             m.unavailable_reason, m.id))
    per_video = [m for m in card.metrics if m.id in metric_specs.PER_VIDEO_IDS]
    blockers += trust.backend_blockers(per_video)
    blockers += trust.metric_coverage_blockers(per_video)
    blockers += trust.internal_error_blockers(cov)
    unselected = [m for m in metric_specs.PER_VIDEO_IDS if m not in metric_ids]
    if unselected:
        blockers.append(card_lib.blocker(
            scorecard_pb2.METRIC_UNAVAILABLE, "not selected (--metrics): "
            + ", ".join(unselected)))
    deviations = max_side.deviations(config.common.max_side)
    if any(m.available and m.backend.name == metric_specs.PAS_LK for m in per_video):
        deviations.append(LK_DEVIATION)
    deviations += [f"{m.id}: backend {m.backend.name}: {m.backend.note}" for m in per_video
                   if m.available and "corrected" in m.backend.name]
    return card_lib.verification(blockers, deviations, evaluated)


RECOMPUTED_NOTE = "recomputed"


def notes(config, suite, layout, outcome) -> List[str]:
    out = [TOTALS_NOTE,
           ("videos are decoded at native resolution, as the official scripts do"
            if config.common.max_side is None else
            f"--max_side={config.common.max_side}: videos are NOT decoded at native "
            "resolution, as the official scripts do (see verification.deviations)"),
           "results.json carries each key computed by an official backend under its "
           "official name; scores.csv is what calculate_score.py writes from it"]
    if config.bundled_sample:
        out.append("the bundled sample: synthetic clips of a textured square moving 4, 0 "
                   "and 2 px per frame (tools/fixtures/vmbench_clips.py), not VMBench data")
    gaps = prompt_suite.missing_indices(suite)
    if gaps:
        out.append(f"{config.prompt_manifest}: {len(gaps)} indices missing from the "
                   "manifest: " + ", ".join(gaps[:10]))
    if layout.unmatched:
        out.append(f"{len(layout.unmatched)} files in {config.video_dir} match no prompt "
                   "index and were not evaluated: " + "; ".join(
                       f"{name} ({why})" for name, why in layout.unmatched[:20]))
    if layout.missing:
        out.append(f"{len(layout.missing)} prompts have no video (the official "
                   "create_meta_info.py drops them silently): "
                   + ", ".join(layout.missing[:10]) + (" ..." if len(layout.missing) > 10
                                                       else ""))
    if outcome.resumed:
        out.append(f"resumed: {outcome.resumed} videos reused from an earlier run")
    if outcome.recomputed_changed:
        out.append(f"{RECOMPUTED_NOTE} {len(outcome.recomputed_changed)} videos whose inputs "
                   "changed since they were stored: " + ", ".join(outcome.recomputed_changed))
    return out
