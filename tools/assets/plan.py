"""`assets plan`: what a benchmark needs, what is already here, and the next commands.

Read from the catalog entry and the runtime profile; nothing is downloaded and no secret
is read beyond "set or not". Checkpoints are looked for (and their digests checked)
exactly as preflight does. A benchmark without a runtime profile gets what the catalog
knows and the steps to write one. (WorldFoundry's scripts/setup/
prepare_benchmark_assets.py, read at bc062d7, merges the same sources.)
"""

import os
from typing import Dict, List, Optional

from benchmarks.common import preflight
from benchmarks.common import preflight_checks
from benchmarks.common import runtime_profiles
from metrics.checkpoints import resolver
from proto import catalog_pb2
from proto import runtime_profile_pb2
from proto import scorecard_pb2
from tools.assets import fetch

_ENV_NAMES = runtime_profile_pb2.EnvironmentType.Name


size_text = resolver.size_text


def _header(entry: Optional[catalog_pb2.BenchmarkEntry], benchmark_id: str) -> List[str]:
    if entry is None:
        return [f"{benchmark_id}: not in the catalog (tools/catalog/catalog.textproto)"]
    family = catalog_pb2.TaskFamily.Name(entry.task_family).lower().replace("_", " ")
    lines = [f"{entry.id}: {entry.name} ({family}; environment {_ENV_NAMES(entry.environment)}"
             + (", needs a service)" if entry.needs_service else ")"),
             f"  measures: {entry.measures}"]
    if entry.paper or entry.upstream_repository:
        lines.append(f"  paper: {entry.paper or '?'}; upstream: "
                     f"{entry.upstream_repository or 'none public'}")
    if entry.metrics:
        lines.append(f"  metrics ({len(entry.metrics)}): {', '.join(entry.metrics)}")
    lines.append(f"  worldeval: {catalog_pb2.ImplementationStatus.Name(entry.implementation)}"
                 + (f" ({', '.join(entry.targets)})" if entry.targets else "")
                 + f"; verified scope {scorecard_pb2.VerificationScope.Name(entry.verification)}")
    if entry.upstream_claim:
        lines.append(f"  WorldFoundry hub says (their claim): {entry.upstream_claim}")
    return lines


def _no_profile(entry: catalog_pb2.BenchmarkEntry) -> List[str]:
    package = runtime_profiles.package_of(entry.id)
    path = f"benchmarks/{package}/{runtime_profiles.PROFILE_FILE}"
    upstream = (f"from {entry.upstream_repository} (its README, requirements and download "
                "scripts)" if entry.upstream_repository else "from the paper")
    return [f"  No runtime profile yet ({path}): the datasets, checkpoints, services and "
            "variables it needs are not recorded, so nothing can be fetched or checked.",
            "next:",
            f"  1. collect its datasets, checkpoints (hub id, revision, sha256, size, licence), "
            f"services and variables {upstream}",
            f"  2. write {path} (proto/runtime_profile.proto; benchmarks/memobench/ has one)",
            f"  3. ./bazelw run //tools:assets -- plan --benchmark={entry.id}"]


def _datasets(profile) -> List[str]:
    lines = [f"datasets ({len(profile.datasets)}):"] if profile.datasets else []
    for d in profile.datasets:
        where = ""
        if d.env_var:
            where = f"; ${d.env_var} " + (f"= {os.environ[d.env_var]}" if os.environ.get(
                d.env_var) else "not set")
        lines.append(f"  {d.id}: {d.source}" + (f"@{d.revision}" if d.revision else "")
                     + f", {size_text(d.size_bytes)}, licence {d.license or '?'}{where}")
        lines += [f"      file: {f}" + (f" (sha256 {d.file_sha256[f]})" if f in d.file_sha256
                                         else "") for f in d.files]
    return lines


def _checkpoints(profile, checkpoint_dir: Optional[str]) -> List[str]:
    users: Dict[tuple, List[str]] = {}
    for metric in profile.metrics:
        for ckpt in metric.checkpoints:
            users.setdefault((ckpt.name, ckpt.file), []).append(
                metric.metric_id + (" (pending)" if metric.pending else ""))
    ckpts = runtime_profiles.checkpoints(profile)
    sized = [c.size_bytes for c in ckpts if c.size_bytes]
    sizes = (f"{size_text(sum(sized))} in the {len(sized)} sizes recorded" if sized
             else "no sizes recorded")
    estimated = [c.approx_size_bytes for c in ckpts if not c.size_bytes and c.approx_size_bytes]
    if estimated:
        sizes += f", ~{size_text(sum(estimated))} estimated for {len(estimated)} more"
    lines = [f"checkpoints ({len(ckpts)}; {sizes}):"] if ckpts else []
    for ckpt in ckpts:
        spec = preflight.checkpoint_spec(ckpt)
        check = preflight_checks.checkpoint(spec, checkpoint_dir, None, "")
        state = (f"present: {check.detail}" if check.ok else
                 f"missing: {check.reason}" + (f" ({check.detail})" if check.detail else ""))
        source = (f"{ckpt.id}@{spec.hf_revision}" + (" (snapshot)" if ckpt.snapshot else "")
                  if ckpt.id else ckpt.url)
        size = size_text(ckpt.size_bytes, ckpt.approx_size_bytes)
        lines += [f"  {ckpt.name}/{ckpt.file}: {source}, {size}, licence "
                  f"{ckpt.license or '?'}, sha256 {ckpt.sha256 or 'not pinned'}"
                  + (", gated" if ckpt.gated else ""),
                  f"      for: {', '.join(users[(ckpt.name, ckpt.file)])}",
                  f"      {state}"]
    return lines


def _services_and_variables(profile) -> List[str]:
    services: Dict[str, List[str]] = {}
    variables: Dict[str, tuple] = {}
    for metric in profile.metrics:
        for s in metric.services:
            services.setdefault(f"{s.name} at {s.address}: {s.purpose}", []).append(metric.metric_id)
        for v in metric.env_vars:
            variables.setdefault(v.name, (v, []))[1].append(metric.metric_id)
    lines = [f"services ({len(services)}; preflight probes them):"] if services else []
    lines += [f"  {text} (for {', '.join(ids)})" for text, ids in services.items()]
    for v in profile.env_vars:
        variables.setdefault(v.name, (v, ["the runner"]))
    if variables:
        lines.append(f"environment variables ({len(variables)}):")
    for name, (var, ids) in variables.items():
        kind = ("secret, " if preflight_checks.is_secret(var) else "") + (
            "required" if var.required else "optional")
        state = "set" if os.environ.get(name) else "not set"
        lines.append(f"  {name} ({kind}, {state}) for {', '.join(ids)}: {var.purpose}")
    return lines


def _next(entry, profile, checkpoint_dir: Optional[str]) -> List[str]:
    bid = profile.benchmark_id
    computed = [m for m in profile.metrics if not m.pending]
    lines = ["next:"]
    cache = f" --cache_dir={checkpoint_dir}" if checkpoint_dir else " [--cache_dir=DIR]"
    if fetch.selected_checkpoints(profile):
        lines.append(f"  ./bazelw run //tools:assets -- fetch --benchmark={bid}{cache}"
                     "   # checkpoints of the metrics worldeval computes")
    for d in profile.datasets:
        lines.append(f"  {d.fetch_command or '# dataset ' + d.id + ': ' + d.source}")
        if d.env_var:
            lines.append(f"  export {d.env_var}=<where it went>")
    needed = {v.name: v for m in computed for v in m.env_vars if v.required}
    lines += [f"  export {name}=<{'your secret' if preflight_checks.is_secret(v) else 'value'}>"
              for name, v in needed.items() if not os.environ.get(name)]
    flag = f" --checkpoint_dir={checkpoint_dir}" if checkpoint_dir else " [--checkpoint_dir=DIR]"
    lines.append(f"  ./bazelw run //tools:preflight -- --benchmark={bid}{flag}")
    runners = [t for t in (entry.targets if entry else []) if t.endswith(":run")]
    lines += [f"  ./bazelw run {t} -- --help" for t in runners]
    pending = [m.metric_id for m in profile.metrics if m.pending]
    if pending:
        lines.append(f"not computed by worldeval yet (nothing to fetch makes them ready): "
                     f"{', '.join(pending)}")
    return lines


def plan_text(benchmark_id: str, entry: Optional[catalog_pb2.BenchmarkEntry],
              checkpoint_dir: Optional[str] = None) -> str:
    """The plan of one benchmark (`entry` None when the catalog does not list it)."""
    lines = _header(entry, benchmark_id)
    if benchmark_id not in runtime_profiles.profile_ids():
        return "\n".join(lines + _no_profile(entry)) + "\n"
    profile = runtime_profiles.load_profile(benchmark_id)
    package = runtime_profiles.package_of(benchmark_id)
    lines.append(f"  runtime profile: benchmarks/{package}/{runtime_profiles.PROFILE_FILE}"
                 f" (upstream {profile.upstream_repository or '?'}"
                 f"@{profile.upstream_revision or '?'})")
    lines += _datasets(profile)
    lines += _checkpoints(profile, checkpoint_dir)
    lines += _services_and_variables(profile)
    modules = sorted({m for metric in profile.metrics for m in metric.python_modules}
                     | set(profile.python_modules))
    lines.append(f"python modules (preflight imports them): {', '.join(modules)}")
    lines += _next(entry, profile, checkpoint_dir)
    return "\n".join(lines) + "\n"
