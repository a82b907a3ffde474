"""Fail-closed preflight: is everything a benchmark's metrics need here, before a run?

For each metric of a runtime profile (benchmarks/<package>/runtime_profile.textproto) it
checks the Python modules, checkpoints, environment variables, services and CUDA the
profile names (benchmarks/common/preflight_checks.py) and gives a verdict: ready, or not
with one reason per failing check. A metric the profile marks `pending` is never ready.

Readiness is never evidence that a benchmark ran (WorldFoundry's runtime-environments
docs say the same of their `ready: true`): a report is not a scorecard and no catalog
claim may cite one.

Runners call `unready_metrics` first and report those metrics unavailable with the
reason; //tools:preflight prints the same verdicts as a table and a JSON report.
"""

import concurrent.futures
import dataclasses
import datetime
import re
import sys
import time
from typing import Dict, FrozenSet, Iterable, List, Mapping, Optional, Sequence, Union

from benchmarks.common import preflight_checks
from benchmarks.common import runtime_profiles
from metrics.checkpoints import resolver
from proto import preflight_pb2
from proto import runtime_profile_pb2

DISCLAIMER = ("Readiness is not evidence that the benchmark ran: this report says what is "
              "installed and reachable, nothing about any result.")
_KIND = preflight_pb2.PreflightCheck
_CUDA_DEVICES = (runtime_profile_pb2.CUDA_REQUIRED, runtime_profile_pb2.CUDA_PREFERRED)


@dataclasses.dataclass(frozen=True)
class Options:
    """Where to look and how long to wait.

    Attributes:
      checkpoint_dir: searched like a runner's --checkpoint_dir (`<dir>/<name>/<file>`).
      explicit_checkpoints: resolver name -> path, a runner's explicit checkpoint flags.
      import_timeout_s: per imported module (a cold `import torch` takes seconds).
      service_timeout_s: per service probe.
      workers: checks run concurrently (imports, hashing and probes wait on I/O).
      kinds: which PreflightCheck kinds to run (None: all). A runner asks only for
        PYTHON_MODULE and CUDA: its loaders resolve (and may fetch) checkpoints, and its
        judge step checks the key and address it was given.
    """

    checkpoint_dir: Optional[str] = None
    explicit_checkpoints: Mapping[str, str] = dataclasses.field(default_factory=dict)
    import_timeout_s: float = 180.0
    service_timeout_s: float = 3.0
    workers: int = 4
    kinds: Optional[FrozenSet[int]] = None

    def wants(self, kind: int) -> bool:
        return self.kinds is None or kind in self.kinds


def checkpoint_spec(req: runtime_profile_pb2.CheckpointRequirement) -> resolver.CheckpointSpec:
    """The resolver's view of a profile checkpoint, so both look in the same places."""
    return resolver.spec_from_record(req)


def _module_fix(module: str, benchmark_id: str) -> str:
    return (f"make `{module}` importable in this environment: the package that provides it "
            f"goes in third_party/python/requirements.in (then relock), or see the notes of "
            f"benchmarks/{runtime_profiles.package_of(benchmark_id)}/"
            f"{runtime_profiles.PROFILE_FILE}")


def _fetch_fix(benchmark_id: str, metric_id: str, spec: resolver.CheckpointSpec,
               req: runtime_profile_pb2.CheckpointRequirement,
               checkpoint_dir: Optional[str]) -> str:
    cache = f" --cache_dir={checkpoint_dir}" if checkpoint_dir else ""
    fix = (f"./bazelw run //tools:assets -- fetch --benchmark={benchmark_id} "
           f"--metrics={metric_id}{cache}")
    if req.fetch_command:
        fix += f"  (or: {req.fetch_command})"
    elif spec.hf_repo or spec.url:
        fix += f"  (or: {spec.fetch_command(checkpoint_dir)})"
    return fix


def _imports(modules: Sequence[str], cuda: bool, timeout_s: float, benchmark_id: str):
    """({module: check}, cuda check or None): every import through one child process,
    in order, then the CUDA question (torch is imported by then if it is importable)."""
    probe = preflight_checks.ImportProbe(timeout_s)
    try:
        checks = {m: preflight_checks.python_module(probe, m, _module_fix(m, benchmark_id))
                  for m in modules}
        return checks, (preflight_checks.cuda(probe) if cuda else None)
    finally:
        probe.close()


class _Checks:
    """Runs each distinct requirement once (a module shared by ten metrics is imported
    once), concurrently with the others, and hands out the results per metric."""

    def __init__(self, profile, selected, options: Options, pool: concurrent.futures.Executor):
        self._profile, self._options = profile, options
        self._modules = {req.metric_id: list(dict.fromkeys(
            [*profile.python_modules, *req.python_modules])) for req in selected}
        ordered = list(dict.fromkeys(m for req in selected for m in self._modules[req.metric_id]))
        cuda = any(req.device in _CUDA_DEVICES for req in selected)
        self._imports = pool.submit(_imports, ordered, cuda, options.import_timeout_s,
                                    profile.benchmark_id)
        self._futures: Dict[tuple, concurrent.futures.Future] = {}
        for req in selected:
            for ckpt in (req.checkpoints if options.wants(_KIND.CHECKPOINT) else ()):
                spec = checkpoint_spec(ckpt)
                self._submit(pool, ("checkpoint", spec.name, spec.filename),
                             preflight_checks.checkpoint, spec, options.checkpoint_dir,
                             options.explicit_checkpoints.get(spec.name),
                             _fetch_fix(profile.benchmark_id, req.metric_id, spec, ckpt,
                                        options.checkpoint_dir))
            for service in (req.services if options.wants(_KIND.SERVICE) else ()):
                self._submit(pool, ("service", service.address), preflight_checks.service,
                             service, options.service_timeout_s)

    def _submit(self, pool, key: tuple, fn, *args) -> None:
        if key not in self._futures:
            self._futures[key] = pool.submit(fn, *args)

    def for_metric(self, req: runtime_profile_pb2.MetricRequirement
                   ) -> List[preflight_pb2.PreflightCheck]:
        # What the runner needs whichever metrics run is needed by every metric.
        modules, cuda = self._imports.result()
        checks = [modules[m] for m in self._modules[req.metric_id]]
        options = self._options
        if options.wants(_KIND.CHECKPOINT):
            checks += [self._futures[("checkpoint", spec.name, spec.filename)].result()
                       for spec in map(checkpoint_spec, req.checkpoints)]
        if options.wants(_KIND.ENV_VAR):
            required_runner_vars = [v for v in self._profile.env_vars if v.required]
            checks += [preflight_checks.env_var(v)
                       for v in [*required_runner_vars, *req.env_vars]]
        if options.wants(_KIND.SERVICE):
            checks += [self._futures[("service", s.address)].result() for s in req.services]
        if req.device in _CUDA_DEVICES and options.wants(_KIND.CUDA):
            check = preflight_pb2.PreflightCheck()
            check.CopyFrom(cuda)
            check.blocking = req.device == runtime_profile_pb2.CUDA_REQUIRED
            if check.blocking and not check.ok:
                check.fix = "run on a machine with an NVIDIA GPU and a driver for torch's CUDA build"
            elif not check.ok:
                check.reason += " (CUDA preferred: the metric runs on the CPU, slower)"
            checks.append(check)
        return checks


def _verdict(req: runtime_profile_pb2.MetricRequirement,
             checks: Sequence[preflight_pb2.PreflightCheck]) -> preflight_pb2.MetricVerdict:
    verdict = preflight_pb2.MetricVerdict(metric_id=req.metric_id, pending=req.pending)
    verdict.checks.extend(checks)
    if req.pending:
        verdict.reasons.append(f"not computed by worldeval yet: {req.pending}")
    verdict.reasons.extend(c.reason for c in checks if c.blocking and not c.ok)
    verdict.ready = not verdict.reasons
    return verdict


def run_preflight(profile: runtime_profile_pb2.RuntimeProfile,
                  metric_ids: Optional[Iterable[str]] = None,
                  options: Options = Options(),
                  profile_source: str = "") -> preflight_pb2.PreflightReport:
    """Checks every requirement of the selected metrics; see the module docstring.

    Raises:
      runtime_profiles.UnknownIdError: a metric id the profile does not list.
    """
    t0 = time.perf_counter()
    selected = runtime_profiles.select_metrics(profile, metric_ids)
    report = preflight_pb2.PreflightReport(
        benchmark_id=profile.benchmark_id, profile=profile_source,
        environment=profile.environment, python_executable=sys.executable,
        checkpoint_dir=options.checkpoint_dir or "", disclaimer=DISCLAIMER,
        checked_at=datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"))
    with concurrent.futures.ThreadPoolExecutor(max(1, options.workers)) as pool:
        checks = _Checks(profile, selected, options, pool)
        for req in selected:
            report.metrics.append(_verdict(req, checks.for_metric(req)))
    unset = [v.name for v in profile.env_vars
             if not v.required and not preflight_checks.env_var(v).ok]
    if unset:
        report.notes.append("optional runner settings not set (their flags can stand in): "
                            + ", ".join(unset))
    report.ready = bool(report.metrics) and all(v.ready for v in report.metrics)
    if not report.metrics:
        report.notes.append("the profile lists no metrics: nothing can be ready")
    report.seconds = round(time.perf_counter() - t0, 3)
    return report


def unready_metrics(profile: Union[str, runtime_profile_pb2.RuntimeProfile],
                    metric_ids: Optional[Iterable[str]] = None,
                    options: Options = Options()) -> Dict[str, str]:
    """{metric_id: reason} for the selected metrics that are not ready, for a runner to
    report as unavailable (one metric's reasons joined by '; ').

    Args:
      profile: a benchmark id (its profile is loaded) or a loaded profile.
      metric_ids: the metrics the run computes (all of the profile's when None).
      options: where to look; pass the run's --checkpoint_dir and explicit paths.

    Raises:
      runtime_profiles.UnknownIdError: an unknown benchmark or metric id.
      runtime_profiles.TextprotoError: the profile file is malformed.
    """
    if isinstance(profile, str):
        profile = runtime_profiles.load_profile(profile)
    report = run_preflight(profile, metric_ids, options)
    return {v.metric_id: "; ".join(v.reasons) for v in report.metrics if not v.ready}


def _clip(text: str, width: int) -> str:
    text = re.sub(r"\s+", " ", text)
    return text if len(text) <= width else text[:width - 3] + "..."


def _fixes(report: preflight_pb2.PreflightReport) -> List[str]:
    """What to do, once each; checkpoints in one fetch command. Pending metrics are left
    out: nothing installable makes them ready."""
    failing = [(v, c) for v in report.metrics if not v.pending
               for c in v.checks if c.blocking and not c.ok]
    fetch = list(dict.fromkeys(v.metric_id for v, c in failing
                               if c.kind == preflight_pb2.PreflightCheck.CHECKPOINT))
    lines = []
    if fetch:
        cache = f" --cache_dir={report.checkpoint_dir}" if report.checkpoint_dir else ""
        lines.append(f"./bazelw run //tools:assets -- fetch --benchmark={report.benchmark_id} "
                     f"--metrics={','.join(fetch)}{cache}")
    lines += sorted({c.fix for _, c in failing
                     if c.fix and c.kind != preflight_pb2.PreflightCheck.CHECKPOINT})
    return ["to fix:"] + [f"  {line}" for line in lines] if lines else []


def format_table(report: preflight_pb2.PreflightReport, width: int = 160) -> str:
    """The verdicts as a readable table (one line per metric, then the fixes)."""
    id_w = max([len("metric")] + [len(v.metric_id) for v in report.metrics])
    lines = [f"{report.benchmark_id} preflight ({report.seconds:.1f} s, profile "
             f"{report.profile or 'given'}, python {report.python_executable})",
             f"{'metric':<{id_w}}  {'verdict':<9}  reason"]
    for v in report.metrics:
        reason = v.reasons[0] if v.reasons else ""
        more = f" (+{len(v.reasons) - 1} more)" if len(v.reasons) > 1 else ""
        lines.append(f"{v.metric_id:<{id_w}}  {'ready' if v.ready else 'NOT READY':<9}  "
                     + _clip(reason, width - id_w - 13 - len(more)) + more)
    lines += _fixes(report)
    lines += [f"note: {n}" for n in report.notes]
    ready = sum(v.ready for v in report.metrics)
    lines.append(f"{ready} of {len(report.metrics)} metrics ready"
                 + ("" if report.ready else ": NOT READY") + ". " + DISCLAIMER)
    return "\n".join(lines)
