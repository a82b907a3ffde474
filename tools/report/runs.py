"""One run as the report and the comparison see it: its scorecard and per-sample scores.

The per-sample scores are `per_sample_scores.jsonl` beside the scorecard (or where the
scorecard's `output_files` says the run wrote it). A run whose per-sample file is
absent still loads: its per-sample panels and paired comparisons say why they are empty.
"""

import dataclasses
import json
import pathlib
from typing import Dict, List, Optional, Sequence, Tuple

from google.protobuf import json_format

from benchmarks.common import errors
from proto import schema
from proto import scorecard_pb2

PER_SAMPLE = "per_sample_scores.jsonl"
SCORECARD_EXPECTED = "a worldeval scorecard (one JSON object: worldeval.v1.Scorecard)"
SAMPLES_EXPECTED = "per-sample scores (one worldeval.v1.SampleScore JSON object a line)"


class RunError(Exception):
    """Runs that cannot be shown together (or a comparison that cannot be made). A file
    that cannot be read is an errors.InputError naming it; BAD_INPUT catches both."""


BAD_INPUT = (RunError, errors.InputError)  # what the report's and compare's mains exit 2 on


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


class _Unusable(Exception):
    """What a file holds instead of the expected JSON object (the message says it)."""


class _Bare(str):
    """A bare NaN, Infinity or -Infinity token, as json.loads' parse_constant found it."""


def _bare_at(value, where: str = "") -> Optional[Tuple[str, str]]:
    """(JSON path, token) of the first bare non-finite token in a parsed value."""
    if isinstance(value, _Bare):
        return where or "the top level", str(value)
    if isinstance(value, dict):
        items = ((f"{where}.{k}" if where else k, v) for k, v in value.items())
    elif isinstance(value, list):
        items = ((f"{where}[{i}]", v) for i, v in enumerate(value))
    else:
        return None
    for inner, item in items:
        found = _bare_at(item, inner)
        if found:
            return found
    return None


_JSON_KINDS = {list: "a JSON array", str: "a JSON string", bool: "a JSON true/false",
               int: "a JSON number", float: "a JSON number", type(None): "a JSON null"}


def _json_object(text: str, cls):
    """`text` as a `cls` message, checked first for being one JSON object with no bare
    NaN/Infinity (which Python's json reads and the proto parser then reports as a
    traceback); _Unusable saying what was found instead."""
    if not text.strip():
        raise _Unusable("an empty file" if not text else "only whitespace")
    try:
        value = json.loads(text, parse_constant=_Bare)
        bare = _bare_at(value)
    except ValueError as e:  # json.JSONDecodeError
        where = f" at line {e.lineno} column {e.colno}" if hasattr(e, "lineno") else ""
        raise _Unusable(f"text that is not JSON ({getattr(e, 'msg', e)}{where})") from e
    except RecursionError as e:
        raise _Unusable("JSON nested too deeply to read") from e
    if bare:
        raise _Unusable(f"a bare {bare[1]} at {bare[0]} (not JSON; worldeval writes a "
                        f'non-finite number as the string "{bare[1]}")')
    if not isinstance(value, dict):
        raise _Unusable(_JSON_KINDS.get(type(value), type(value).__name__) + ", not an object")
    try:
        return schema.from_json(text, cls)
    except (json_format.Error, ValueError) as e:  # ParseError is not a ValueError
        raise _Unusable("JSON that is not a " + cls.DESCRIPTOR.name + ": "
                        + " ".join(str(e).split())) from e


def _read_text(path: pathlib.Path, expected: str) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except UnicodeDecodeError as e:
        raise errors.InputError(path, expected, f"bytes that are not UTF-8 text ({e.reason} "
                                f"at byte {e.start})") from e
    except OSError as e:
        raise errors.InputError(path, expected, f"an unreadable file ({type(e).__name__}: "
                                f"{e.strerror or e})") from e


def read_scorecard(path: pathlib.Path) -> scorecard_pb2.Scorecard:
    """The scorecard at `path`; errors.InputError naming the file and what it holds
    instead (missing, a folder, empty, not JSON, a bare NaN, not an object, not a
    Scorecard, no benchmark_id)."""
    if not path.is_file():
        raise errors.InputError(path, SCORECARD_EXPECTED,
                                "a folder" if path.is_dir() else "no such file")
    try:
        card = _json_object(_read_text(path, SCORECARD_EXPECTED), scorecard_pb2.Scorecard)
    except _Unusable as e:
        raise errors.InputError(path, SCORECARD_EXPECTED, str(e)) from e
    if not card.benchmark_id:
        raise errors.InputError(path, SCORECARD_EXPECTED,
                                "a JSON object with no benchmark_id")
    return card


def read_samples(path: pathlib.Path) -> List[scorecard_pb2.SampleScore]:
    """The per-sample scores at `path` (a torn last line, from an interrupted write, is
    left out, as the runner leaves it out); errors.InputError naming the file and line."""
    rows = []
    complete = _read_text(path, SAMPLES_EXPECTED).split("\n")[:-1]  # [-1]: torn or ""
    for number, line in enumerate(complete, 1):
        if not line.strip():
            continue
        try:
            rows.append(_json_object(line, scorecard_pb2.SampleScore))
        except _Unusable as e:
            raise errors.InputError(path, SAMPLES_EXPECTED, f"line {number}: {e}") from e
    return rows


def load_run(path: pathlib.Path) -> Run:
    """Reads a scorecard and the per-sample scores beside it; errors.InputError naming the
    file when either is unusable."""
    card = read_scorecard(path)
    samples_path = _per_sample_path(path, card)
    if not samples_path.is_file():
        return Run(path, card, None, f"no {PER_SAMPLE} at {samples_path}")
    return Run(path, card, read_samples(samples_path))


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
