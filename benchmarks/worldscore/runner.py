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
from typing import Callable, List, Optional, Tuple

from benchmarks.common import engine
from benchmarks.common import run_device
from benchmarks.common import sample_batch
from benchmarks.common.flags import CommonConfig
from benchmarks.worldscore import aspects
from benchmarks.worldscore import card as card_parts
from benchmarks.worldscore import dataset
from benchmarks.worldscore import families as families_lib
from benchmarks.worldscore import layout
from benchmarks.worldscore import manifest
from benchmarks.worldscore import metric_specs
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
    """Generated instances in the official order, then dataset entries with no folder
    (all shards')."""
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
    return items


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


def _evaluate(ctx: engine.Context, config: WorldScoreConfig) -> engine.Evaluation:
    metric_ids = metric_specs.TABLE.select(config.common.metrics)
    layout.check_root(config.generated_root, config.movements)  # exit 2 before any work
    all_items = items_of(config)
    items = ctx.select(all_items, lambda item: sample_lib.ref(item).key)
    prepared = families_lib.prepare(config, metric_ids)
    running = [m for m in metric_ids if prepared.family_of(m) is not None]
    load = _mask_checked(sample_lib.load_for(running), config.data_root, running)
    per_movement = {mv: _families_for(prepared, mv) for mv in config.movements}
    outcome = ctx.evaluate(engine.Pass(
        label="WorldScore", items=items, ref=sample_lib.ref, load=load,
        score=lambda item, loaded: sample_lib.score(
            item, loaded, per_movement[item.movement], config.data_root),
        digest=sample_lib.digest,
        on_sample=lambda item, s: write_evaluation(config.output_dir, s),
        batch=sample_batch.families_stage(prepared.families, config.common.sample_batch,
                                          "WorldScore"),
        settings={"version": BENCHMARK_VERSION, "metrics": sorted(running),
                  "gram_resize": config.gram_resize,
                  "backends": sorted(prepared.backend_of(m).name for m in running)},
        checkpoints=prepared.checkpoints()))
    samples = outcome.samples
    for s in samples:
        write_evaluation(config.output_dir, s)
    per_metric = card_parts.metric_results(samples, prepared, metric_ids)
    by_aspect = card_parts.aspect_results(per_metric, card_parts.pools(
        samples, config.movements), config.movements)
    scores = card_parts.worldscore_dict(by_aspect, config.movements)
    metrics = (list(by_aspect.values())
               + card_parts.headline_results(by_aspect, config.movements, scores,
                                            config.model_name in aspects.THREED_MODELS)
               + per_metric)
    evaluations = config.output_dir / EVALUATIONS_DIR
    files = {"evaluation_json_root": str(evaluations)} if evaluations.is_dir() else {}
    if scores is not None:
        files["worldscore_json"] = str(official_json.write_worldscore(
            ctx.outputs.path(official_json.WORLDSCORE_JSON), scores))
    return engine.Evaluation(
        metrics=metrics, samples=samples,
        expected=[i.key for i in items if i.entry is not None],
        found=[i.key for i in items if i.entry is not None and i.instance is not None],
        expected_source="WorldScore-Dataset " + " + ".join(
            f"{m}.json" for m in config.movements),
        facts=card_parts.facts(config, metrics, all_items),
        inputs={"generated_root": config.generated_root, "data_root": config.data_root},
        checkpoints=prepared.checkpoints(), official_files=files,
        raw_table_metrics=[m.id for m in metrics if "." in m.id],
        manifest=manifest.build(BENCHMARK_ID, config.model_name, config.generated_root,
                                items, {s.sample_id: s for s in samples}),
        notes=_notes(config, scores, by_aspect),
        device=run_device.of_models(bool(prepared.checkpoints()), config.common.device))


def _raw_column(column: str) -> bool:
    """A raw column of WorldScore's families: a metric id or its raw:<id>[:<part>]."""
    base = column[len("raw:"):] if column.startswith("raw:") else column
    return base.split(":")[0] in metric_specs.PER_INSTANCE_IDS


BENCHMARK = engine.Benchmark(
    BENCHMARK_ID, BENCHMARK_VERSION, _evaluate, metric_specs.TABLE, sample_noun="instances",
    raw_columns=_raw_column,
    # one model run fills metrics of two aspects; the two metrics of an aspect's family
    family_aliases={"optical_flow": None, "droid_slam": None,
                    "subjective_quality:clip_iqa+": "subjective_quality",
                    "subjective_quality:clip_aesthetic": "subjective_quality"})


def run(config: WorldScoreConfig) -> scorecard_pb2.Scorecard:
    """Evaluates the instances and writes every output file; returns the scorecard."""
    return engine.run(BENCHMARK, config)


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


def _notes(config, scores, by_aspect) -> List[str]:
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
    return notes
