"""Importing a Physics-IQ Verified submission card (PR #69 b92d202
submission/submission.yaml; spec §10 "Submission YAML") into a scorecard for
"physics-iq-verified" (scope IMPORTED_OFFICIAL_RESULTS).

The card holds the submitter's own scores (`reported_scores`, in %, the mean and std over
their runs as physiq/aggregate_runs_from_csvs.py prints them) and no per-view file, so
nothing can be recomputed: the ten numbers are carried as written, as self-reported
(backend not official, parity not verified), with a note naming the card's model,
organization and date. submission.load checks the card as physiq/submit.py does (every
problem named, exit 2). A mean or std outside [0, 100] is refused with the field named
(metric_specs.TABLE through metric_table.ValueChecks); a `.nan` std (one run:
pandas' std of one value) is that metric unavailable with the reason.
"""

import math
import pathlib
from typing import List, Optional

from benchmarks.common import engine
from benchmarks.common import gate
from benchmarks.common import outputs as outputs_lib
from benchmarks.common import scorecard as card_lib
from benchmarks.common import trust
from benchmarks.common.errors import InputError
from benchmarks.common.metric_table import ValueChecks
from benchmarks.physics_iq import submission
from benchmarks.physics_iq_verified import metric_specs
from proto import scorecard_pb2

SELF_REPORTED = "self-reported by the submitter; not recomputed (no per-view file)"
ONE_RUN = ("NaN in the card: the std of a single run (aggregate_runs_from_csvs.py, pandas "
           "std with ddof 1)")

BACKEND = scorecard_pb2.Backend(
    name=SELF_REPORTED, official=False, digest_pinned=False,
    implementation="the submitter's own run of physiq/ (not seen by worldeval)",
    note=SELF_REPORTED, parity=trust.not_verified("the submitter's numbers, read as written"))


def _metrics(card: submission.Card, checks: ValueChecks) -> List[scorecard_pb2.MetricResult]:
    out, bad = [], []
    for spec in metric_specs.SPECS:
        value = card.reported_scores[spec.id]
        result = card_lib.unavailable(spec, "", BACKEND)
        if spec.id.endswith("_std") and math.isnan(value):
            result.unavailable_reason = ONE_RUN
        elif reason := checks.check(f"{card.path}: reported_scores.{spec.id}", spec.id,
                                    value):
            bad.append(reason)
        else:
            result.available, result.value = True, value
        out.append(result)
    if bad:
        raise InputError(card.path, "reported scores in % (0-100), as "
                         "aggregate_runs_from_csvs.py prints them", "; ".join(bad))
    return out


def import_submission(path, model_name: Optional[str] = None) -> engine.Imported:
    """The scorecard of the submission card at `path` (`model_name`: default the card's
    public_info.model).

    Raises:
      InputError: an unreadable card or one submit.py would refuse (every problem named),
        or a reported score outside [0, 100].
    """
    path = pathlib.Path(path)
    card_in = submission.load(path)
    content = path.read_bytes()
    info = card_in.public_info
    name = model_name or str(info.get("model"))
    card = scorecard_pb2.Scorecard(benchmark_id=metric_specs.BENCHMARK_ID,
                                   model_name=name, benchmark_version=metric_specs.BENCHMARK_VERSION)
    checks = ValueChecks(metric_specs.TABLE)
    card.metrics.extend(_metrics(card_in, checks))
    card.coverage.CopyFrom(scorecard_pb2.Coverage(expected_source=str(path)))
    required = [s.id for s in metric_specs.SPECS if s.id.endswith("_mean")]
    ver = gate.assess_import(card, gate.Facts(required=required), "views", per_sample=False)
    # The gate leaves an import's backend trust alone (the official tool ran); here no one
    # but the submitter ran anything: one blocker says so.
    blockers = list(ver.blocking) + [card_lib.blocker(
        scorecard_pb2.UNVERIFIED_PARITY, f"{BACKEND.name}: {SELF_REPORTED}")]
    card.verification.CopyFrom(card_lib.verification(blockers, list(ver.deviations), 0,
                                                     imported=True))
    card.notes.extend([
        f"self-reported: the numbers are the submitter's, from the card for model "
        f"{info.get('model')!r} (version {info.get('model_version')!r}) of "
        f"{info.get('organization')!r}, dated {info.get('date')!r}; worldeval recomputed "
        "nothing (a submission card carries no per-view file)",
        f"the card's setting: input_type {info.get('input_type')!r}, descriptions "
        f"{info.get('descriptions')!r}, availability {info.get('availability')!r}, "
        f"reported in {info.get('reported')!r}",
    ] + list(card_in.notes) + checks.notes())

    def write_official(out: outputs_lib.RunOutputs):
        """The card as read, byte for byte."""
        target = out.path(metric_specs.CARD_FILE)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(content)
        return {"submission_yaml": str(target)}

    return engine.Imported(card, (), (), write_official)


def write_outputs(out_dir, imported: engine.Imported, inputs: Optional[dict] = None
                  ) -> scorecard_pb2.Scorecard:
    """scorecard.json and the card copied as submission/submission.yaml."""
    return engine.write_import(imported, out_dir, inputs or {})
