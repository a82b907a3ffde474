"""Every runtime profile parses and makes sense; bad files fail with their file and line."""

import re
import textwrap

import pytest

from benchmarks.common import runtime_profiles
from proto import runtime_profile_pb2

# The benchmarks whose specs exist (../shared/specs); each has a profile.
EXPECTED_PROFILES = ["memobench", "mirabench", "physics-iq", "physics-iq-verified", "vbench",
                     "vmbench", "worldscore"]

_SECRET_LOOKING = re.compile(r"KEY|TOKEN|SECRET|PASSWORD", re.IGNORECASE)

_GOOD = """\
schema_version: "worldeval.v1.RuntimeProfile/1"
benchmark_id: "demo"
environment: UNIFIED
metrics {
  metric_id: "psnr"
  device: CPU_OK
}
metrics {
  metric_id: "lpips"
  device: CPU_OK
  checkpoints {
    name: "alexnet"
    url: "https://example.invalid/alexnet.pth"
    file: "alexnet.pth"
    fetch_command: "curl ..."
  }
}
"""


def _write(tmp_path, text, name="demo"):
    folder = tmp_path / name
    folder.mkdir(exist_ok=True)
    path = folder / runtime_profiles.PROFILE_FILE
    path.write_text(textwrap.dedent(text))
    return path


def test_the_expected_profiles_exist():
    assert runtime_profiles.profile_ids() == EXPECTED_PROFILES


@pytest.mark.parametrize("benchmark_id", EXPECTED_PROFILES)
def test_every_profile_loads(benchmark_id):
    profile = runtime_profiles.load_profile(benchmark_id)
    assert profile.benchmark_id == benchmark_id
    assert profile.upstream_repository and profile.upstream_revision
    assert profile.metrics


@pytest.mark.parametrize("benchmark_id", EXPECTED_PROFILES)
def test_secrets_are_marked_and_never_have_values(benchmark_id):
    profile = runtime_profiles.load_profile(benchmark_id)
    variables = list(profile.env_vars) + [v for m in profile.metrics for v in m.env_vars]
    for var in variables:
        if _SECRET_LOOKING.search(var.name):
            assert var.secret, f"{benchmark_id}: {var.name} looks like a secret"
        assert var.purpose, f"{benchmark_id}: {var.name} says what it is for"


def test_mirabench_claims_only_the_metrics_its_runner_computes():
    profile = runtime_profiles.load_profile("mirabench")  # worldscore: its own test
    computed = {m.metric_id for m in profile.metrics if not m.pending}
    assert computed == {  # one per line: each family's change touches only its own
        "3D_consistency_num_pts", "3D_consistency_num_inliers_F", "3D_consistency_keep_ratio",
        "3D_consistency_mean_err", "3D_consistency_rmse",
        "fid",
        "kid",
        "temporal_dino_consistency",
        "temporal_clip_consistency",
        "aesthetic_quality",
        "dynamic_degree",
        "temporal_motion_smoothness",
        "camera_alignment", "main_object_alignment", "background_alignment", "style_alignment",
        "overall_consistency",
        "tracking_strength",
        "fvd",
        "kvd",
        "imaging_quality",
    }


def test_unknown_benchmark_lists_the_valid_ones():
    with pytest.raises(runtime_profiles.UnknownIdError) as e:
        runtime_profiles.load_profile("memobenc")
    message = str(e.value)
    assert "'memobenc'" in message and "did you mean memobench" in message
    for benchmark_id in EXPECTED_PROFILES:
        assert benchmark_id in message


def test_unknown_metric_lists_the_valid_ones():
    profile = runtime_profiles.load_profile("memobench")
    with pytest.raises(runtime_profiles.UnknownIdError, match="GT_ALL_PSNR") as e:
        runtime_profiles.select_metrics(profile, ["GT_ALL_PSNRR"])
    assert e.value.given == "GT_ALL_PSNRR"
    assert "ORS" in e.value.valid


def test_require_known_returns_a_known_id():
    assert runtime_profiles.require_known("benchmark", "b", ["a", "b"]) == "b"


def test_select_metrics_keeps_profile_order(tmp_path):
    profile = runtime_profiles.parse_profile(_write(tmp_path, _GOOD))
    chosen = runtime_profiles.select_metrics(profile, ["lpips", "psnr"])
    assert [m.metric_id for m in chosen] == ["psnr", "lpips"]
    assert len(runtime_profiles.select_metrics(profile)) == 2


def test_checkpoints_are_listed_once(tmp_path):
    text = _GOOD.replace('metric_id: "psnr"\n  device: CPU_OK', '''metric_id: "psnr"
  device: CPU_OK
  checkpoints {
    name: "alexnet"
    url: "https://example.invalid/alexnet.pth"
    file: "alexnet.pth"
    fetch_command: "curl ..."
  }''')
    profile = runtime_profiles.parse_profile(_write(tmp_path, text))
    assert [c.name for c in runtime_profiles.checkpoints(profile)] == ["alexnet"]
    assert [c.name for c in runtime_profiles.checkpoints(profile, ["psnr"])] == ["alexnet"]


def test_a_good_file_parses(tmp_path):
    profile = runtime_profiles.parse_profile(_write(tmp_path, _GOOD), expected_id="demo")
    assert profile.environment == runtime_profile_pb2.UNIFIED


def test_syntax_error_names_file_and_line(tmp_path):
    unclosed = _GOOD.replace("  device: CPU_OK\n}\nmetrics", "  device: CPU_OK\n\nmetrics", 1)
    path = _write(tmp_path, unclosed)
    with pytest.raises(runtime_profiles.TextprotoError) as e:
        runtime_profiles.parse_profile(path)
    assert e.value.path == str(path)
    assert str(e.value).startswith(f"{path}:")
    assert e.value.line > 0


def test_unknown_field_names_its_line(tmp_path):
    path = _write(tmp_path, _GOOD.replace('  device: CPU_OK\n', '  device: CPU_OK\n  gpu: 1\n', 1))
    with pytest.raises(runtime_profiles.TextprotoError, match="gpu") as e:
        runtime_profiles.parse_profile(path)
    assert e.value.line == 7


def test_bad_enum_value_names_its_line(tmp_path):
    path = _write(tmp_path, _GOOD.replace("environment: UNIFIED", "environment: UNIFIED_GPU"))
    with pytest.raises(runtime_profiles.TextprotoError, match="UNIFIED_GPU") as e:
        runtime_profiles.parse_profile(path)
    assert e.value.line == 3


@pytest.mark.parametrize("old, new, line, reason", [
    ('schema_version: "worldeval.v1.RuntimeProfile/1"', 'schema_version: "other/1"', 1,
     "schema_version"),
    ("environment: UNIFIED", "", 0, "environment is not set"),
    ('  metric_id: "lpips"\n  device: CPU_OK\n', '  metric_id: "lpips"\n', 9, "device is not set"),
    ('metric_id: "lpips"', 'metric_id: "psnr"', 9, "listed twice"),
    ('    url: "https://example.invalid/alexnet.pth"\n',
     '    url: "https://example.invalid/alexnet.pth"\n    id: "org/alexnet"\n', 12, "not both"),
    ('    url: "https://example.invalid/alexnet.pth"\n', '    id: "org/alexnet"\n', 12,
     "needs a revision"),
    ('    fetch_command: "curl ..."\n', "", 12, "fetch_command is empty"),
    ('    file: "alexnet.pth"\n', "", 12, "file is empty"),
    ('    name: "alexnet"\n', "", 0, "name"),
])
def test_meaningless_profile_names_file_line_and_reason(tmp_path, old, new, line, reason):
    assert old in _GOOD
    path = _write(tmp_path, _GOOD.replace(old, new, 1))
    with pytest.raises(runtime_profiles.TextprotoError, match=reason) as e:
        runtime_profiles.parse_profile(path)
    assert str(e.value).startswith(f"{path}:")
    if line:
        assert e.value.line == line


def test_benchmark_id_must_match_its_folder(tmp_path):
    path = _write(tmp_path, _GOOD, name="other")
    with pytest.raises(runtime_profiles.TextprotoError, match="benchmarks/other/") as e:
        runtime_profiles.parse_profile(path, expected_id="other")
    assert e.value.line == 2


def test_env_var_names_are_checked(tmp_path):
    text = _GOOD.replace("environment: UNIFIED\n",
                         'environment: UNIFIED\nenv_vars { name: "lower_case" }\n')
    with pytest.raises(runtime_profiles.TextprotoError, match="lower_case") as e:
        runtime_profiles.parse_profile(_write(tmp_path, text))
    assert e.value.line == 4


def test_same_checkpoint_must_be_identical_everywhere(tmp_path):
    text = _GOOD.replace('metric_id: "psnr"\n  device: CPU_OK', '''metric_id: "psnr"
  device: CPU_OK
  checkpoints {
    name: "alexnet"
    url: "https://example.invalid/other.pth"
    file: "alexnet.pth"
    fetch_command: "curl ..."
  }''')
    with pytest.raises(runtime_profiles.TextprotoError, match="differs") as e:
        runtime_profiles.parse_profile(_write(tmp_path, text))
    assert e.value.line == text.splitlines().index('    name: "alexnet"', 10) + 1
