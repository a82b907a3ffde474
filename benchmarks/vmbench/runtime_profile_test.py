"""VMBench's runtime profile against the code: the pinned prompt suite, the metric ids,
what the runner computes and what it reports pending."""

import hashlib
import json
import math
import pathlib

from benchmarks.common import runtime_profiles
from benchmarks.common.flags import CommonConfig
from benchmarks.vmbench import checkpoints
from benchmarks.vmbench import metric_specs
from benchmarks.vmbench import official_models
from benchmarks.vmbench import shared_data
from tools.assets import plan
from tools.catalog import catalog_lib

PROMPTS = "prompts/prompts.json"


def test_prompt_suite_is_pinned_to_a_commit_and_its_sha256():
    profile = runtime_profiles.load_profile("vmbench")
    (dataset,) = profile.datasets
    assert len(dataset.revision) == 40
    assert dataset.file_sha256[PROMPTS] == shared_data.PROMPTS_SHA256
    assert dataset.revision in dataset.fetch_command
    assert shared_data.PROMPTS_SHA256 in dataset.fetch_command
    official = shared_data.prompts_json()
    assert hashlib.sha256(official.read_bytes()).hexdigest() == dataset.file_sha256[PROMPTS]


def test_the_asset_plan_shows_the_pin():
    text = plan.plan_text("vmbench", catalog_lib.get_entry("vmbench"))
    assert f"file: {PROMPTS} (sha256 {shared_data.PROMPTS_SHA256})" in text
    assert "raw.githubusercontent.com/AMAP-ML/VMBench/c278a73984b4" in text


def test_profile_metrics_are_the_tables_and_all_are_computed():
    profile = runtime_profiles.load_profile("vmbench")
    assert [m.metric_id for m in profile.metrics] == list(metric_specs.PER_VIDEO_IDS)
    pending = {m.metric_id for m in profile.metrics if m.pending}
    assert not pending  # all five run


def test_profile_checkpoints_are_the_loaders_pins():
    """Each metric lists the checkpoints its loader resolves, in order (each block's
    fields are the spec's: //tests:runtime_profiles_test, over every benchmark)."""
    profile = runtime_profiles.load_profile("vmbench")
    by_id = {m.metric_id: m for m in profile.metrics}
    for metric_id, wanted in (("perceptible_amplitude_score", checkpoints.PAS),
                              ("temporal_coherence_score", checkpoints.TCS),
                              ("commonsense_adherence_score", checkpoints.CAS),
                              ("motion_smoothness_score", checkpoints.MSS),
                              ("object_integrity_score", checkpoints.OIS)):
        got = [(c.name, c.file) for c in by_id[metric_id].checkpoints]
        assert got == [(s.name, s.filename) for s in wanted], metric_id


def _tensor_bytes(relative: str, per_element: int = 4) -> int:
    """Bytes of an official state dict's key/shape list (three layouts)."""
    data = json.loads(pathlib.Path(relative).read_text())
    if "keys" in data:
        data = data["keys"]
    if "tensors" in data:
        data = {name: shape for name, shape, _ in data["tensors"]}
    return per_element * sum(math.prod(shape) for shape in data.values())


def test_estimated_sizes_are_the_official_state_dicts():
    """Each estimate is the float32 size of the official key/shape list a loader test
    checks (Q-Align's: 16-bit); every checkpoint has an exact size or an estimate, except the BERT snapshot
    (a whole hub repository, of which GroundingDINO reads the tokenizer)."""
    for spec, listing in (
            (checkpoints.GROUNDING_DINO_SWINB,
             "metrics/detection/testdata/groundingdino_swinb_keys.json"),
            (checkpoints.SAM2_1_HIERA_L, "metrics/segmentation/sam2_hiera_l_official_keys.json"),
            (checkpoints.COTRACKER3_OFFLINE,
             "metrics/tracking/cotracker3/testdata/official_state_dict.json"),
            (checkpoints.VIT_G_CAS,
             "metrics/videomae/testdata/vit_g_cas_state_dict_shapes.json")):
        assert spec.approx_size_bytes == _tensor_bytes(listing), spec.name
    assert checkpoints.Q_ALIGN_ONE_ALIGN.approx_size_bytes == _tensor_bytes(
        "metrics/qalign/testdata/one_align_state_dict_shapes.json", per_element=2)
    import torch  # pylint: disable=import-outside-toplevel
    from metrics.pose import rtmdet, rtmpose  # pylint: disable=import-outside-toplevel
    with torch.device("meta"):
        for spec, model in ((checkpoints.RTMDET_M_PERSON, rtmdet.RTMDet(rtmdet.RtmdetConfig())),
                            (checkpoints.RTMPOSE_M_BODY7,
                             rtmpose.TopdownRTMPose(rtmpose.RtmposeConfig()))):
            elements = sum(v.numel() for k, v in model.state_dict().items()
                           if not k.endswith("num_batches_tracked"))
            assert spec.approx_size_bytes == 4 * elements, spec.name
    every = (checkpoints.PAS + checkpoints.TCS + checkpoints.CAS + checkpoints.MSS
             + checkpoints.OIS)
    unsized = {s.name for s in every
               if not s.size_bytes and not s.approx_size_bytes}
    assert unsized == {"bert_base_uncased_snapshot"}
    text = plan.plan_text("vmbench", catalog_lib.get_entry("vmbench"))
    assert ("vit_g_vmbench.pt: GD-ML/VMBench@main, ~4.0 GB estimated from its official "
            "state dict, licence MIT") in text


def test_unavailable_reasons_carry_every_checkpoint_fetch_command(tmp_path):
    """What a missing checkpoint's reason lists (official_models._needs) is the profile's
    checkpoints, each present or missing, with the fetch command for --checkpoint_dir."""
    (tmp_path / "vmbench_vit_g_cas").mkdir()
    (tmp_path / "vmbench_vit_g_cas" / "vit_g_vmbench.pt").write_bytes(b"x")
    common = CommonConfig(checkpoint_dir=str(tmp_path))
    reasons = {m: official_models._needs(m, common)  # pylint: disable=protected-access
               for m in metric_specs.PER_VIDEO_IDS}
    profile = runtime_profiles.load_profile("vmbench")
    for metric in profile.metrics:
        for ckpt in metric.checkpoints:
            assert ckpt.file in reasons[metric.metric_id]
            assert ckpt.fetch_command.replace("<checkpoint_dir>", str(tmp_path)) in (
                reasons[metric.metric_id])
    assert "vit_g_vmbench.pt (present" in reasons["commonsense_adherence_score"]
    assert f"--local-dir {tmp_path}/vmbench_sam_vit_h" in reasons["perceptible_amplitude_score"]
