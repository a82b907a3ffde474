"""The catalog: 42 entries, unique ids, claims that are enums with backing; bad files fail
with their file and line."""

import pytest

from benchmarks.common import runtime_profiles
from proto import catalog_pb2
from proto import runtime_profile_pb2
from proto import scorecard_pb2
from tools.catalog import catalog_lib


@pytest.fixture(scope="module")
def catalog():
    return catalog_lib.load_catalog()


@pytest.fixture(scope="module")
def text():
    return (catalog_lib.repo_root() / catalog_lib.CATALOG_FILE).read_text()


def _load_modified(tmp_path, text, old, new, count=1):
    assert old in text, old
    path = tmp_path / "catalog.textproto"
    path.write_text(text.replace(old, new, count))
    return catalog_lib.load_catalog(path)


def test_42_benchmarks_30_video_12_world_model(catalog):
    assert len(catalog.benchmarks) == 42
    families = [e.task_family for e in catalog.benchmarks]
    assert families.count(catalog_pb2.VIDEO_GENERATION) == 30
    assert families.count(catalog_pb2.WORLD_MODEL) == 12


def test_ids_are_unique_and_lowercase(catalog):
    ids = catalog_lib.benchmark_ids(catalog)
    assert len(set(ids)) == 42
    assert all(i == i.lower() and " " not in i for i in ids)
    assert ids[0] == "vbench" and ids[-1] == "wrbench"  # landscape §2 order


def test_every_entry_is_described(catalog):
    for entry in catalog.benchmarks:
        assert entry.name and entry.measures and entry.upstream_claim, entry.id
        assert entry.environment != runtime_profile_pb2.ENVIRONMENT_TYPE_UNSPECIFIED
        if entry.upstream_repository:
            assert entry.upstream_repository.startswith("github.com/"), entry.id


def test_claims_today_are_modest(catalog):
    """Nothing claims a full suite, and nothing but the seven benchmarks with runners is
    built: MemoBench, VMBench, MiraBench and Physics-IQ's two tracks (runners of every
    metric), WorldScore and VBench (runners of part); each is BOUNDED by its
    bundled-sample evidence scorecard only (none ran on the benchmark's data or real
    weights)."""
    for entry in catalog.benchmarks:
        assert entry.verification in (scorecard_pb2.NOT_EXECUTED, scorecard_pb2.BOUNDED), entry.id
        if entry.id in ("vmbench", "mirabench", "physics-iq", "physics-iq-verified"):
            assert entry.implementation == catalog_pb2.FULL_RUNNER, entry.id
        elif entry.id == "vbench":  # part 1: ten of sixteen dimensions
            assert entry.implementation == catalog_pb2.PARTIAL_RUNNER, entry.id
        elif entry.id == "worldscore":
            assert entry.implementation in (catalog_pb2.PARTIAL_RUNNER, catalog_pb2.FULL_RUNNER)
        elif entry.id != "memobench":
            assert entry.implementation == catalog_pb2.NOT_IMPLEMENTED, entry.id
            assert entry.verification == scorecard_pb2.NOT_EXECUTED, entry.id
            continue
        assert entry.verification == scorecard_pb2.BOUNDED, entry.id
        assert [e.data for e in entry.evidence] == [catalog_pb2.BUNDLED_SAMPLE], entry.id
    memobench = catalog_lib.get_entry("memobench", catalog)
    assert memobench.implementation == catalog_pb2.FULL_RUNNER
    assert memobench.verification == scorecard_pb2.BOUNDED
    assert "//benchmarks/memobench:run" in memobench.targets


def test_profiles_are_referenced(catalog):
    with_profile = sorted(e.id for e in catalog.benchmarks if e.runtime_profile)
    assert with_profile == ["memobench", "mirabench", "physics-iq", "physics-iq-verified",
                            "vbench", "vmbench", "worldscore"]


def test_unknown_benchmark_lists_the_valid_ids(catalog):
    with pytest.raises(catalog_lib.UnknownIdError) as e:
        catalog_lib.get_entry("vbench3", catalog)
    assert "did you mean vbench" in str(e.value)
    assert len(e.value.valid) == 42 and "wrbench" in str(e.value)


def test_get_entry(catalog):
    assert catalog_lib.get_entry("worldscore", catalog).task_family == catalog_pb2.WORLD_MODEL


def test_malformed_file_names_file_and_line(tmp_path, text):
    with pytest.raises(catalog_lib.TextprotoError) as e:
        _load_modified(tmp_path, text, '  task_family: VIDEO_GENERATION\n',
                       '  task_family: VIDEO\n')
    assert e.value.path == str(tmp_path / "catalog.textproto")
    assert e.value.line == text.splitlines().index("  task_family: VIDEO_GENERATION") + 1


def _line_of(text, needle, occurrence=1):
    lines = [i + 1 for i, line in enumerate(text.splitlines()) if needle in line]
    return lines[occurrence - 1]


@pytest.mark.parametrize("old, new, reason, needle, occurrence", [
    ('id: "vbench-plus-plus"', 'id: "vbench"', "listed twice", 'id: "vbench"', 2),
    ('  task_family: WORLD_MODEL\n', '  task_family: VIDEO_GENERATION\n', "30 VIDEO_GENERATION",
     "schema_version", 1),
    ('id: "vbench"\n', 'id: "VBench"\n', "lowercase", 'id: "VBench"', 1),
    ('  targets: "//benchmarks/memobench:import"\n', '  targets: "benchmarks/memobench"\n',
     "not a Bazel label", "benchmarks/memobench\"", 1),
    ('  implementation: FULL_RUNNER\n  targets: "//benchmarks/memobench',
     '  implementation: NOT_IMPLEMENTED\n  targets: "//benchmarks/memobench',
     "targets must be listed", 'id: "memobench"', 1),
    ('  verification: BOUNDED\n', '  verification: NOT_EXECUTED\n', "needs evidence",
     'id: "vbench"', 1),
    ('    bazel_target: "//benchmarks/memobench:run"\n', '    bazel_target: "//tools:catalog"\n',
     "not one of the entry's targets", 'id: "memobench"', 1),
    ('    data: BUNDLED_SAMPLE\n', '', "evidence data is not set", 'id: "vbench"', 1),
    ('    scorecard_sha256: "', '    scorecard_sha256: "00', "full sha256", 'id: "vbench"', 1),
    ('  runtime_profile: "benchmarks/mirabench/runtime_profile.textproto"\n', '',
     "needs a runtime profile", 'id: "mirabench"', 1),
    ('  environment: UNIFIED_METRIC_STACK\n  needs_service: true\n  metrics: "VisualQuality"',
     '  environment: UNIFIED_METRIC_STACK\n  metrics: "VisualQuality"', "needs_service must be",
     'id: "memobench"', 1),
    ('  metrics: "ORS"\n', '  metrics: "ORS2"\n', "not in its runtime profile",
     'id: "memobench"', 1),
    ('  implementation: NOT_IMPLEMENTED\n  verification: NOT_EXECUTED\n  upstream_claim: "One',
     '  implementation: PARTIAL_RUNNER\n  targets: "//benchmarks/iworld_bench:run"\n'
     '  verification: NOT_EXECUTED\n  upstream_claim: "One', "needs a runtime profile",
     'id: "iworld-bench"', 1),
])
def test_broken_rules_name_the_line(tmp_path, text, old, new, reason, needle, occurrence):
    with pytest.raises(catalog_lib.TextprotoError, match=reason) as e:
        _load_modified(tmp_path, text, old, new)
    modified = text.replace(old, new, 1)
    assert e.value.line == _line_of(modified, needle, occurrence)


# A hyphenated id: its code and profile live in its package (the id with "-" as "_").

_PHYSICS_IQ_PROFILE = """\
schema_version: "worldeval.v1.RuntimeProfile/1"
benchmark_id: "physics-iq"
upstream_repository: "github.com/google-deepmind/physics-IQ-benchmark"
environment: UNIFIED
metrics {
  metric_id: "physics_iq_score"
  device: CPU_OK
}
"""


def test_package_of_replaces_every_hyphen():
    assert catalog_lib.package_of("physics-iq") == "physics_iq"
    assert catalog_lib.package_of("physics-iq-verified") == "physics_iq_verified"
    assert catalog_lib.package_of("memobench") == "memobench"
    assert catalog_lib.package_of("vbench-2.0") == "vbench_2_0"
    assert catalog_lib.package_of("4dworldbench") == "_4dworldbench"
    assert catalog_lib.package_of is runtime_profiles.package_of  # one rule


def test_every_catalog_id_gives_its_own_importable_package():
    ids = [entry.id for entry in catalog_lib.load_catalog().benchmarks]
    packages = [catalog_lib.package_of(i) for i in ids]
    assert all(p.isidentifier() for p in packages), packages
    assert len(set(packages)) == len(ids) == 42


def test_runnable_ids_look_for_the_run_target_in_the_package():
    def runnable(target):
        catalog = catalog_pb2.Catalog()
        catalog.benchmarks.add(id="physics-iq", targets=[target])
        catalog.benchmarks.add(id="memobench", targets=["//benchmarks/memobench:run"])
        return catalog_lib.runnable_ids(catalog)

    assert runnable("//benchmarks/physics_iq:run") == ["memobench", "physics-iq"]
    assert runnable("//benchmarks/physics-iq:run") == ["memobench"]
    assert runnable("//benchmarks/physics_iq:import") == ["memobench"]


def test_an_implemented_hyphenated_id_needs_the_profile_of_its_package(benchmarks_dir,
                                                                    tmp_path, text):
    (benchmarks_dir / "physics_iq" / runtime_profiles.PROFILE_FILE).unlink()
    expected = "benchmarks/physics_iq/runtime_profile.textproto"
    with pytest.raises(catalog_lib.TextprotoError,
                       match=f"runtime_profile must be '{expected}'"):
        _load_modified(tmp_path, text, "", "")  # the real catalog: physics-iq is implemented


def test_two_ids_of_one_package_are_refused(tmp_path, text):
    with pytest.raises(catalog_lib.TextprotoError, match="same package 'physics_iq'") as e:
        _load_modified(tmp_path, text, 'id: "physics-iq-verified"', 'id: "physics_iq"')
    assert e.value.line == _line_of(text, 'id: "physics-iq-verified"')


@pytest.fixture
def benchmarks_dir(tmp_path, monkeypatch):
    """A benchmarks/ holding the real profiles and physics-iq's in benchmarks/physics_iq/."""
    root = tmp_path / "benchmarks"
    for path in runtime_profiles.benchmarks_dir().glob(f"*/{runtime_profiles.PROFILE_FILE}"):
        (root / path.parent.name).mkdir(parents=True)
        (root / path.parent.name / path.name).write_bytes(path.read_bytes())
    (root / "physics_iq").mkdir(exist_ok=True)  # physics-iq's real profile, replaced
    (root / "physics_iq" / runtime_profiles.PROFILE_FILE).write_text(_PHYSICS_IQ_PROFILE)
    monkeypatch.setattr(runtime_profiles, "benchmarks_dir", lambda: root)
    return root


def test_a_profile_is_found_by_id_in_its_package(benchmarks_dir):
    assert runtime_profiles.has_profile("physics-iq")
    assert "physics-iq" in runtime_profiles.profile_ids()
    assert "physics_iq" not in runtime_profiles.profile_ids()
    assert runtime_profiles.profile_path("physics-iq") == (
        benchmarks_dir / "physics_iq" / runtime_profiles.PROFILE_FILE)
    assert runtime_profiles.load_profile("physics-iq").benchmark_id == "physics-iq"
    with pytest.raises(catalog_lib.TextprotoError, match="benchmarks/physics_iq/"):
        runtime_profiles.load_profile("physics_iq")  # the folder holds physics-iq's


def test_a_profile_outside_its_package_is_refused(benchmarks_dir):
    (benchmarks_dir / "physics_iq").rename(benchmarks_dir / "physics-iq")
    assert not runtime_profiles.has_profile("physics-iq")
    with pytest.raises(catalog_lib.TextprotoError, match="its package is 'physics_iq'"):
        runtime_profiles.profile_ids()


def test_the_catalog_names_a_hyphenated_profile_by_its_package(benchmarks_dir, tmp_path, text):
    named = '  runtime_profile: "benchmarks/physics_iq/runtime_profile.textproto"\n'
    assert text.count(named) == 1
    catalog = _load_modified(tmp_path, text, "", "")
    assert catalog_lib.get_entry("physics-iq", catalog).runtime_profile == (
        "benchmarks/physics_iq/runtime_profile.textproto")
    with pytest.raises(catalog_lib.TextprotoError, match="runtime_profile must be "
                       "'benchmarks/physics_iq/runtime_profile.textproto'"):
        _load_modified(tmp_path, text, named, named.replace("physics_iq", "physics-iq"))
