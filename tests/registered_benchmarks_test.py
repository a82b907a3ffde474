"""Every registered benchmark (a catalog entry with a //benchmarks/<id>:run target), run
as a newcomer runs it: the runner binary on its bundled sample, offline, with no flags but
--output_dir. Each must go through the one engine and the one gate:

  - exit 0, with scorecard.json, per_sample_scores.jsonl and raw_metric_table.jsonl (one
    row per sample and metric: never empty), each output file it names present;
  - every metric of the card is one of its table's; the run record's device is resolved
    ("cpu" here, never the flag's "auto");
  - the gate's verdict: the bundled sample is NOT_OFFICIAL_DATA first, the run BOUNDED and
    not eligible; blockers come in the gate's order (data and coverage, then
    METRIC_UNAVAILABLE, then the trust facts, then internal errors); each
    METRIC_UNAVAILABLE names one metric that is unavailable or not in the card.

A fifth benchmark added to the catalog is run here without an edit.
"""

import json
import os
import pathlib
import subprocess

import pytest

from benchmarks.common import runtime_profiles
from proto import schema
from proto import scorecard_pb2
from tools.catalog import registry

_STAGE = {scorecard_pb2.METRIC_UNAVAILABLE: 1, scorecard_pb2.NON_OFFICIAL_BACKEND: 2,
          scorecard_pb2.UNVERIFIED_PARITY: 2, scorecard_pb2.UNPINNED_CHECKPOINT: 2,
          scorecard_pb2.INCOMPLETE_METRIC_COVERAGE: 2, scorecard_pb2.INTERNAL_ERRORS: 3}


def _runner(benchmark_id: str) -> pathlib.Path:
    path = pathlib.Path("benchmarks") / runtime_profiles.package_of(benchmark_id) / "run"
    assert path.exists(), f"{path}: the runner binary is not in the runfiles"
    return path


@pytest.fixture(scope="module", params=registry.ids())
def bundled_run(request, tmp_path_factory):
    out = tmp_path_factory.mktemp(request.param)
    env = {k: v for k, v in os.environ.items()  # the runner sets its own PYTHONPATH
           if not k.startswith("WORLDFOUNDRY_") and k != "PYTHONPATH"}
    done = subprocess.run(
        [str(_runner(request.param)), f"--output_dir={out}", "--offline"],
        capture_output=True, text=True, env=env, timeout=600, check=False)
    return request.param, out, done


def test_the_bundled_sample_runs_and_writes_the_contract_files(bundled_run):
    benchmark_id, out, done = bundled_run
    assert done.returncode == 0, done.stderr[-3000:]
    card = schema.read_json(out / "scorecard.json", scorecard_pb2.Scorecard)
    assert card.benchmark_id == benchmark_id
    for name in ("scorecard", "per_sample_scores", "raw_metric_table"):
        assert name in card.output_files, name
    for name, path in card.output_files.items():
        assert pathlib.Path(path).exists(), (name, path)
    rows = (out / "raw_metric_table.jsonl").read_text().splitlines()
    assert rows, "raw_metric_table.jsonl is empty"
    assert all(json.loads(row)["metric_id"] for row in rows)
    known = {spec.id for spec in registry.table(benchmark_id).specs}
    assert {m.id for m in card.metrics} <= known
    assert card.run.device == "cpu"


def test_the_gate_speaks_the_same_way_for_every_benchmark(bundled_run):
    _, out, done = bundled_run
    assert done.returncode == 0, done.stderr[-3000:]
    card = schema.read_json(out / "scorecard.json", scorecard_pb2.Scorecard)
    ver = card.verification
    assert ver.blocking[0].reason == scorecard_pb2.NOT_OFFICIAL_DATA, ver.blocking[0]
    assert "bundled" in ver.blocking[0].detail
    assert ver.scope == scorecard_pb2.BOUNDED and not ver.leaderboard_eligible
    stages = [_STAGE.get(b.reason, 0) for b in ver.blocking]
    assert stages == sorted(stages), [scorecard_pb2.BlockingReason.Name(b.reason)
                                      for b in ver.blocking]
    by_id = {m.id: m for m in card.metrics}
    for b in ver.blocking:
        if b.reason == scorecard_pb2.METRIC_UNAVAILABLE:
            assert b.metric_id, b
            assert b.metric_id not in by_id or not by_id[b.metric_id].available, b
