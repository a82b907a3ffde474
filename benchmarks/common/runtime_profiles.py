"""Runtime profiles: reading benchmarks/<package>/runtime_profile.textproto (the only parser).

    profile = runtime_profiles.load_profile("memobench")
    for metric in runtime_profiles.select_metrics(profile, ["GT_ALL_LPIPS"]): ...

Profiles are looked up by benchmark id; a benchmark's code and profile live in its
package, `package_of(id)` (the id with "-" as "_": physics-iq -> benchmarks/physics_iq/),
while the profile's benchmark_id stays the id.

A malformed file raises TextprotoError naming the file and line; an unknown benchmark
or metric id raises UnknownIdError listing the valid ones (tools share
`require_known` for their own ids). Profiles ship as data of this library
(//benchmarks:runtime_profiles), so every user of it can read all of them.
"""

import difflib
import os
import pathlib
import re
from typing import Iterable, List, Optional, Sequence, Type, TypeVar

from google.protobuf import message as message_lib
from google.protobuf import text_format

from proto import runtime_profile_pb2
from proto import schema

PROFILE_FILE = "runtime_profile.textproto"

M = TypeVar("M", bound=message_lib.Message)

_ENV_NAME = re.compile(r"^[A-Z_][A-Z0-9_]*$")
_HEX = re.compile(r"^[0-9a-f]+$")


class TextprotoError(ValueError):
    """A text-format file that does not parse or does not make sense: `path:line: why`."""

    def __init__(self, path, line: int, reason: str):
        self.path = str(path)
        self.line = line
        self.reason = reason
        super().__init__(f"{self.path}:{line}: {reason}")


class UnknownIdError(ValueError):
    """An id (benchmark, metric, ...) that is not one of the known ones; lists them."""

    def __init__(self, kind: str, given: str, valid: Sequence[str]):
        self.kind = kind
        self.given = given
        self.valid = tuple(valid)
        close = difflib.get_close_matches(given, self.valid, n=3, cutoff=0.6)
        hint = f" (did you mean {', '.join(close)}?)" if close else ""
        super().__init__(f"unknown {kind} {given!r}{hint}; the valid ones are: "
                         f"{', '.join(self.valid) or '(none)'}")


def require_known(kind: str, given: str, valid: Iterable[str]) -> str:
    """Returns `given` if it is in `valid`, else raises UnknownIdError listing them."""
    valid = sorted(valid)
    if given not in valid:
        raise UnknownIdError(kind, given, valid)
    return given


def parse_textproto(path: os.PathLike, cls: Type[M]) -> M:
    """Parses a text-format file into a new `cls`; unknown fields are errors.

    Raises:
      TextprotoError: with the file, the line and protobuf's reason.
    """
    path = pathlib.Path(path)
    try:
        return text_format.Parse(path.read_text(encoding="utf-8"), cls())
    except text_format.ParseError as e:
        reason = str(e)
        prefix = f"{e.GetLine()}:{e.GetColumn()} : "
        if reason.startswith(prefix):
            reason = f"column {e.GetColumn()}: {reason[len(prefix):]}"
        raise TextprotoError(path, e.GetLine() or 0, reason) from e


def line_of(path: os.PathLike, needle: str, occurrence: int = 1) -> int:
    """The 1-based line holding the `occurrence`-th `needle` in the file, 0 if none."""
    seen = 0
    for number, line in enumerate(pathlib.Path(path).read_text(encoding="utf-8").splitlines(), 1):
        if needle in line:
            seen += 1
            if seen == occurrence:
                return number
    return 0


def benchmarks_dir() -> pathlib.Path:
    """benchmarks/ in the runfiles tree (under Bazel) or in the source tree."""
    if os.environ.get("RUNFILES_DIR"):
        candidate = pathlib.Path(os.environ["RUNFILES_DIR"]) / "worldeval" / "benchmarks"
        if candidate.is_dir():
            return candidate
    return pathlib.Path(__file__).parents[1]  # not resolved: stay inside the runfiles


def package_of(benchmark_id: str) -> str:
    """The package of a benchmark: its id with every "-" and "." replaced by "_", and "_"
    put before an id that starts with a digit ("vbench-2.0" -> "vbench_2_0",
    "4dworldbench" -> "_4dworldbench").

    The folder benchmarks/<package>/, the Python module benchmarks.<package> and the Bazel
    package //benchmarks/<package> (neither "-" nor "." nor a leading digit is a Python
    identifier). The one place this rule is declared (tools/catalog/catalog_lib.package_of
    is this function; tools/catalog/repositories.bzl applies it in Starlark, where Python
    cannot run).
    """
    package = benchmark_id.replace("-", "_").replace(".", "_")
    return "_" + package if package[:1].isdigit() else package


def has_profile(benchmark_id: str) -> bool:
    """Whether benchmarks/<package>/runtime_profile.textproto exists (not parsed)."""
    return (benchmarks_dir() / package_of(benchmark_id) / PROFILE_FILE).is_file()


def profile_ids() -> List[str]:
    """The ids of the benchmarks that have a runtime profile (each one's benchmark_id), sorted.

    Raises:
      TextprotoError: a profile that does not parse, or whose benchmark_id's package is
        not its folder.
    """
    ids = []
    for path in benchmarks_dir().glob(f"*/{PROFILE_FILE}"):
        declared = parse_textproto(path, runtime_profile_pb2.RuntimeProfile).benchmark_id
        if package_of(declared) != path.parent.name:
            raise TextprotoError(path, line_of(path, "benchmark_id"),
                                 f"benchmark_id {declared!r} does not belong in the folder "
                                 f"benchmarks/{path.parent.name}/ (its package is "
                                 f"{package_of(declared)!r})")
        ids.append(declared)
    return sorted(ids)


def profile_path(benchmark_id: str) -> pathlib.Path:
    """benchmarks/<package>/runtime_profile.textproto; UnknownIdError when there is none."""
    if not has_profile(benchmark_id):
        raise UnknownIdError("runtime profile", benchmark_id, profile_ids())
    return benchmarks_dir() / package_of(benchmark_id) / PROFILE_FILE


def load_profile(benchmark_id: str) -> runtime_profile_pb2.RuntimeProfile:
    """The parsed and checked profile of one benchmark.

    Raises:
      UnknownIdError: no profile for `benchmark_id` (lists those that exist).
      TextprotoError: the file is malformed (names the file and line).
    """
    return parse_profile(profile_path(benchmark_id), expected_id=benchmark_id)


def parse_profile(path: os.PathLike,
                  expected_id: Optional[str] = None) -> runtime_profile_pb2.RuntimeProfile:
    """Parses and checks one profile file (see `check_profile`)."""
    profile = parse_textproto(path, runtime_profile_pb2.RuntimeProfile)
    check_profile(profile, path, expected_id)
    return profile


def check_profile(profile: runtime_profile_pb2.RuntimeProfile, path: os.PathLike,
                  expected_id: Optional[str] = None) -> None:
    """Raises TextprotoError on the first thing in `profile` that cannot be right."""

    def fail(needle: str, reason: str, occurrence: int = 1):
        raise TextprotoError(path, line_of(path, needle, occurrence), reason)

    expected_schema = schema.RUNTIME_PROFILE_SCHEMA
    if profile.schema_version.split("/")[0] != expected_schema.split("/")[0]:
        fail("schema_version", f"schema_version must be {expected_schema!r}, "
             f"got {profile.schema_version!r}")
    if not profile.benchmark_id:
        fail("benchmark_id", "benchmark_id is empty")
    if expected_id and profile.benchmark_id != expected_id:
        fail("benchmark_id", f"benchmark_id {profile.benchmark_id!r} does not match the "
             f"folder benchmarks/{package_of(expected_id)}/ (benchmark {expected_id!r})")
    if profile.environment == runtime_profile_pb2.ENVIRONMENT_TYPE_UNSPECIFIED:
        fail("environment", "environment is not set (UNIFIED, UNIFIED_SERVICE, "
             "UNIFIED_METRIC_STACK or DEDICATED)")
    if not profile.metrics:
        fail("benchmark_id", "a profile lists at least one metric")
    _check_env_vars(profile.env_vars, fail)
    seen_metrics = {}
    checkpoints = {}
    for metric in profile.metrics:
        needle = f'metric_id: "{metric.metric_id}"'
        seen_metrics[metric.metric_id] = seen_metrics.get(metric.metric_id, 0) + 1
        if not metric.metric_id:
            fail("metrics {", "a metric has no metric_id")
        if seen_metrics[metric.metric_id] > 1:
            fail(needle, f"metric {metric.metric_id} is listed twice",
                 seen_metrics[metric.metric_id])
        if metric.device == runtime_profile_pb2.DEVICE_REQUIREMENT_UNSPECIFIED:
            fail(needle, f"metric {metric.metric_id}: device is not set "
                 "(CPU_OK, CUDA_PREFERRED or CUDA_REQUIRED)")
        _check_env_vars(metric.env_vars, fail)
        for service in metric.services:
            if not service.name or not service.address:
                fail(needle, f"metric {metric.metric_id}: a service needs a name and an address")
        for ckpt in metric.checkpoints:
            _check_checkpoint(metric.metric_id, ckpt, checkpoints, fail)


def _check_env_vars(env_vars, fail) -> None:
    for var in env_vars:
        if not _ENV_NAME.match(var.name):
            fail(f'"{var.name}"', f"environment variable name {var.name!r} is not "
                 "UPPER_CASE_WITH_UNDERSCORES")


def _check_checkpoint(metric_id, ckpt, seen, fail) -> None:
    """`seen` maps (name, file) to the first such checkpoint, and name to its count."""
    needle = f'name: "{ckpt.name}"'
    seen[ckpt.name] = seen.get(ckpt.name, 0) + 1
    where = f"metric {metric_id}: checkpoint {ckpt.name or ckpt.id or ckpt.file}"
    if not ckpt.name:
        fail(f'"{ckpt.id or ckpt.file}"', f"{where}: name (the resolver's short name) is empty")
    if ckpt.id and ckpt.url:
        fail(needle, f"{where}: set id (a hub repository) or url, not both")
    if (ckpt.id or ckpt.url) and not ckpt.file:
        fail(needle, f"{where}: file is empty")
    if ckpt.id and not ckpt.revision:
        fail(needle, f"{where}: a hub checkpoint needs a revision")
    if ckpt.sha256 and not _HEX.match(ckpt.sha256):
        fail(needle, f"{where}: sha256 {ckpt.sha256!r} is not lowercase hex")
    if not ckpt.fetch_command:
        fail(needle, f"{where}: fetch_command is empty")
    first = seen.setdefault((ckpt.name, ckpt.file), ckpt)
    if first is not ckpt and first != ckpt:
        fail(needle, f"{where} ({ckpt.file}): differs from the one of the same name and "
             "file listed earlier", seen[ckpt.name])


def select_metrics(profile: runtime_profile_pb2.RuntimeProfile,
                   metric_ids: Optional[Iterable[str]] = None
                   ) -> List[runtime_profile_pb2.MetricRequirement]:
    """The profile's requirements for `metric_ids` (all when None), in profile order.

    Raises:
      UnknownIdError: a metric id the profile does not list (lists the valid ones).
    """
    by_id = {m.metric_id: m for m in profile.metrics}
    if metric_ids is None:
        return list(profile.metrics)
    wanted = [require_known(f"{profile.benchmark_id} metric", m, by_id) for m in metric_ids]
    return [m for m in profile.metrics if m.metric_id in set(wanted)]


def checkpoints(profile: runtime_profile_pb2.RuntimeProfile,
                metric_ids: Optional[Iterable[str]] = None
                ) -> List[runtime_profile_pb2.CheckpointRequirement]:
    """The distinct checkpoints (by name and file) the selected metrics need, in order."""
    found = {}
    for metric in select_metrics(profile, metric_ids):
        for ckpt in metric.checkpoints:
            found.setdefault((ckpt.name, ckpt.file), ckpt)
    return list(found.values())
