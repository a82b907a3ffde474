"""One run as the report and the comparison see it: its scorecard and per-sample scores.

The per-sample scores are `per_sample_scores.jsonl` beside the scorecard (or where the
scorecard's `output_files` says the run wrote it). A run whose per-sample file is
absent still loads: its per-sample panels and paired comparisons say why they are empty.
"""

import dataclasses
import pathlib
from typing import Dict, List, Optional, Sequence

from proto import schema
from proto import scorecard_pb2

PER_SAMPLE = "per_sample_scores.jsonl"


class RunError(Exception):
    """A scorecard that cannot be read, or runs that cannot be shown together."""


@dataclasses.dataclass
class Run:
    """A loaded run.

    Attributes:
      path: the scorecard file.
      card: the scorecard.
      samples: its per-sample scores; None when the per-sample file is absent.
      samples_note: why `samples` is None (empty otherwise).
      label: a name unique among the runs shown together (the model name, numbered
        when two runs share one).
    """

    path: pathlib.Path
    card: scorecard_pb2.Scorecard
    samples: Optional[List[scorecard_pb2.SampleScore]]
    samples_note: str = ""
    label: str = ""


def metric_key(result: scorecard_pb2.MetricResult) -> str:
    """The id, with the split when the metric is one split's (`id@split`)."""
    return f"{result.id}@{result.split}" if result.split else result.id


def sample_key(sample: scorecard_pb2.SampleScore) -> str:
    return f"{sample.split}/{sample.sample_id}"


def per_sample_values(run: Run, result: scorecard_pb2.MetricResult) -> Dict[str, float]:
    """{split/id: value} of `result`'s metric on the run's samples scored without error
    (only the metric's split when it has one); empty when the run has no samples."""
    out = {}
    for sample in run.samples or []:
        if sample.error or result.id not in sample.metrics:
            continue
        if result.split and sample.split != result.split:
            continue
        out[sample_key(sample)] = sample.metrics[result.id]
    return out


def _per_sample_path(path: pathlib.Path, card: scorecard_pb2.Scorecard) -> pathlib.Path:
    beside = path.parent / PER_SAMPLE
    if beside.is_file():
        return beside
    written = card.output_files.get(PER_SAMPLE) or card.output_files.get("per_sample_scores")
    return pathlib.Path(written) if written else beside


def load_run(path: pathlib.Path) -> Run:
    """Reads a scorecard and the per-sample scores beside it; RunError when unreadable."""
    if not path.is_file():
        raise RunError(f"{path}: no such scorecard file (expected a run's scorecard.json)")
    try:
        card = schema.read_json(path, scorecard_pb2.Scorecard)
    except (ValueError, OSError) as e:  # json_format.ParseError is a ValueError
        raise RunError(f"{path}: not a worldeval scorecard: {e}") from e
    samples_path = _per_sample_path(path, card)
    if not samples_path.is_file():
        return Run(path, card, None, f"no {PER_SAMPLE} at {samples_path}")
    try:
        samples = list(schema.read_jsonl(samples_path, scorecard_pb2.SampleScore))
    except (ValueError, OSError) as e:
        raise RunError(f"{samples_path}: unreadable per-sample scores: {e}") from e
    return Run(path, card, samples)


def _labels(cards: Sequence[scorecard_pb2.Scorecard]) -> List[str]:
    names = [card.model_name or "(unnamed model)" for card in cards]
    return [f"{name} #{i + 1}" if names.count(name) > 1 else name
            for i, name in enumerate(names)]


def load_runs(paths: Sequence[pathlib.Path]) -> List[Run]:
    """Loads the runs, all of one benchmark (RunError otherwise), and labels them."""
    if not paths:
        raise RunError("no scorecards given")
    runs = [load_run(pathlib.Path(p)) for p in paths]
    benchmarks = sorted({run.card.benchmark_id for run in runs})
    if len(benchmarks) > 1:
        listed = ", ".join(f"{run.path}: {run.card.benchmark_id}" for run in runs)
        raise RunError(f"the scorecards are of different benchmarks ({listed}); a report "
                       "or comparison covers one benchmark")
    for run, label in zip(runs, _labels([run.card for run in runs])):
        run.label = label
    return runs
