"""The benchmark catalog: tools/catalog/catalog.textproto, read and checked (the only parser).

    catalog = catalog_lib.load_catalog()
    entry = catalog_lib.get_entry("memobench")       # UnknownIdError lists the 42 ids
    ids = catalog_lib.benchmark_ids()

`check_catalog` holds the rules every catalog must follow; `claims.check_claims` the
ones that need the repository (targets, evidence files).

An id may hold hyphens (physics-iq); its code lives in its package, `package_of(id)`: the
id with every "-" replaced by "_" (benchmarks/physics_iq/, benchmarks.physics_iq,
//benchmarks/physics_iq:run, benchmarks/physics_iq/runtime_profile.textproto). Ids stay
ids everywhere else (flags, scorecards, a runtime profile's benchmark_id).
"""

import os
import pathlib
from typing import List, Optional

from benchmarks.common import runtime_profiles
from proto import catalog_pb2
from proto import runtime_profile_pb2
from proto import scorecard_pb2

CATALOG_SCHEMA = "worldeval.v1.Catalog/1"
CATALOG_FILE = "tools/catalog/catalog.textproto"

# landscape.md §2: the hub's 42 = 30 video generation + 12 world model.
EXPECTED_COUNTS = {catalog_pb2.VIDEO_GENERATION: 30, catalog_pb2.WORLD_MODEL: 12}

TextprotoError = runtime_profiles.TextprotoError
UnknownIdError = runtime_profiles.UnknownIdError
# Declared in runtime_profiles, which this module imports (and which cannot import it).
package_of = runtime_profiles.package_of


def repo_root() -> pathlib.Path:
    """The root holding tools/ and benchmarks/: the runfiles tree under Bazel."""
    if os.environ.get("RUNFILES_DIR"):
        candidate = pathlib.Path(os.environ["RUNFILES_DIR"]) / "worldeval"
        if (candidate / CATALOG_FILE).exists():
            return candidate
    return pathlib.Path(__file__).parents[2]  # not resolved: stay inside the runfiles


def load_catalog(path: Optional[os.PathLike] = None) -> catalog_pb2.Catalog:
    """Parses and checks the catalog (the repository's unless `path` is given).

    Raises:
      TextprotoError: a malformed or inconsistent file, with its path and line.
    """
    path = pathlib.Path(path) if path else repo_root() / CATALOG_FILE
    catalog = runtime_profiles.parse_textproto(path, catalog_pb2.Catalog)
    check_catalog(catalog, path)
    return catalog


def benchmark_ids(catalog: Optional[catalog_pb2.Catalog] = None) -> List[str]:
    """Every catalog id, in catalog order."""
    catalog = catalog or load_catalog()
    return [entry.id for entry in catalog.benchmarks]


def get_entry(benchmark_id: str,
              catalog: Optional[catalog_pb2.Catalog] = None) -> catalog_pb2.BenchmarkEntry:
    """The entry of one benchmark; UnknownIdError (listing the valid ids) otherwise."""
    catalog = catalog or load_catalog()
    runtime_profiles.require_known("benchmark", benchmark_id, benchmark_ids(catalog))
    return next(e for e in catalog.benchmarks if e.id == benchmark_id)


def runnable_ids(catalog: Optional[catalog_pb2.Catalog] = None) -> List[str]:
    """The ids whose entry lists a `//benchmarks/<package>:run` target, sorted (the rule
    tools/catalog/repositories.bzl applies for the BUILD files)."""
    catalog = catalog or load_catalog()
    return sorted(e.id for e in catalog.benchmarks
                  if f"//benchmarks/{package_of(e.id)}:run" in e.targets)


def has_runner(entry: catalog_pb2.BenchmarkEntry) -> bool:
    return entry.implementation in (catalog_pb2.PARTIAL_RUNNER, catalog_pb2.FULL_RUNNER)


def check_catalog(catalog: catalog_pb2.Catalog, path: os.PathLike) -> None:
    """Raises TextprotoError on the first rule `catalog` breaks.

    Rules: the schema; 42 entries (30 VG + 12 WM) with unique ids and packages; every
    enum set; no claim without its backing (targets for a runner or importer, evidence
    for a scope above NOT_EXECUTED, evidence only from the entry's own targets); a runtime
    profile referenced exactly when one exists, agreeing with the entry.
    """

    def fail(needle: str, reason: str, occurrence: int = 1):
        raise TextprotoError(path, runtime_profiles.line_of(path, needle, occurrence), reason)

    if catalog.schema_version.split("/")[0] != CATALOG_SCHEMA.split("/")[0]:
        fail("schema_version", f"schema_version must be {CATALOG_SCHEMA!r}")
    seen, packages = {}, {}
    for entry in catalog.benchmarks:
        seen[entry.id] = seen.get(entry.id, 0) + 1
        if seen[entry.id] > 1:
            fail(f'id: "{entry.id}"', f"benchmark id {entry.id!r} is listed twice", seen[entry.id])
        other = packages.setdefault(package_of(entry.id), entry.id)
        if other != entry.id:
            fail(f'id: "{entry.id}"', f"benchmark ids {other!r} and {entry.id!r} have the same "
                 f"package {package_of(entry.id)!r}")
        _check_entry(entry, fail)
    counts = {family: sum(e.task_family == family for e in catalog.benchmarks)
              for family in EXPECTED_COUNTS}
    if counts != EXPECTED_COUNTS:
        named = {catalog_pb2.TaskFamily.Name(k): v for k, v in counts.items()}
        fail("schema_version", f"expected 30 VIDEO_GENERATION + 12 WORLD_MODEL benchmarks, "
             f"found {named}")


def _check_entry(entry: catalog_pb2.BenchmarkEntry, fail) -> None:
    where = f'id: "{entry.id}"'
    if not entry.id or entry.id != entry.id.lower() or " " in entry.id:
        fail(where, f"benchmark id {entry.id!r} must be lowercase with no spaces")
    for field, unset in (("task_family", catalog_pb2.TASK_FAMILY_UNSPECIFIED),
                         ("environment", runtime_profile_pb2.ENVIRONMENT_TYPE_UNSPECIFIED),
                         ("implementation", catalog_pb2.IMPLEMENTATION_STATUS_UNSPECIFIED),
                         ("verification", scorecard_pb2.VERIFICATION_SCOPE_UNSPECIFIED)):
        if getattr(entry, field) == unset:
            fail(where, f"{entry.id}: {field} is not set")
    if entry.environment == runtime_profile_pb2.UNIFIED_SERVICE and not entry.needs_service:
        fail(where, f"{entry.id}: UNIFIED_SERVICE means needs_service: true")
    if not entry.name or not entry.measures:
        fail(where, f"{entry.id}: name and measures are required")
    claims_code = entry.implementation != catalog_pb2.NOT_IMPLEMENTED
    if claims_code != bool(entry.targets):
        fail(where, f"{entry.id}: targets must be listed exactly when something is implemented "
             f"(implementation {catalog_pb2.ImplementationStatus.Name(entry.implementation)})")
    for label in entry.targets:
        if not label.startswith("//") or ":" not in label:
            fail(f'"{label}"', f"{entry.id}: {label!r} is not a Bazel label //package:name")
    if claims_code and not entry.runtime_profile:
        fail(where, f"{entry.id}: implemented, so it needs a runtime profile "
             f"(benchmarks/{package_of(entry.id)}/{runtime_profiles.PROFILE_FILE})")
    verified = entry.verification != scorecard_pb2.NOT_EXECUTED
    if verified != bool(entry.evidence):
        fail(where, f"{entry.id}: a verification scope above NOT_EXECUTED needs evidence, and "
             "evidence needs a scope above NOT_EXECUTED")
    if verified and not claims_code:
        fail(where, f"{entry.id}: verified but nothing implemented")
    for evidence in entry.evidence:
        if evidence.bazel_target not in entry.targets:
            fail(where, f"{entry.id}: evidence from {evidence.bazel_target!r}, not one of "
                 "the entry's targets")
        if not evidence.scorecard_path or len(evidence.scorecard_sha256) != 64:
            fail(where, f"{entry.id}: evidence needs a scorecard_path and its full sha256")
        if evidence.data == catalog_pb2.EVIDENCE_DATA_UNSPECIFIED:
            fail(where, f"{entry.id}: evidence data is not set")
    _check_profile_agrees(entry, fail)


def _check_profile_agrees(entry: catalog_pb2.BenchmarkEntry, fail) -> None:
    """The entry names its runtime profile iff one exists, and says the same things."""
    where = f'id: "{entry.id}"'
    expected = f"benchmarks/{package_of(entry.id)}/{runtime_profiles.PROFILE_FILE}"
    exists = runtime_profiles.has_profile(entry.id)
    if entry.runtime_profile != (expected if exists else ""):
        fail(where, f"{entry.id}: runtime_profile must be {expected!r} when that file "
             "exists, empty otherwise")
    if not exists:
        return
    profile = runtime_profiles.load_profile(entry.id)
    if profile.environment != entry.environment:
        fail(where, f"{entry.id}: environment differs from its runtime profile's "
             f"({runtime_profile_pb2.EnvironmentType.Name(profile.environment)})")
    needs_service = any(metric.services for metric in profile.metrics)
    if entry.needs_service != needs_service:
        fail(where, f"{entry.id}: needs_service must be {needs_service} (its runtime profile)")
    if entry.upstream_repository != profile.upstream_repository:
        fail(where, f"{entry.id}: upstream_repository differs from its runtime profile's")
    unknown = set(entry.metrics) - {m.metric_id for m in profile.metrics}
    if unknown:
        fail(where, f"{entry.id}: metrics not in its runtime profile: {sorted(unknown)}")
    if entry.implementation == catalog_pb2.FULL_RUNNER and any(m.pending for m in profile.metrics):
        fail(where, f"{entry.id}: FULL_RUNNER, but its runtime profile has pending metrics")
    if has_runner(entry) and all(m.pending for m in profile.metrics):
        fail(where, f"{entry.id}: a runner, but every metric of its runtime profile is pending")
