"""VMBench runner: `run(config) -> Scorecard` over a flat folder of <index>.mp4.

Each video is decoded once and scored by the families of the selected metrics on the
shared engine (appended to per_sample_scores.jsonl as it is scored; --resume skips
what is done; a broken video is an error row). Writes the contract's files, the
official-shaped results.json and the scores.csv calculate_score.py would write from it,
both with official backends' values only. PAS and TCS run the official models
(official_models.py; unavailable with the fetch commands when a checkpoint is missing),
or PAS runs the weight-free opencv-lk-grid backend (NOT official: per_sample_scores.jsonl
and the scorecard only); CAS runs VideoMAE v2 on vit_g_vmbench.pt (or, named and NOT
official, the shipped random initialisation); the model metrics without a loader in this
version are reported unavailable with their checkpoints' fetch commands.
"""

import dataclasses
import functools
import pathlib
from typing import List, Optional

from benchmarks.common import engine
from benchmarks.common import run_device
from benchmarks.common import sample_batch
from benchmarks.common import sample_loop
from benchmarks.common import trust
from benchmarks.common.errors import InputError
from benchmarks.common.flags import CommonConfig
from benchmarks.vmbench import card_metrics
from benchmarks.vmbench import manifest
from benchmarks.vmbench import metric_specs
from benchmarks.vmbench import mss_official
from benchmarks.vmbench import official_models
from benchmarks.vmbench import official_scores
from benchmarks.vmbench import pas
from benchmarks.vmbench import prompt_suite
from benchmarks.vmbench import results_json
from benchmarks.vmbench import sample as sample_lib
from benchmarks.vmbench import verification
from proto import scorecard_pb2

BENCHMARK_ID = "vmbench"
# Bump when a change moves a number.
BENCHMARK_VERSION = "vmbench/1"
PAS_BACKENDS = ("lk", "official")


@dataclasses.dataclass(frozen=True)
class VmbenchConfig:
    """One VMBench run (see the runner's flags)."""

    common: CommonConfig
    video_dir: pathlib.Path
    prompt_manifest: pathlib.Path
    output_dir: pathlib.Path
    model_name: str
    pas_backend: str = "lk"
    grid_size: int = pas.GRID_SIZE
    quirks: official_models.Quirks = official_models.Quirks()
    cas_init: str = official_models.Options.cas_init
    cas_batch_size: int = official_models.Options.cas_batch_size
    mss_batch_frames: int = official_models.Options.mss_batch_frames
    mss_dtype: Optional[str] = None
    # Tests only: tiny architectures for the official models' tiny checkpoint files.
    architectures: Optional[dict] = None
    bundled_sample: bool = False
    recorded_flags: dict = dataclasses.field(default_factory=dict)


def _prepare(config: VmbenchConfig, metric_ids: List[str]):
    """(families, {metric: unavailable reason}) for the selected metrics."""
    options = official_models.Options(pas_grid_size=config.grid_size,
                                      cas_init=config.cas_init,
                                      cas_batch_size=config.cas_batch_size,
                                      mss_batch_frames=config.mss_batch_frames,
                                      mss_dtype=config.mss_dtype)
    prepared = official_models.prepare(config.common, metric_ids, config.quirks, options,
                                       architectures=config.architectures,
                                       pas_backend=config.pas_backend)
    reasons = {m: why for m, (why, _) in prepared.unavailable.items()}
    return _mss_reads_pas(prepared.families, reasons), reasons


def _mss_reads_pas(families, reasons):
    """MSS's threshold reads the PAS of the same video: without a PAS family MSS is
    unavailable; on a PAS that is not official (lk, a corrected quirk) it is named and
    NOT official too."""
    mss = next((f for f in families if official_scores.MSS in f.metric_ids), None)
    if mss is None:
        return families
    pas_family = next((f for f in families if official_scores.PAS in f.metric_ids), None)
    if pas_family is None:
        why = reasons.get(official_scores.PAS, "not selected: add pas to --metrics")
        reasons[official_scores.MSS] = (f"{mss_official.NO_PAS}, and PAS is unavailable "
                                        f"in this run ({why})")
        return [f for f in families if f is not mss]
    if not pas_family.backend.official:
        variant = scorecard_pb2.Backend()
        variant.CopyFrom(mss.backend)
        variant.name = f"{mss.backend.name} (thresholds from PAS {pas_family.backend.name})"
        variant.official = False
        variant.note = (f"its artifact threshold reads a PAS that is not official "
                        f"({pas_family.backend.name}): NOT the official MSS; "
                        + mss.backend.note)
        mss.backend = variant
    return families


def _evaluate(ctx: engine.Context, config: VmbenchConfig) -> engine.Evaluation:
    metric_ids = metric_specs.TABLE.select(config.common.metrics)
    suite = prompt_suite.load_manifest(config.prompt_manifest)
    layout = prompt_suite.discover(config.video_dir, suite)
    if not layout.videos:
        raise InputError(config.video_dir, "at least one <index>.mp4 of the prompt suite "
                         f"({config.prompt_manifest.name}: {suite[0].index}..)",
                         f"none ({len(layout.unmatched)} other entries)")
    items = ctx.select(list(layout.videos), lambda item: sample_lib.ref(item).key)
    families, reasons = _prepare(config, metric_ids)
    checkpoints = [ref for f in families for ref in f.checkpoints]
    outcome = ctx.evaluate(engine.Pass(
        label="VMBench", items=items, ref=sample_lib.ref,
        load=functools.partial(sample_lib.load, max_side=config.common.max_side),
        score=lambda item, loaded: sample_lib.score(item, loaded, families),
        digest=sample_lib.digest,
        batch=sample_batch.no_stage(config.common.sample_batch, "VMBench"),
        settings={"version": BENCHMARK_VERSION, "metrics": sorted(metric_ids),
                  "pas_backend": config.pas_backend, "grid": config.grid_size,
                  "quirks": dataclasses.asdict(config.quirks), "cas_init": config.cas_init,
                  "mss_dtype": config.mss_dtype},
        checkpoints=checkpoints))
    samples = outcome.samples
    backends = {f.metric_ids[0]: trust.with_digests(f.backend, f.checkpoints)
                for f in families}
    metrics = []
    for metric_id in metric_specs.PER_VIDEO_IDS:
        if metric_id not in metric_ids:
            continue
        fam = next((f for f in families if metric_id in f.metric_ids), None)
        seconds = sum(float(s.diagnostics.get(sample_loop.SECONDS + fam.name, 0))
                      for s in samples) if fam else 0.0
        metrics.append(card_metrics.per_video(
            metric_id, samples, backends.get(metric_id, scorecard_pb2.Backend()),
            reasons.get(metric_id, ""), seconds))
    computed = [m.id for m in metrics if m.available]
    metrics += card_metrics.totals(samples, backends, computed)
    notes = verification.notes(config, suite, layout)
    official_ids = [m for m in metric_ids if backends.get(m, scorecard_pb2.Backend()).official]
    left_out = [m for m in metric_ids if m in backends and m not in official_ids]
    if left_out:
        notes.append(
            f"results.json and scores.csv hold only values from official backends: "
            f"{', '.join(left_out)} ({', '.join(backends[m].name for m in left_out)}, NOT "
            "official) are in per_sample_scores.jsonl and this scorecard only, so that no "
            "official script reads them as VMBench's numbers")
    by_id = {s.sample_id: s for s in samples}
    return engine.Evaluation(
        metrics=metrics, samples=samples,
        expected=ctx.this_shard([p.index for p in suite], _index_key),
        found=ctx.this_shard([p.index for p, _ in layout.videos], _index_key),
        expected_source="the prompt manifest", facts=verification.facts(config, suite),
        inputs={"video_dir": config.video_dir, "prompt_manifest": config.prompt_manifest},
        checkpoints=checkpoints,
        official_files=_write(ctx.outputs, samples, layout, official_ids),
        raw_table_metrics=[m for m in metric_ids if m in metric_specs.PER_VIDEO_IDS],
        manifest=manifest.build(BENCHMARK_ID, config.model_name, config.video_dir, layout,
                                by_id),
        notes=notes, device=run_device.of_models(bool(checkpoints), config.common.device))


def _index_key(index: str):
    return sample_loop.SampleRef(index).key


def _raw_column(column: str) -> bool:
    """A metric's results.json key, or a diagnostic named after its short name (pas_...)."""
    return (column in metric_specs.PER_VIDEO_IDS
            or column.split("_")[0] in metric_specs.TABLE.alias_names)


BENCHMARK = engine.Benchmark(BENCHMARK_ID, BENCHMARK_VERSION, _evaluate, metric_specs.TABLE,
                             sample_noun="videos", raw_columns=_raw_column)


def run(config: VmbenchConfig) -> scorecard_pb2.Scorecard:
    """Evaluates the videos and writes every output file; returns the scorecard."""
    return engine.run(BENCHMARK, config)


def _write(out, samples, layout, metric_ids):
    """results.json and scores.csv, with the official backends' values only."""
    by_id = {s.sample_id: s for s in samples}
    entries = [results_json.entry_for(p.entry, path, sample_lib.values_of(by_id[p.index],
                                                                            metric_ids))
               for p, path in layout.videos if p.index in by_id]
    results_path = results_json.write(out.path(metric_specs.RESULTS_JSON), entries)
    scores_path = out.path(metric_specs.SCORES_CSV)
    official_scores.write_scores_csv(scores_path, official_scores.faithful(entries))
    return {"results_json": str(results_path), "scores_csv": str(scores_path)}
