"""Test helpers for --sample_batch: a run's per-sample rows with and without shared
calls must agree, and the model calls can be counted."""

import json
import pathlib
from typing import Dict, Iterable, Tuple

import pytest

TOLERANCE = 1e-5  # issue 16: batching moves no value beyond 1e-5


def rows(out_dir: pathlib.Path) -> Dict[str, dict]:
    """{sample_id: row} of the run's per_sample_scores.jsonl."""
    lines = (pathlib.Path(out_dir) / "per_sample_scores.jsonl").read_text().splitlines()
    return {row["sample_id"]: row for row in map(json.loads, lines)}


def assert_rows_match(alone: Dict[str, dict], batched: Dict[str, dict]) -> None:
    """The same samples, errors, unavailable reasons, metric ids, and every value
    within TOLERANCE."""
    assert set(alone) == set(batched)
    for sample_id, row in alone.items():
        other = batched[sample_id]
        assert row.get("error") == other.get("error"), sample_id
        assert row.get("unavailable") == other.get("unavailable"), sample_id
        assert set(row.get("metrics", {})) == set(other.get("metrics", {})), sample_id
        for metric_id, value in row.get("metrics", {}).items():
            assert other["metrics"][metric_id] == pytest.approx(
                value, rel=TOLERANCE, abs=TOLERANCE), (sample_id, metric_id)


def count_calls(monkeypatch, targets: Iterable[Tuple[str, object, str]]) -> Dict[str, int]:
    """Wraps each (name, module, function) so that its calls are counted under name;
    returns the live counts."""
    calls: Dict[str, int] = {}
    for name, module, function in targets:
        def counted(*args, _inner=getattr(module, function), _name=name, **kwargs):
            calls[_name] = calls.get(_name, 0) + 1
            return _inner(*args, **kwargs)
        monkeypatch.setattr(module, function, counted)
    return calls
