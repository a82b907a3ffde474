"""MemoBench's runtime profile says exactly what the code needs: no drift between them.

The profile (benchmarks/memobench/runtime_profile.textproto) is data; the code's
CheckpointSpecs, metric list, pending metrics and environment variables are the truth
it must follow. Each test fails, naming the difference, when one side changes alone.
"""

import re

import pytest

from benchmarks.common import paths
from benchmarks.common import runtime_profiles
from benchmarks.memobench import metric_specs
from metrics.camera import mapanything_poses
from metrics.checkpoints import resolver
from metrics.clip import aesthetic
from metrics.clip import clipiqa
from metrics.clip import frame_similarity
from metrics.depth import depth_anything
from metrics.dinov2 import backbone
from metrics.flow import raft
from metrics.imagereward import reward_model
from metrics.lpips import lpips
from metrics.segmentation import sam3_spec
from proto import runtime_profile_pb2

# The modules whose CheckpointSpecs MemoBench uses.
SPEC_MODULES = (raft, lpips, depth_anything, backbone, aesthetic, clipiqa, frame_similarity,
                mapanything_poses, reward_model, sam3_spec)

_LPIPS = (lpips.ALEXNET_SPEC, lpips.LPIPS_ALEX_SPEC)
_AESTHETIC = (aesthetic.CLIP_VIT_L14, aesthetic.AESTHETIC_HEAD)
# What each metric loads, read from benchmarks/memobench/step1/{prepare,models}.py and
# the metric modules (an independent statement of the same facts as the profile).
METRIC_CHECKPOINTS = {
    **{f"GT_{p}_LPIPS": _LPIPS for p in ("ALL", "O", "H", "R")},
    "MotionSmoothness": (raft.RAFT_LARGE,),
    "ObjIdentityConsistency": (backbone.DINOV2_BASE,),
    "Geo3DConsistency": (depth_anything.DEPTH_ANYTHING_V2_SMALL,),
    "CameraControllability": (mapanything_poses.MAPANYTHING_APACHE,),
    "VisualQuality": _AESTHETIC + (clipiqa.CLIP_RN50, clipiqa.CLIPIQA_PLUS_PROMPTS),
    "AestheticScore": _AESTHETIC,
    "GTRevisitSim": (frame_similarity.CLIP_VIT_B32,),
    "ImageRewardScore": (reward_model.IMAGE_REWARD, reward_model.MED_CONFIG,
                         reward_model.BERT_VOCAB),
    "ORS": (sam3_spec.SAM3,),
}
VQA_METRICS = ("InstructionFollowing", "ObjectBackground", "ContinuityOfMemory",
               "PhysicsAdherence")

# Environment variables named in the sources of the runner and importer (their runfiles
# under Bazel: this test's data) must be in the profile.
_ENV_NAME = re.compile(r"\b(?:(?:WORLDFOUNDRY|WORLDEVAL|HF_HUB)_[A-Z0-9_]*[A-Z0-9]"
                       r"|[A-Z][A-Z0-9]*_(?:API_KEY|TOKEN))\b")
# Read by libraries (huggingface_hub, torch), not by worldeval's own code.
_LIBRARY_VARIABLES = ["HF_HOME", "HF_TOKEN", "TORCH_HOME"]


@pytest.fixture(scope="module")
def profile():
    return runtime_profiles.load_profile("memobench")


def _code_specs():
    specs = {}
    for module in SPEC_MODULES:
        for value in vars(module).values():
            if isinstance(value, resolver.CheckpointSpec):
                specs[(value.name, value.filename)] = value
    return specs


def test_metrics_are_exactly_the_benchmarks(profile):
    assert sorted(m.metric_id for m in profile.metrics) == sorted(metric_specs.BY_ID)


def test_pending_metrics_are_the_codes(profile):
    pending = sorted(m.metric_id for m in profile.metrics if m.pending)
    assert pending == sorted(metric_specs.PENDING)


def test_every_code_checkpoint_is_in_the_profile(profile):
    listed = {(c.name, c.file) for c in runtime_profiles.checkpoints(profile)}
    missing = sorted(set(_code_specs()) - listed)
    assert not missing, f"CheckpointSpecs missing from the profile: {missing}"


@pytest.mark.parametrize("metric_id", sorted(metric_specs.BY_ID))
def test_each_metric_lists_what_it_loads(profile, metric_id):
    metric, = runtime_profiles.select_metrics(profile, [metric_id])
    expected = [(s.name, s.filename) for s in METRIC_CHECKPOINTS.get(metric_id, ())]
    assert [(c.name, c.file) for c in metric.checkpoints] == expected


def test_weight_free_metrics_run_on_cpu(profile):
    for metric in profile.metrics:
        if re.fullmatch(r"GT_(ALL|O|H|R)_(PSNR|SSIM)", metric.metric_id):
            assert not metric.checkpoints and set(metric.python_modules) == {"numpy", "cv2"}
            assert metric.device == runtime_profile_pb2.CPU_OK


def test_vqa_needs_the_gemini_key_and_service(profile):
    for metric in runtime_profiles.select_metrics(profile, VQA_METRICS):
        keys = {v.name: (v.secret, v.required) for v in metric.env_vars}
        assert keys == {"GEMINI_API_KEY": (True, True), "OPENAI_API_KEY": (True, False)}
        service, = metric.services
        assert service.address == "https://generativelanguage.googleapis.com"
        assert "google.genai" in metric.python_modules


def test_camera_controllability_needs_mapanything(profile):
    metric, = runtime_profiles.select_metrics(profile, ["CameraControllability"])
    assert mapanything_poses.MODULE in metric.python_modules


def _sources():
    root = paths.runfile("benchmarks/memobench/run.py").parents[2]
    files = list((root / "benchmarks" / "memobench").rglob("*.py"))
    files.append(root / "benchmarks" / "common" / "flags.py")
    return [f for f in files if not f.name.endswith("_test.py")]


def test_every_variable_the_code_reads_is_listed(profile):
    read = set()
    for source in _sources():
        read |= set(_ENV_NAME.findall(source.read_text()))
    listed = {v.name for v in profile.env_vars}
    listed |= {v.name for m in profile.metrics for v in m.env_vars}
    assert "WORLDFOUNDRY_MEMOBENCH_DATA_ROOT" in read, "the sources moved?"
    assert sorted(read - listed) == []
    # A pending metric's variables belong to code the binaries do not run yet.
    pending = {v.name for m in profile.metrics if m.pending for v in m.env_vars}
    assert sorted(listed - read - pending - set(_LIBRARY_VARIABLES)) == []
