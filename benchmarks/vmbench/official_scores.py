"""VMBench's aggregation, both ways, and the official scores.csv (spec §5).

Faithful: what `bench_utils/calculate_score.py` (AMAP-ML/VMBench@c278a73) computes. It
looks for five keys, but the PAS one is spelled `perceptible_amplitude_socre`, so the
real `perceptible_amplitude_score` is never found; each key present in some entry gets
`statistics.mean` over the entries that have it; the Total is `statistics.mean` of those
means; every value written is x100; the CSV is Python's csv module (CRLF rows, floats by
repr, ints stay ints: statistics.mean of ints that divide evenly is an int). With no key
at all the Total is the int 0.

Corrected: what the README's table intends (spec §9): the mean of all five metrics, each
the mean over the videos that have it, x100 (PAS raw mean x100).
"""

import csv
import dataclasses
import io
import statistics
from typing import Dict, Iterable, List, Mapping, Optional, Union

from benchmarks.common import sample_store

PAS = "perceptible_amplitude_score"
OIS = "object_integrity_score"
TCS = "temporal_coherence_score"
MSS = "motion_smoothness_score"
CAS = "commonsense_adherence_score"
METRIC_KEYS = (PAS, OIS, TCS, MSS, CAS)  # calculate_score.py's order, typo repaired
# The official key list, typo included (calculate_score.py line 11).
OFFICIAL_KEYS = ("perceptible_amplitude_socre", OIS, TCS, MSS, CAS)
TOTAL_ROW = "Total Score"
HEADER = ("Metric", "Average Score")

Number = Union[int, float]


@dataclasses.dataclass(frozen=True)
class Aggregate:
    """Per-key means (0-1 scale, as computed) and the Total, x100 where named so."""

    means: Dict[str, Number]   # key -> statistics.mean over the entries having it
    counts: Dict[str, int]
    total_x100: Number

    def x100(self, key: str) -> Number:
        return self.means[key] * 100


def _collect(entries: Iterable[Mapping], keys) -> Dict[str, List]:
    values = {key: [] for key in keys}
    for entry in entries:
        for key in keys:
            if key in entry:
                values[key].append(entry[key])
    return values


def faithful(entries: Iterable[Mapping]) -> Aggregate:
    """calculate_score.py exactly: the typo'd PAS key (so PAS is left out unless an entry
    carries that misspelt key), statistics.mean over present values, Total of the means."""
    values = _collect(entries, OFFICIAL_KEYS)
    means = {k: statistics.mean(v) for k, v in values.items() if v}
    total = statistics.mean(means.values()) if means else 0
    return Aggregate(means, {k: len(v) for k, v in values.items() if v}, total * 100)


def corrected(entries: Iterable[Mapping]) -> Optional[Aggregate]:
    """The mean of all five metric means, each x100; None unless all five are present
    in some entry (a Total over fewer would not be the README's)."""
    values = _collect(entries, METRIC_KEYS)
    if not all(values.values()):
        return None
    means = {k: statistics.mean(v) for k, v in values.items()}
    return Aggregate(means, {k: len(v) for k, v in values.items()},
                     statistics.mean(means.values()) * 100)


def scores_csv_text(agg: Aggregate) -> str:
    """scores.csv as calculate_score.py writes it from the same results (faithful)."""
    buffer = io.StringIO(newline="")
    writer = csv.writer(buffer)
    writer.writerow(HEADER)
    for key, value in agg.means.items():
        writer.writerow([key, value * 100])
    writer.writerow([TOTAL_ROW, agg.total_x100])
    return buffer.getvalue()


def write_scores_csv(path, agg: Aggregate) -> None:
    """scores.csv, whole or not at all (sample_store.atomic_file: a full disk leaves the
    file as it was and names it); the text's UTF-8 bytes, its CRLF rows untranslated."""
    with sample_store.atomic_file(path, binary=True) as f:
        f.write(scores_csv_text(agg).encode("utf-8"))


def parse_scores_csv(text: str, path) -> Dict[str, float]:
    """{row name: value} of an official scores.csv; ValueError naming `path` when it is
    not one (header Metric,Average Score; a Total Score row; numeric values)."""
    rows = list(csv.reader(io.StringIO(text, newline="")))
    if not rows or tuple(rows[0]) != HEADER:
        raise ValueError(f"{path}: expected the header {','.join(HEADER)} "
                         "(bench_utils/calculate_score.py's scores.csv), found "
                         f"{','.join(rows[0]) if rows else 'an empty file'}")
    values = {}
    for number, row in enumerate(rows[1:], 2):
        if len(row) != 2:
            raise ValueError(f"{path}: line {number}: expected 2 fields, found {len(row)}")
        try:
            values[row[0]] = float(row[1])
        except ValueError as e:
            raise ValueError(f"{path}: line {number}: expected a number, found "
                             f"{row[1]!r}") from e
    if TOTAL_ROW not in values:
        raise ValueError(f"{path}: expected a '{TOTAL_ROW}' row, found none")
    return values


def is_number(value) -> bool:
    """A metric value calculate_score.py can average (bool excluded: not a score)."""
    return isinstance(value, (int, float)) and not isinstance(value, bool)
