"""The evaluation engine: `run(benchmark, config) -> Scorecard`, one skeleton for all.

A benchmark only declares (`Benchmark`): its id and version, its metric table, the noun of
its samples, and
`evaluate(ctx, config) -> Evaluation`: which samples (`ctx.select`), its passes over them
(`Pass`, run by `ctx.evaluate`), its formulas, aggregates and official output files, and
the facts the gate needs (`gate.Facts`). The engine owns everything else, once:

  flags -> config -> check_output_dir -> benchmark.evaluate(ctx, config)
        ctx.select: this shard's samples, then --limit
        ctx.evaluate(pass): the resume digest (the pass's declared settings + its
          checkpoints + the common preprocessing), the store, the sample loop (local or Ray),
          each computed value held to its metric's range (computed_values.py)
  -> coverage -> gate (gate.assess) -> notes (resume, recompute) -> provenance
  -> run record (the resolved device) -> contract files -> scorecard.json

Importers take the same road out: the benchmark parses the official tool's files into an
`Imported` (its card, its rows, its official files), and `write_import` does the rest
(the output-dir check, provenance, the contract files, scorecard.json).

A config is the benchmark's dataclass with `common` (flags.CommonConfig), `output_dir`,
`model_name`, `recorded_flags` and `bundled_sample`.
"""

import contextlib
import dataclasses
import json
import pathlib
import time
from typing import Any, Callable, Dict, Iterator, List, Mapping, Optional, Sequence

from benchmarks.common import computed_values
from benchmarks.common import gate
from benchmarks.common import max_side
from benchmarks.common import metric_table
from benchmarks.common import outputs as outputs_lib
from benchmarks.common import provenance
from benchmarks.common import sample_batch
from benchmarks.common import sample_loop
from benchmarks.common import scorecard as card_lib
from benchmarks.common import shards
from benchmarks.common.sample_store import SampleStore, checkpoint_settings, config_digest
from proto import manifest_pb2
from proto import scorecard_pb2


@dataclasses.dataclass(frozen=True)
class Benchmark:
    """What a benchmark package declares; `engine.run` does the rest."""

    id: str
    version: str                # bump when a change moves a number
    evaluate: Callable[["Context", Any], "Evaluation"]
    table: metric_table.MetricTable  # every metric it reports (ids, units, leaderboard)
    sample_noun: str = "samples"  # "videos", "clips", "instances": in notes and messages
    # The family contract (benchmarks/common/family_contract.py): which raw columns its
    # families may fill, and the table family each differently named family stands for
    # (None: it fills metrics of several, one model run for two).
    raw_columns: Callable[[str], bool] = lambda column: False
    family_aliases: Mapping[str, Optional[str]] = dataclasses.field(default_factory=dict)


@dataclasses.dataclass
class Pass:
    """One loop over samples with its own resumable store (most benchmarks have one;
    MemoBench has Step 1, ORS and VQA).

    `settings` are the benchmark's settings that change numbers (its version, metrics,
    backends, seeds ...): with `checkpoints` (each one's metric and sha256) and the common
    preprocessing (--max_side) they make the store's resume digest. `checkpoints=None`
    leaves them out (a pass that records its checkpoint in `settings` itself). A pass
    given to `Context.loop` on a store the caller opened uses neither.
    """

    label: str
    items: Sequence
    ref: Callable[[Any], sample_loop.SampleRef]
    load: Callable
    score: Callable
    settings: Dict[str, object] = dataclasses.field(default_factory=dict)
    checkpoints: Optional[Sequence[scorecard_pb2.CheckpointRef]] = ()
    store: str = outputs_lib.PER_SAMPLE
    digest: Optional[Callable] = None
    on_sample: Optional[Callable] = None
    batch: Optional[sample_batch.BatchStage] = None
    prefetch: bool = True


@dataclasses.dataclass
class Evaluation:
    """What `Benchmark.evaluate` hands back for the engine to assemble and write.

    `expected` / `found`: this shard's sample ids the inputs call for, and those with a
    generated input; `coverage_samples` the samples coverage counts (default `samples`);
    `official_files` the official tool's files the benchmark wrote (name -> path);
    `raw_table_metrics` the metric ids of raw_metric_table.jsonl; `device` the device its
    models ran on (the run record's): `run_device.resolve(--device)` where a model ran,
    "cpu" where none did (pixel metrics, judges over HTTP, weight-free benchmarks, whose
    runners then need not carry torch).
    """

    metrics: List[scorecard_pb2.MetricResult]
    samples: List[scorecard_pb2.SampleScore]
    expected: Sequence[str]
    found: Sequence[str]
    expected_source: str
    facts: gate.Facts
    inputs: Dict[str, object]
    checkpoints: Sequence[scorecard_pb2.CheckpointRef] = ()
    official_files: Dict[str, str] = dataclasses.field(default_factory=dict)
    raw_table_metrics: Sequence[str] = ()
    manifest: Optional[manifest_pb2.ArtifactManifest] = None
    notes: List[str] = dataclasses.field(default_factory=list)
    coverage_samples: Optional[Sequence[scorecard_pb2.SampleScore]] = None
    device: str = "cpu"


class Context:
    """What a benchmark's `evaluate` may ask of the engine during one run: the samples of
    this shard, and its passes' stores and loops (`engine.run` makes one per run; a step
    tested alone may make its own from the common settings and an output folder).

    With the benchmark's metric `table`, every sample a pass scores is screened against
    it (computed_values.screen) before it is stored: an impossible value is our bug."""

    def __init__(self, common, output_dir, table: Optional[metric_table.MetricTable] = None):
        self.common = common
        self.table = table
        self.outputs = outputs_lib.RunOutputs(output_dir)
        self.outcomes: List[tuple] = []  # (label, sample_loop.Outcome) per pass

    @property
    def output_dir(self) -> pathlib.Path:
        return self.outputs.dir

    def this_shard(self, items: Sequence, key: Callable) -> list:
        """The items of this shard (all of them unsharded), in order."""
        return shards.select(items, key, self.common)

    def select(self, items: Sequence, key: Callable) -> list:
        """The items this run evaluates: this shard's, then the first --limit."""
        chosen = self.this_shard(items, key)
        return chosen[:self.common.limit] if self.common.limit else chosen

    def digest(self, settings: Dict[str, object],
               checkpoints: Optional[Sequence[scorecard_pb2.CheckpointRef]] = ()) -> str:
        """The resume digest of a store: `settings` + checkpoints + common preprocessing."""
        full = dict(settings)
        if checkpoints is not None:
            full["checkpoints"] = checkpoint_settings(checkpoints)
        full.update(max_side.digest_settings(self.common.max_side))
        return config_digest(full)

    @contextlib.contextmanager
    def store(self, name: str, settings: Dict[str, object],
              checkpoints: Optional[Sequence[scorecard_pb2.CheckpointRef]] = ()
              ) -> Iterator[SampleStore]:
        """The resumable store `name` under --output_dir, opened for this run."""
        with SampleStore(self.outputs.path(name), self.digest(settings, checkpoints),
                         self.common.resume, self.common.stored_only) as opened:
            yield opened

    def loop(self, store: SampleStore, p: Pass) -> sample_loop.Outcome:
        """Scores `p.items` not already in `store` (the local loop or the executor's)."""
        score = p.score if self.table is None else computed_values.Screened(self.table, p.score)
        outcome = sample_loop.run(
            p.items, p.ref, store, load=p.load, score=score, label=p.label,
            digest=p.digest, on_sample=p.on_sample, prefetch=p.prefetch,
            decode_workers=self.common.decode_workers, batch=p.batch)
        self.outcomes.append((p.label, outcome))
        return outcome

    def evaluate(self, p: Pass) -> sample_loop.Outcome:
        """Opens the pass's store and scores its items."""
        with self.store(p.store, p.settings, p.checkpoints) as opened:
            return self.loop(opened, p)


def run(benchmark: Benchmark, config) -> scorecard_pb2.Scorecard:
    """Evaluates a configured run and writes every output file; returns the scorecard."""
    started_at, t0 = provenance.now_rfc3339(), time.perf_counter()
    outputs_lib.check_output_dir(config.output_dir)
    ctx = Context(config.common, config.output_dir, benchmark.table)
    ev = benchmark.evaluate(ctx, config)
    card = scorecard_pb2.Scorecard(benchmark_id=benchmark.id, model_name=config.model_name,
                                   benchmark_version=benchmark.version)
    card.metrics.extend(ev.metrics)
    counted = ev.samples if ev.coverage_samples is None else ev.coverage_samples
    card.coverage.CopyFrom(card_lib.coverage(ev.expected, ev.found, counted,
                                             ev.expected_source))
    card.coverage.internal_error_sample_ids.extend(sorted(set(sample_loop.internal_errors_of(
        s for _, outcome in ctx.outcomes for s in outcome.samples))))
    card.verification.CopyFrom(gate.assess(card, ev.facts, config.common,
                                           benchmark.sample_noun))
    card.notes.extend(ev.notes + _pass_notes(ctx.outcomes, benchmark.sample_noun)
                      + computed_values.notes(s for _, o in ctx.outcomes for s in o.samples))
    card.provenance.CopyFrom(provenance.capture(ev.inputs))
    card.provenance.checkpoints.extend(ev.checkpoints)
    out = ctx.outputs
    files = dict(ev.official_files)
    files["per_sample_scores"] = str(out.write_per_sample(ev.samples))
    files["raw_metric_table"] = str(out.write_raw_table(ev.samples, ev.raw_table_metrics))
    if ev.manifest is not None:
        files["artifact_manifest"] = str(out.write_artifact_manifest(ev.manifest))
    files["scorecard"] = str(out.path(outputs_lib.SCORECARD))
    card.output_files.update(files)
    card.run.CopyFrom(provenance.run_info(
        started_at, time.perf_counter() - t0, ev.device,
        config.recorded_flags))
    out.write_scorecard(card)
    return card


@dataclasses.dataclass
class Imported:
    """A benchmark importer's parse of the official tool's output files: the card (metrics,
    coverage, verification and notes filled), its per-sample rows (none when the files have
    model-level values only) and a writer of the official files it carries over."""

    card: scorecard_pb2.Scorecard
    samples: Sequence[scorecard_pb2.SampleScore] = ()
    raw_table_metrics: Sequence[str] = ()
    write_official: Optional[Callable[[outputs_lib.RunOutputs], Dict[str, str]]] = None


def write_import(imported: Imported, output_dir, inputs: Dict[str, object]
                 ) -> scorecard_pb2.Scorecard:
    """Writes an import's files under `output_dir` (`inputs`: the official files read, for
    provenance); returns its scorecard."""
    out = outputs_lib.RunOutputs(outputs_lib.check_output_dir(output_dir))
    card = imported.card
    card.provenance.CopyFrom(provenance.capture(inputs))
    files = dict(imported.write_official(out)) if imported.write_official else {}
    if imported.samples:
        files["per_sample_scores"] = str(out.write_per_sample(imported.samples))
        files["raw_metric_table"] = str(out.write_raw_table(imported.samples,
                                                            imported.raw_table_metrics))
    files["scorecard"] = str(out.path(outputs_lib.SCORECARD))
    card.output_files.update(files)
    out.write_scorecard(card)
    return card


def _pass_notes(outcomes, noun: str) -> List[str]:
    """What each pass reused from an earlier run and what it recomputed ("resumed: ..." and
    "recomputed ...: <ids>", the pass named in parentheses; the ids as a JSON list of
    "split/id", since ids may hold ", " themselves: VBench's are prompts)."""
    notes = []
    for label, outcome in outcomes:
        if outcome.resumed:
            notes.append(f"{RESUMED}: {outcome.resumed} {noun} ({label}) reused from an "
                         "earlier run")
        if outcome.recomputed_changed:
            notes.append(f"{RECOMPUTED} {len(outcome.recomputed_changed)} {noun} ({label}) "
                         + _CHANGED + json.dumps(list(outcome.recomputed_changed)))
    return notes


RESUMED = "resumed"
RECOMPUTED = "recomputed"
_CHANGED = " whose inputs changed since they were stored: "


def recomputed_keys(notes: Sequence[str]) -> frozenset:
    """The (split, id) of every sample the "recomputed ..." notes name."""
    return frozenset(tuple(item.split("/", 1)) for note in notes
                     if note.startswith(RECOMPUTED) and _CHANGED in note
                     for item in json.loads(note.split(_CHANGED, 1)[1]))
