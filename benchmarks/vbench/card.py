"""A VBench run's scorecard parts: each dimension's official aggregate over its videos in
the official order, the six scores, the official files, the gate's facts and the notes.

A dimension's value is results/aggregate.py's single-GPU aggregate over the rows of the
videos its entries list (suite_layout.Laid.order), in that order: the number upstream's
`{name}_eval_results.json` holds on one GPU, whichever executor, shard split or resume
produced the rows. Its coverage names each video it calls for without a value: a file
missing from the folder, a video that failed, or one the dimension could not score.
"""

import dataclasses
from typing import Dict, List, Sequence

from benchmarks.common import gate
from benchmarks.common import scorecard as card_lib
from benchmarks.common import trust
from benchmarks.vbench import families as families_lib
from benchmarks.vbench import metric_specs
from benchmarks.vbench import sample as sample_lib
from benchmarks.vbench.results import aggregate as aggregate_lib
from benchmarks.vbench.results import official_files
from benchmarks.vbench.results import score_card
from benchmarks.vbench.suite import layout as layout_lib
from proto import scorecard_pb2

_LISTED = 10
SINGLE_GPU = ("every dimension is aggregated as upstream aggregates it on ONE GPU, also for "
              "sharded, Ray and resumed runs (spec §6): subject_consistency weighted by frame "
              "pairs (torchrun: the mean of the videos) and appearance_style over all frames "
              "(torchrun: the mean of each video's last frame)")
STATIC_FILTER = ("temporal_flickering scores the videos as given: upstream's protocol first "
                 "keeps up to 5 static videos of 25 per prompt with its static filter "
                 "(`./bazelw run //benchmarks/vbench/motion:static_filter`), then scores the "
                 "filtered folder")


@dataclasses.dataclass
class Results:
    metric_results: List[scorecard_pb2.MetricResult]
    official: List[official_files.DimensionResult]


def _missing_reason(item: sample_lib.Item, sample, dim: str) -> str:
    if item.path is None:
        return f"video not found: {item.name} (upstream warns and scores the others)"
    if sample is None:
        return "not scored in this run"
    if sample.error:
        return f"the video failed: {sample.error.splitlines()[0]}"
    return sample.unavailable.get(dim, "no value")


def _seconds(samples, dim: str) -> float:
    key = families_lib.SECONDS_KEY + dim
    return sum(float(s.diagnostics[key]) for s in samples if key in s.diagnostics)


def _peak_bytes(samples, key: str) -> int:
    """The largest peak (bytes) any sample recorded under diagnostics `key`; 0 for none."""
    found = [float(s.diagnostics[key]) for s in samples if s.diagnostics.get(key)]
    return int(round(max(found) * 2**20)) if found else 0


def _dimension(spec, laid, chosen, by_name, prepared) -> tuple:
    """(MetricResult, DimensionResult or None) of one computed dimension."""
    dim = spec.id
    fam = prepared.family_of(dim)
    backend = trust.with_digests(prepared.backend_of(dim), fam.checkpoints_for(dim))
    expected = [v for v in laid.videos if dim in v.dimensions and v.name in chosen]
    rows = [aggregate_lib.from_sample(by_name[name], laid.video_path[name])
            for name in laid.order.get(dim, ()) if name in chosen and name in by_name
            and not by_name[name].error and dim in by_name[name].metrics]
    try:
        value = aggregate_lib.aggregate(dim, rows)
    except aggregate_lib.NoVideos:
        reasons = [_missing_reason(v, by_name.get(v.name), dim) for v in expected]
        why = reasons[0] if reasons else "no video of the folder is listed for it"
        return card_lib.unavailable(spec, f"no video has a value (first: {why})", backend), None
    result = card_lib.unavailable(spec, "", backend)
    result.available, result.unavailable_reason = True, ""
    result.value, result.sample_count = value, len(rows)
    result.seconds = round(_seconds(by_name.values(), dim), 3)
    result.peak_host_bytes = _peak_bytes(by_name.values(), families_lib.PEAK_HOST_KEY + dim)
    result.peak_device_bytes = _peak_bytes(by_name.values(), families_lib.PEAK_DEVICE_KEY + dim)
    result.expected_sample_count = len(expected)
    have = {name for name in laid.order.get(dim, ()) if name in by_name
            and not by_name[name].error and dim in by_name[name].metrics}
    for item in expected:
        if item.name not in have:
            key = f"{sample_lib.SPLIT}/{item.name}"
            result.missing_sample_ids.append(key)
            result.missing_reasons[key] = _missing_reason(item, by_name.get(item.name), dim)
    return result, official_files.DimensionResult(dim, value, rows)


def dimension_results(laid, chosen: set, samples, dimensions: Sequence[str], prepared,
                      config) -> Results:
    del config
    by_name = {s.sample_id: s for s in samples}
    out, official = [], []
    for spec in metric_specs.DIMENSION_SPECS:
        dim = spec.id
        if dim not in dimensions:
            out.append(card_lib.unavailable(spec, "not selected (--dimensions)"))
        elif dim in laid.refused:
            out.append(card_lib.unavailable(spec, laid.refused[dim]))
        elif dim in prepared.unavailable:
            why, backend = prepared.unavailable[dim]
            out.append(card_lib.unavailable(spec, why, backend))
        else:
            result, entry = _dimension(spec, laid, chosen, by_name, prepared)
            out.append(result)
            if entry is not None:
                official.append(entry)
    requested = {d: k for k, d in enumerate(dimensions)}
    official.sort(key=lambda r: requested[r.dimension])
    aggregates = {r.dimension: r.aggregate for r in official}
    out += score_card.final_scores(out, aggregates, {})
    return Results(out, official)


def write_official_files(config, laid, chosen: set, results: Results) -> Dict[str, str]:
    """{name}_full_info.json and {name}_eval_results.json (name: --name, else the model's)."""
    del chosen
    name = config.name or config.model_name
    return {
        "full_info_json": str(official_files.write_full_info(
            config.output_dir, name, layout_lib.full_info(laid.layout))),
        "eval_results_json": str(official_files.write_eval_results(
            config.output_dir, name, results.official))}


def facts(config, laid, results: Results) -> gate.Facts:
    """Not official data: the bundled sample, a suite that is not the official one, or a
    mode other than vbench_standard. Every dimension and score is required (part 1 leaves
    six dimensions, so Semantic and Total, unavailable: no run is FULL_SUITE yet)."""
    del results
    why = []
    if config.bundled_sample:
        why.append("the bundled synthetic sample: three prompts of our own, not VBench's 946")
    elif laid.suite is not None and not laid.suite.official:
        why.append(f"the prompt suite {laid.suite.source} is not the official "
                   f"VBench_full_info.json (sha256 {laid.suite.sha256})")
    if laid.layout.mode != layout_lib.STANDARD:
        why.append(f"--mode={laid.layout.mode}: not the standard suite's prompts")
    return gate.Facts(not_official_data=why,
                      trusted=[d for d in metric_specs.COMPUTED])


def _listed(names: Sequence[str]) -> str:
    return ", ".join(names[:_LISTED]) + (f" ... ({len(names)} in all)"
                                         if len(names) > _LISTED else "")


def notes(config, laid, samples, results: Results) -> List[str]:
    out = [SINGLE_GPU]
    layout = laid.layout
    if layout.suffix_rule:
        out.append(f"video suffix: {layout.suffix_rule}")
    out.extend(layout.notes)
    if layout.unmatched:
        out.append(f"{len(layout.unmatched)} file(s) of --videos_path match no expected "
                   "video name and were not scored: " + _listed(
                       [f"{name} ({why})" for name, why in layout.unmatched]))
    long = sample_lib.long_videos(samples)
    if long:
        out.append(f"{len(long)} video(s) last {sample_lib.LONG_VIDEO_SECONDS:g} s or more: "
                   "upstream says such videos belong to VBench-Long (clips scored apart, "
                   "then averaged), not to this evaluation (VBench issue #122): "
                   + _listed([f"{n} ({s:.1f} s)" for n, s in long.items()]))
    if any(r.dimension == "temporal_flickering" for r in results.official):
        out.append(STATIC_FILTER)
    out.extend(score_card.absent_note({r.dimension: r.aggregate for r in results.official}))
    if config.bundled_sample:
        out.append("the bundled sample: three synthetic prompts of our own, five videos each "
                   "(tools/fixtures/vbench_clips.py), not VBench data")
    return out
