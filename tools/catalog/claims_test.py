"""Every catalog claim is backed: targets exist, evidence scorecards exist with their
recorded sha256 and say what the catalog says. Then each way a claim can be unbacked."""

import pathlib

import pytest

from proto import catalog_pb2
from proto import schema
from proto import scorecard_pb2
from tools.catalog import catalog_lib
from tools.catalog import claims


def test_every_claim_in_the_catalog_is_backed():
    catalog = catalog_lib.load_catalog()
    assert claims.check_claims(catalog, catalog_lib.repo_root()) == []


def test_the_memobench_evidence_is_what_the_catalog_says():
    entry = catalog_lib.get_entry("memobench")
    evidence, = entry.evidence
    card = schema.read_json(catalog_lib.repo_root() / evidence.scorecard_path,
                            scorecard_pb2.Scorecard)
    assert card.verification.scope == scorecard_pb2.BOUNDED
    assert not card.verification.leaderboard_eligible
    available = {m.id for m in card.metrics if m.available}
    assert available and available <= {f"GT_{p}_{m}" for p in ("ALL", "O", "H", "R")
                                        for m in ("PSNR", "SSIM", "LPIPS")} | {
        "MotionSmoothness", "ObjIdentityConsistency", "Geo3DConsistency", "GTRevisitSim",
        "AestheticScore", "CameraControllability", "ImageRewardScore", "VisualQuality"}


# --- each way a claim can fail, on a repository made up in tmp_path -------------------

def _card(tmp_path, name="card.json", benchmark="demo", scope=scorecard_pb2.BOUNDED,
          not_official=True, expected=4, evaluated=4, official_protocol=True):
    card = scorecard_pb2.Scorecard(benchmark_id=benchmark)
    card.verification.scope = scope
    card.verification.official_protocol = official_protocol
    if not_official:
        card.verification.blocking.add(reason=scorecard_pb2.NOT_OFFICIAL_DATA, detail="fixture")
    card.coverage.expected, card.coverage.evaluated = expected, evaluated
    schema.write_json(tmp_path / name, card)
    return name


def _entry(tmp_path, card_name, data=catalog_pb2.BUNDLED_SAMPLE,
           scope=scorecard_pb2.BOUNDED, digest=None):
    entry = catalog_pb2.BenchmarkEntry(id="demo", verification=scope,
                                       implementation=catalog_pb2.PARTIAL_RUNNER,
                                       targets=["//pkg:run"])
    entry.evidence.add(bazel_target="//pkg:run", scorecard_path=card_name, data=data,
                       scorecard_sha256=digest or claims.sha256_of(tmp_path / card_name))
    return catalog_pb2.Catalog(benchmarks=[entry])


@pytest.fixture
def repo(tmp_path, monkeypatch):
    """A made-up repository checked the source-tree way (BUILD files)."""
    monkeypatch.delenv("TEST_SRCDIR", raising=False)
    monkeypatch.delenv("RUNFILES_DIR", raising=False)
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "BUILD.bazel").write_text('py_binary(\n    name = "run",\n)\n')
    return tmp_path


def test_a_backed_claim_passes(repo):
    assert claims.check_claims(_entry(repo, _card(repo)), repo) == []


def test_a_target_missing_from_its_build_file(repo):
    catalog = _entry(repo, _card(repo))
    catalog.benchmarks[0].targets[0] = "//pkg:runner"
    problems = claims.check_claims(catalog, repo)
    assert problems == ["demo: //pkg:runner: pkg/BUILD.bazel declares no target 'runner'"]


def test_a_package_without_build_file(repo):
    catalog = _entry(repo, _card(repo))
    catalog.benchmarks[0].targets.append("//nowhere:run")
    assert claims.check_claims(catalog, repo) == ["demo: //nowhere:run: no BUILD file in nowhere/"]


def test_under_bazel_a_target_must_be_in_the_runfiles(repo, monkeypatch):
    monkeypatch.setenv("TEST_SRCDIR", str(repo))
    catalog = _entry(repo, _card(repo))
    assert "not in this test's runfiles" in claims.check_claims(catalog, repo)[0]
    (repo / "pkg" / "run").write_text("#!/bin/sh\n")
    assert claims.check_claims(catalog, repo) == []


def test_missing_evidence_file(repo):
    catalog = _entry(repo, _card(repo), digest="0" * 64)
    catalog.benchmarks[0].evidence[0].scorecard_path = "gone.json"
    assert "gone.json: no such file" in claims.check_claims(catalog, repo)[0]


def test_evidence_changed_after_it_was_recorded(repo):
    name = _card(repo)
    catalog = _entry(repo, name)
    (repo / name).write_text((repo / name).read_text().replace("BOUNDED", "FULL_SUITE"))
    problem, = claims.check_claims(catalog, repo)
    assert "the catalog records" in problem


def test_evidence_of_another_benchmark(repo):
    problem, = claims.check_claims(_entry(repo, _card(repo, benchmark="other")), repo)
    assert "a scorecard of 'other'" in problem


def test_a_scope_above_the_evidence(repo):
    catalog = _entry(repo, _card(repo, scope=scorecard_pb2.NOT_EXECUTED))
    problem, = claims.check_claims(catalog, repo)
    assert "scope is NOT_EXECUTED, the catalog claims BOUNDED" in problem


def test_official_data_claimed_for_a_fixture_run(repo):
    catalog = _entry(repo, _card(repo), data=catalog_pb2.OFFICIAL_SUBSET)
    problem, = claims.check_claims(catalog, repo)
    assert "does say NOT_OFFICIAL_DATA" in problem


def test_fixture_claimed_for_a_run_on_official_data(repo):
    problem, = claims.check_claims(_entry(repo, _card(repo, not_official=False)), repo)
    assert "does not say NOT_OFFICIAL_DATA" in problem


def test_full_data_with_incomplete_coverage(repo):
    name = _card(repo, not_official=False, expected=360, evaluated=4)
    problem, = claims.check_claims(_entry(repo, name, data=catalog_pb2.OFFICIAL_FULL), repo)
    assert "coverage is incomplete" in problem


def test_full_suite_needs_official_protocol_on_full_data(repo):
    name = _card(repo, scope=scorecard_pb2.FULL_SUITE, not_official=False,
                 official_protocol=False)
    catalog = _entry(repo, name, data=catalog_pb2.OFFICIAL_FULL, scope=scorecard_pb2.FULL_SUITE)
    problem, = claims.check_claims(catalog, repo)
    assert "FULL_SUITE needs" in problem


def test_a_label_that_is_not_one(repo):
    assert "not a Bazel label" in claims.target_problem("pkg:run", pathlib.Path(repo))
