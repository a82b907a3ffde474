"""WorldScore runner: `run(config) -> Scorecard` over a model's worldscore_output tree.

Every generated instance folder (layout.walk, the official order) and every dataset
entry with no folder is one sample on the shared engine: frames decoded once,
per_sample_scores.jsonl appended as each is scored, --resume skipping what is done, a
broken instance an error row naming the file while the run goes on. Writes, under
--output_dir: each instance's evaluation.json in the official shape at
worldscore_output/<instance key>/evaluation.json (the generated tree is never written
to), worldscore.json when every aspect of the movements evaluated is complete (card.py),
the scorecard, per_sample_scores.jsonl and raw_metric_table.jsonl.
"""

import dataclasses
import pathlib
import time
from typing import Callable, List, Optional, Tuple

from benchmarks.common import outputs as outputs_lib
from benchmarks.common import provenance
from benchmarks.common import sample_batch
from benchmarks.common import sample_loop
from benchmarks.common import scorecard as card_lib
from benchmarks.common import shards
from benchmarks.common.flags import CommonConfig
from benchmarks.common.sample_store import SampleStore, checkpoint_settings, config_digest
from benchmarks.worldscore import aspects
from benchmarks.worldscore import card as card_parts
from benchmarks.worldscore import dataset
from benchmarks.worldscore import families as families_lib
from benchmarks.worldscore import layout
from benchmarks.worldscore import manifest
from benchmarks.worldscore import official_json
from benchmarks.worldscore import sample as sample_lib
from proto import scorecard_pb2

BENCHMARK_ID = "worldscore"
BENCHMARK_VERSION = "worldscore/3"  # bump when a change moves a number (2: pyiqa laion_aes;
#                                     3: camera_error and reprojection_error from DROID-SLAM)
EVALUATIONS_DIR = "worldscore_output"


@dataclasses.dataclass(frozen=True)
class WorldScoreConfig:
    """One WorldScore run (see the runner's flags)."""

    common: CommonConfig
    generated_root: pathlib.Path
    data_root: pathlib.Path
    output_dir: pathlib.Path
    model_name: str
    movements: Tuple[str, ...] = aspects.VISUAL_MOVEMENTS
    gram_resize: str = "auto"
    # Tests only: tiny architectures for the models' tiny checkpoint files.
    architectures: Optional[dict] = None
    # A flow(frame_a, frame_b) -> (H, W, 2) backend and its Backend (None: none yet).
    flow: Optional[Callable] = None
    flow_backend: Optional[scorecard_pb2.Backend] = None
    bundled_sample: bool = False
    staged: str = ""  # what was staged, for a bounded run (never a benchmark result)
    only_keys: Optional[Tuple[str, ...]] = None  # a staged run: just these instances
    recorded_flags: dict = dataclasses.field(default_factory=dict)


def items_of(config: WorldScoreConfig) -> List[sample_lib.Item]:
    """Generated instances in the official order, then dataset entries with no folder."""
    items = []
    for movement in config.movements:
        entries = {e.key: e for e in dataset.load(config.data_root, movement)}
        walked = layout.walk(config.generated_root, movement)
        items += [sample_lib.Item(inst.key, movement, inst, entries.get(inst.key))
                  for inst in walked]
        absent, _ = dataset.cross_check(list(entries.values()), [i.key for i in walked])
        items += [sample_lib.Item(key, movement, None, entries[key],
                                  str(config.generated_root / key)) for key in absent]
    if config.only_keys is not None:
        items = [i for i in items if i.key in config.only_keys]
    items = shards.select(items, lambda item: sample_lib.ref(item).key, config.common)
    return items[:config.common.limit] if config.common.limit else items


def _families_for(prepared, movement):
    own = set(aspects.ASPECTS_OF[movement])
    return [f for f in prepared.families if any(m.split(".")[0] in own for m in f.metric_ids)]


def write_evaluation(out_dir: pathlib.Path, sample: scorecard_pb2.SampleScore):
    entries = sample_lib.entries_of(sample)
    if sample.error or not entries:
        return None
    path = out_dir / EVALUATIONS_DIR / sample.sample_id / official_json.EVALUATION_JSON
    path.parent.mkdir(parents=True, exist_ok=True)
    return official_json.write_evaluation(path, entries)


def run(config: WorldScoreConfig) -> scorecard_pb2.Scorecard:
    """Evaluates the instances and writes every output file; returns the scorecard."""
    started_at, t0 = provenance.now_rfc3339(), time.perf_counter()
    outputs_lib.check_output_dir(config.output_dir)
    metric_ids = families_lib.select(config.common.metrics)
    items = items_of(config)
    prepared = families_lib.prepare(config, metric_ids)
    running = [m for m in metric_ids if prepared.family_of(m) is not None]
    out = outputs_lib.RunOutputs(config.output_dir)
    digest = config_digest({"version": BENCHMARK_VERSION, "metrics": sorted(running),
                            "gram_resize": config.gram_resize,
                            "checkpoints": checkpoint_settings(prepared.checkpoints()),
                            "backends": sorted(prepared.backend_of(m).name for m in running)})
    load = _mask_checked(sample_lib.load_for(running), config.data_root, running)
    per_movement = {mv: _families_for(prepared, mv) for mv in config.movements}
    with SampleStore(out.path(outputs_lib.PER_SAMPLE), digest, config.common.resume,
                     config.common.stored_only) as store:
        outcome = sample_loop.run(
            items, sample_lib.ref, store, label="WorldScore", load=load,
            score=lambda item, loaded: sample_lib.score(
                item, loaded, per_movement[item.movement], config.data_root),
            digest=sample_lib.digest,
            on_sample=lambda item, s: write_evaluation(config.output_dir, s),
            decode_workers=config.common.decode_workers,
            batch=sample_batch.families_stage(prepared.families, config.common.sample_batch,
                                              "WorldScore"))
    samples = outcome.samples
    for s in samples:
        write_evaluation(config.output_dir, s)
    return _finish(config, out, items, samples, outcome, prepared, metric_ids,
                   started_at, t0)


def _mask_checked(load, data_root, running):
    """`load` that makes a dynamic instance an error row naming the mask folder when
    motion accuracy runs and its first-frame masks are missing (dataset.mask_problems)."""
    if families_lib.MOTION_ACCURACY not in running:
        return load

    def checked(item):
        loaded = load(item)
        if item.movement == aspects.DYNAMIC:
            problems = dataset.mask_problems(data_root, item.entry)
            if problems:
                raise ValueError("; ".join(problems))
        return loaded

    return checked


def _finish(config, out, items, samples, outcome, prepared, metric_ids, started_at, t0):
    card = scorecard_pb2.Scorecard(benchmark_id=BENCHMARK_ID, model_name=config.model_name,
                                   benchmark_version=BENCHMARK_VERSION)
    per_metric = card_parts.metric_results(samples, prepared, metric_ids)
    by_aspect = card_parts.aspect_results(per_metric, card_parts.pools(
        samples, config.movements), config.movements)
    scores = card_parts.worldscore_dict(by_aspect, config.movements)
    card.metrics.extend(list(by_aspect.values())
                        + card_parts.headline_results(by_aspect, config.movements, scores,
                                                     config.model_name in aspects.THREED_MODELS)
                        + per_metric)
    expected = [i.key for i in items if i.entry is not None]
    card.coverage.CopyFrom(card_lib.coverage(
        expected, [i.key for i in items if i.entry is not None and i.instance is not None],
        samples, "WorldScore-Dataset " + " + ".join(f"{m}.json" for m in config.movements)))
    card.coverage.internal_error_sample_ids.extend(outcome.internal_errors)
    card.verification.CopyFrom(card_lib.verification(
        card_parts.blockers(card, config, config.movements, card_parts.expected_counts(items)),
        card_parts.deviations(card), card.coverage.evaluated))
    card.notes.extend(_notes(config, outcome, scores, by_aspect))
    card.provenance.CopyFrom(provenance.capture({"generated_root": config.generated_root,
                                                 "data_root": config.data_root}))
    card.provenance.checkpoints.extend(prepared.checkpoints())
    files = {"per_sample_scores": str(out.write_per_sample(samples)),
             "raw_metric_table": str(out.write_raw_table(
                 samples, [m.id for m in card.metrics if "." in m.id])),
             "evaluation_json_root": str(config.output_dir / EVALUATIONS_DIR),
             "artifact_manifest": str(out.write_artifact_manifest(manifest.build(
                 BENCHMARK_ID, config.model_name, config.generated_root, items,
                 {s.sample_id: s for s in samples}))),
             "scorecard": str(out.path(outputs_lib.SCORECARD))}
    if scores is not None:
        files["worldscore_json"] = str(official_json.write_worldscore(
            out.path(official_json.WORLDSCORE_JSON), scores))
    card.output_files.update(files)
    card.run.CopyFrom(provenance.run_info(started_at, time.perf_counter() - t0,
                                          config.common.device, config.recorded_flags))
    out.write_scorecard(card)
    return card


def _notes(config, outcome, scores, by_aspect) -> List[str]:
    notes = ["evaluation.json files are written under --output_dir/" + EVALUATIONS_DIR
             + "/<instance>/ (the generated tree is not modified); an evaluation.json "
             "already in the generated tree is not merged in",
             "a metric that fails on an instance is left out of its evaluation.json and "
             "reported unavailable there; the official evaluator would record its fallback "
             "(-100 or +100, normalised 0)"]
    if config.bundled_sample:
        notes.append("the bundled sample: two synthetic static instances (one intra) and one "
                     "dynamic (tools/fixtures/worldscore_sample.py), not WorldScore data")
    if scores is None:
        missing = [a for a, r in by_aspect.items() if not r.available
                   and aspects.BY_NAME[a].movement in config.movements]
        notes.append("worldscore.json not written: incomplete aspects " + ", ".join(missing)
                     + " (a 0 would stand for a metric not computed)")
    if outcome.resumed:
        notes.append(f"resumed: {outcome.resumed} instances reused from an earlier run")
    if outcome.recomputed_changed:
        notes.append(f"recomputed {len(outcome.recomputed_changed)} instances whose inputs "
                     "changed: " + ", ".join(outcome.recomputed_changed))
    return notes
