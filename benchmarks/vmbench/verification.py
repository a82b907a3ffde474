"""What a VMBench run may claim: the gate's facts and the notes."""

from typing import List

from benchmarks.common import engine
from benchmarks.common import gate
from benchmarks.vmbench import metric_specs
from benchmarks.vmbench import prompt_suite

TOTALS_NOTE = ("total_score is the official Total of calculate_score.py: PAS is never in "
               "it (key typo 'perceptible_amplitude_socre'), statistics.mean over the "
               "metrics present; total_score_corrected is the mean of all five x100 (the "
               "README table's Avg), unavailable until all five are computed")


def facts(config, suite) -> gate.Facts:
    """The gate's facts: the official suite is the 1,050 prompts; the five per-video
    metrics count (the totals are formulas over them)."""
    bundled = ["the bundled synthetic sample, not VMBench's 1,050 prompts"]
    return gate.Facts(not_official_data=bundled if config.bundled_sample else (),
                      counts=[gate.Count(str(config.prompt_manifest), len(suite),
                                         prompt_suite.SUITE_SIZE, "prompts")],
                      required=metric_specs.PER_VIDEO_IDS, trusted=metric_specs.PER_VIDEO_IDS)


RECOMPUTED_NOTE = engine.RECOMPUTED


def notes(config, suite, layout) -> List[str]:
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
    return out
