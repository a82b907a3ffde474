"""VBench runner: `run(config) -> Scorecard` over a folder of generated videos.

The layout (suite/layout.py, the official build_full_info_json's three modes) names the
videos each requested dimension calls for; every video found is one sample on the
shared engine: decoded once, scored on the dimensions its prompt entries list
(families.py, one model loaded once per run), a row appended as each is scored,
--resume skipping what is done, a broken video an error row naming the file while the
run goes on. Then, per dimension, the official aggregate with the single-GPU semantics
over the rows in the official order (results/aggregate.py), the official
{name}_full_info.json and {name}_eval_results.json, and cal_final_score.py's scores
(card.py).
"""

import dataclasses
import functools
import pathlib
from typing import Optional

from benchmarks.common import engine
from benchmarks.common import run_device
from benchmarks.common.flags import CommonConfig
from benchmarks.vbench import card as card_parts
from benchmarks.vbench import families as families_lib
from benchmarks.vbench import metric_specs
from benchmarks.vbench import sample as sample_lib
from benchmarks.vbench import suite_layout
from proto import scorecard_pb2

BENCHMARK_ID = "vbench"
BENCHMARK_VERSION = "vbench/1"  # bump when a change moves a number
STANDARD, CUSTOM, CATEGORY = suite_layout.MODES


@dataclasses.dataclass(frozen=True)
class VBenchConfig:
    """One VBench run (see the runner's flags)."""

    common: CommonConfig
    videos_path: pathlib.Path
    output_dir: pathlib.Path
    model_name: str
    name: str = ""
    mode: str = STANDARD
    prompt_file: Optional[pathlib.Path] = None
    prompt: Optional[str] = None
    category: Optional[str] = None
    category_prompts: Optional[pathlib.Path] = None
    special_str: str = ""
    full_info_json: Optional[pathlib.Path] = None
    bundled_sample: bool = False
    architectures: Optional[dict] = None  # tests only: tiny architectures of tiny checkpoints
    recorded_flags: dict = dataclasses.field(default_factory=dict)


MODES = suite_layout.MODES


def _evaluate(ctx: engine.Context, config: VBenchConfig) -> engine.Evaluation:
    dimensions = list(metric_specs.TABLE.select(config.common.metrics))
    laid = suite_layout.lay_out(config, dimensions)
    # Every expected video (found or not) is assigned to a shard; the found ones are scored.
    chosen = ctx.select(laid.videos, lambda v: sample_lib.ref(v).key)
    chosen_names = {v.name for v in chosen}
    items = [v for v in chosen if v.path is not None]
    prepared = families_lib.prepare(config, [d for d in dimensions if d not in laid.refused])
    running = sorted(d for d in dimensions if prepared.family_of(d) is not None)
    outcome = ctx.evaluate(engine.Pass(
        label="VBench", items=items, ref=sample_lib.ref,
        load=functools.partial(sample_lib.load, max_side=config.common.max_side),
        score=lambda item, loaded: sample_lib.score(item, loaded, prepared.families),
        digest=sample_lib.digest,
        settings={"version": BENCHMARK_VERSION, "dimensions": running},
        checkpoints=prepared.checkpoints()))
    samples = outcome.samples
    results = card_parts.dimension_results(laid, chosen_names, samples, dimensions, prepared,
                                           config)
    official = card_parts.write_official_files(config, laid, chosen_names, results)
    return engine.Evaluation(
        metrics=results.metric_results,
        samples=samples,
        expected=[v.name for v in chosen],
        found=[v.name for v in items],
        expected_source=laid.source,
        facts=card_parts.facts(config, laid, results),
        inputs={"videos_path": config.videos_path, "prompt_file": config.prompt_file,
                "full_info_json": laid.suite_path, "category_prompts": config.category_prompts},
        checkpoints=prepared.checkpoints(),
        official_files=official,
        raw_table_metrics=[d for d in dimensions if d in metric_specs.COMPUTED],
        notes=card_parts.notes(config, laid, samples, results),
        device=run_device.of_models(bool(prepared.checkpoints()), config.common.device))


def _raw_column(column: str) -> bool:
    """A dimension's video value, or its pooled numerator / denominator (d:num, d:den)."""
    base, _, part = column.partition(":")
    return base in metric_specs.DIMENSIONS and part in ("", "num", "den")


BENCHMARK = engine.Benchmark(BENCHMARK_ID, BENCHMARK_VERSION, _evaluate, metric_specs.TABLE,
                             sample_noun="videos", raw_columns=_raw_column)


def run(config: VBenchConfig) -> scorecard_pb2.Scorecard:
    """Evaluates the videos and writes every output file; returns the scorecard."""
    return engine.run(BENCHMARK, config)

