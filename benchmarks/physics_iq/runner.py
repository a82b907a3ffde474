"""Physics-IQ runner, original track: `run(config) -> Scorecard` over one model's folder.

The layout (layout.py, upstream's run_physics_iq.py checks reported per file) names the
198 (scenario, view) samples the descriptions call for; every generated video found is one
sample on the shared engine (sample.py: decoded once, masks through the official mp4v
round trip, the 12 values of spec §7 stored as computed, --resume keeping them). Then the
official CSV from the stored rows and calculate_iq_score over it (card.py).
"""

import dataclasses
import pathlib

from benchmarks.common import engine
from benchmarks.common.flags import CommonConfig
from benchmarks.physics_iq import card as card_parts
from benchmarks.physics_iq import layout as layout_lib
from benchmarks.physics_iq import metric_specs
from benchmarks.physics_iq import sample as sample_lib
from proto import scorecard_pb2

BENCHMARK_ID, BENCHMARK_VERSION = metric_specs.BENCHMARK_ID, metric_specs.BENCHMARK_VERSION
TRACK = "original"


@dataclasses.dataclass(frozen=True)
class PhysicsIQConfig:
    """One Physics-IQ run (see the runner's flags)."""

    common: CommonConfig
    real_dir: pathlib.Path          # the `physics-IQ-benchmark` data folder
    generated_dir: pathlib.Path     # the model's 0001_..0198_ mp4 files
    descriptions: pathlib.Path      # descriptions.csv
    output_dir: pathlib.Path
    model_name: str
    bundled_sample: bool = False
    recorded_flags: dict = dataclasses.field(default_factory=dict)


def _evaluate(ctx: engine.Context, config: PhysicsIQConfig) -> engine.Evaluation:
    metric_specs.TABLE.select(config.common.metrics)  # an unknown name: exit 2, did-you-mean
    laid = layout_lib.lay_out(config.real_dir, config.descriptions, config.generated_dir)
    laid.raise_if_refused()
    setup = sample_lib.Setup(fps=laid.fps, track=TRACK,
                             masks_out=config.output_dir / "video-masks",
                             model=config.model_name, real_masks_present=laid.masks_present)
    views = ctx.select([sample_lib.View(s, setup) for s in laid.samples],
                       lambda v: sample_lib.ref(v).key)
    chosen = [v.item for v in views]
    items = [s for s in chosen if s.generated is not None]
    outcome = ctx.evaluate(engine.Pass(
        label="Physics-IQ", items=[v for v in views if v.item.generated is not None],
        ref=sample_lib.ref, load=sample_lib.load, score=sample_lib.score,
        digest=sample_lib.digest,
        settings={"version": BENCHMARK_VERSION, "track": TRACK, "fps": laid.fps},
        checkpoints=()))
    samples = outcome.samples
    result = card_parts.results(chosen, samples, config.output_dir, config.model_name,
                                sample_lib.SPLIT)
    official = {"metrics_csv": str(result.csv_path)} if result.csv_path else {}
    return engine.Evaluation(
        metrics=result.metrics, samples=samples,
        expected=[s.name for s in chosen], found=[s.name for s in items],
        expected_source=str(config.descriptions),
        facts=card_parts.facts(laid, config.bundled_sample),
        inputs={"real_dir": config.real_dir, "generated_dir": config.generated_dir,
                "descriptions": config.descriptions},
        official_files=official,
        raw_table_metrics=sorted(_RAW_COLUMNS),
        notes=card_parts.notes(laid, result))


_RAW_COLUMNS = frozenset(column for column, _, _ in sample_lib.COLUMNS)
BENCHMARK = engine.Benchmark(BENCHMARK_ID, BENCHMARK_VERSION, _evaluate, metric_specs.TABLE,
                             sample_noun="views", raw_columns=_RAW_COLUMNS.__contains__)


def run(config: PhysicsIQConfig) -> scorecard_pb2.Scorecard:
    """Evaluates the model's videos and writes every output file; returns the scorecard."""
    return engine.run(BENCHMARK, config)
