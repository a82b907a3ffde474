"""Every claim of the catalog against what backs it in the repository.

A runner or importer claim needs its Bazel targets to exist; a verification claim needs
a committed scorecard with the recorded sha256 whose own Verification says exactly the
claimed scope, about this benchmark, on the data the catalog says it used. Readiness
(a preflight) is never evidence.

Under Bazel a target "exists" when its output is in the runfiles (the checking test
lists the claimed targets as data, so a missing target fails the build); outside Bazel
the package's BUILD file must declare it.
"""

import hashlib
import os
import pathlib
import re
from typing import List

from proto import catalog_pb2
from proto import schema
from proto import scorecard_pb2

_LABEL = re.compile(r"^//([A-Za-z0-9_/.-]*):([A-Za-z0-9_.-]+)$")


def _under_bazel() -> bool:
    return bool(os.environ.get("TEST_SRCDIR") or os.environ.get("RUNFILES_DIR"))


def target_problem(label: str, root: pathlib.Path) -> str:
    """Why `label` cannot be shown to exist ("" when it exists)."""
    match = _LABEL.match(label)
    if not match:
        return f"{label!r} is not a Bazel label //package:name"
    package, name = match.groups()
    if _under_bazel():
        if (root / package / name).exists():
            return ""
        return (f"{label} is not in this test's runfiles: add it to the data of "
                "//tools/catalog:claims_test (a missing target then fails the build)")
    build = next((root / package / f for f in ("BUILD.bazel", "BUILD")
                  if (root / package / f).is_file()), None)
    if build is None:
        return f"{label}: no BUILD file in {package}/"
    if not re.search(rf'\bname\s*=\s*"{re.escape(name)}"', build.read_text()):
        return f"{label}: {build.relative_to(root)} declares no target {name!r}"
    return ""


def sha256_of(path: pathlib.Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _evidence_problems(entry, evidence, root: pathlib.Path) -> List[str]:
    where = f"{entry.id}: evidence {evidence.scorecard_path}"
    path = root / evidence.scorecard_path
    if not path.is_file():
        return [f"{where}: no such file (evidence must be committed; add it to the data of "
                "//tools/catalog:claims_test)"]
    digest = sha256_of(path)
    if digest != evidence.scorecard_sha256:
        return [f"{where}: sha256 is {digest}, the catalog records {evidence.scorecard_sha256}"]
    card = schema.read_json(path, scorecard_pb2.Scorecard)
    problems = []
    if card.benchmark_id != entry.id:
        problems.append(f"{where}: a scorecard of {card.benchmark_id!r}")
    if card.verification.scope != entry.verification:
        problems.append(
            f"{where}: the scorecard's scope is "
            f"{scorecard_pb2.VerificationScope.Name(card.verification.scope)}, the catalog "
            f"claims {scorecard_pb2.VerificationScope.Name(entry.verification)}")
    not_official = any(b.reason == scorecard_pb2.NOT_OFFICIAL_DATA
                       for b in card.verification.blocking)
    if (evidence.data == catalog_pb2.BUNDLED_SAMPLE) != not_official:
        problems.append(f"{where}: data {catalog_pb2.EvidenceData.Name(evidence.data)} but the "
                        f"scorecard {'does' if not_official else 'does not'} say "
                        "NOT_OFFICIAL_DATA")
    if evidence.data == catalog_pb2.OFFICIAL_FULL and (
            card.coverage.missing_sample_ids or card.coverage.evaluated < card.coverage.expected
            or not card.coverage.expected):
        problems.append(f"{where}: OFFICIAL_FULL but the scorecard's coverage is incomplete")
    if entry.verification == scorecard_pb2.FULL_SUITE and (
            evidence.data != catalog_pb2.OFFICIAL_FULL or not card.verification.official_protocol):
        problems.append(f"{where}: FULL_SUITE needs the whole official data under the "
                        "official protocol")
    return problems


def check_claims(catalog: catalog_pb2.Catalog, root: pathlib.Path) -> List[str]:
    """Every problem with the catalog's claims; an empty list when all are backed."""
    problems = []
    for entry in catalog.benchmarks:
        for label in entry.targets:
            problem = target_problem(label, root)
            if problem:
                problems.append(f"{entry.id}: {problem}")
        for evidence in entry.evidence:
            problems.extend(_evidence_problems(entry, evidence, root))
    return problems
