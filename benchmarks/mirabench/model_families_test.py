"""The runner's MiraBench model families (families.prepare) on tiny random checkpoints in
the official file formats, found through --checkpoint_dir: each family's value equals the
metric library's compute() on the same frames with the model loaded independently, the
checkpoints are recorded, and a missing checkpoint is an unavailable reason with its fetch
command. RAFT and AMT-S are full size (neither has another), on the smallest frames they take;
MUSIQ is tiny (metrics.iqa.tiny_musiq.TINY)."""

import types

import cloudpickle
import numpy as np
import pytest

from benchmarks.common import batch_parity
from benchmarks.common import family_contract as contract
from benchmarks.common.flags import CommonConfig
from benchmarks.mirabench import checkpoints as ckpts
from benchmarks.mirabench import families
from benchmarks.mirabench import runner
from benchmarks.mirabench import sample
from benchmarks.mirabench.model_metrics import aesthetic_quality
from benchmarks.mirabench.model_metrics import dynamic_degree
from benchmarks.mirabench.model_metrics import imaging_quality
from benchmarks.mirabench.model_metrics import temporal_clip_consistency
from benchmarks.mirabench.model_metrics import temporal_dino_consistency
from benchmarks.mirabench.model_metrics import temporal_motion_smoothness
from benchmarks.mirabench import tiny_checkpoints
from benchmarks.mirabench.model_metrics import tracking_strength
from metrics.clip import aesthetic
from metrics.clip import vision
from metrics.dino import vit
from metrics.flow import raft_things
from metrics.frame_interpolation import amt
from metrics.iqa import musiq
from metrics.tracking.cotracker2 import config as cotracker2_config
from metrics.tracking.cotracker2 import loader as cotracker2_loader
from tools.fixtures import mirabench_clips

WIRED = ("temporal_dino_consistency", "temporal_clip_consistency", "aesthetic_quality",
         "dynamic_degree", "temporal_motion_smoothness", "imaging_quality", "tracking_strength")


def _config(checkpoint_dir):
    common = CommonConfig(device="cpu", checkpoint_dir=str(checkpoint_dir), offline=True)
    return types.SimpleNamespace(common=common, architectures=tiny_checkpoints.ARCHITECTURES)


@pytest.fixture(scope="module")
def checkpoint_dir(tmp_path_factory):
    root = tiny_checkpoints.write_all(tmp_path_factory.mktemp("ckpt"))
    return {s.name: root / s.name for s in ckpts.ALL}


CHECKED = {}  # family name -> results the family contract checked (the last test reads it)


@pytest.fixture(scope="module")
def prepared(checkpoint_dir):
    """The wired families, each result they compute in this module held to the family
    contract (benchmarks/common/family_contract.enforced)."""
    with contract.enforced(runner.BENCHMARK) as checked:
        built = families.prepare(_config(next(iter(checkpoint_dir.values())).parent),
                                 set(WIRED))
    CHECKED["counts"] = checked
    return built


def _ctx(rgb):
    return sample.VideoContext(sample_id="0", frames=np.ascontiguousarray(rgb[..., ::-1]), row=None)


def _frames(count, shape, seed):
    return np.random.default_rng(seed).integers(0, 256, (count,) + shape, dtype=np.uint8)


def test_every_wired_family_is_built_with_its_checkpoints(prepared, checkpoint_dir):
    assert not prepared.unavailable
    assert sorted(f.name for f in prepared.families) == [
        "amt_smoothness", "clip_temporal", "cotracker_strength", "dino_temporal",
        "laion_aesthetic", "musiq", "raft_dynamic"]
    refs = {(r.metric_id, r.path) for r in prepared.checkpoints()}
    assert refs == {
        ("temporal_dino_consistency",
         str(checkpoint_dir["dino_vitb16"] / "dino_vitbase16_pretrain.pth")),
        ("temporal_clip_consistency", str(checkpoint_dir["clip_vit_base_patch32"])),
        ("aesthetic_quality", str(checkpoint_dir["clip_vit_large_patch14"])),
        ("aesthetic_quality", str(checkpoint_dir["laion_aesthetic_linear_l14"]
                                  / "sa_0_4_vit_l_14_linear.pth")),
        ("dynamic_degree", str(checkpoint_dir["raft_things"] / "raft-things.pth")),
        ("temporal_motion_smoothness", str(checkpoint_dir["amt_s"] / "amt-s.pth")),
        ("imaging_quality", str(checkpoint_dir["musiq_spaq"] / "musiq_spaq_ckpt-358bb6af.pth")),
        ("tracking_strength", str(checkpoint_dir["cotracker2"] / "cotracker2.pth"))}
    for metric_id in WIRED:
        backend = prepared.backend_of(metric_id)
        assert backend.official
        if metric_id == "tracking_strength":  # parity.csv rows, recomputed in CI
            assert backend.parity.verified and "cotracker2_online" in backend.parity.evidence
            continue
        assert not backend.parity.verified
        assert "never run on the real weights" in backend.parity.scope


def test_the_families_compute_what_the_libraries_compute(prepared, checkpoint_dir):
    rgb = _frames(4, (36, 60, 3), seed=0)
    dino = vit.load_dino(checkpoint_dir["dino_vitb16"] / "dino_vitbase16_pretrain.pth", "cpu",
                         tiny_checkpoints.TINY_DINO)
    b32 = vision.load_clip_vision(checkpoint_dir["clip_vit_base_patch32"], "cpu",
                                  activation="quick_gelu")
    l14 = aesthetic.load_aesthetic_linear(
        checkpoint_dir["clip_vit_large_patch14"],
        checkpoint_dir["laion_aesthetic_linear_l14"] / "sa_0_4_vit_l_14_linear.pth", "cpu",
        activation="quick_gelu")
    want = {"temporal_dino_consistency": temporal_dino_consistency.compute(rgb, dino),
            "temporal_clip_consistency": temporal_clip_consistency.compute(rgb, b32),
            "aesthetic_quality": aesthetic_quality.compute(rgb, l14)}
    for name in ("dino_temporal", "clip_temporal", "laion_aesthetic"):
        family = next(f for f in prepared.families if f.name == name)
        got = family.compute(_ctx(rgb))
        assert not got.unavailable
        for metric_id, value in got.columns.items():
            assert value == pytest.approx(want[metric_id], abs=1e-6), metric_id
    # The families see RGB: the BGR frames would give another value.
    swapped = next(f for f in prepared.families if f.name == "laion_aesthetic").compute(
        _ctx(np.ascontiguousarray(rgb[..., ::-1])))
    assert abs(swapped.columns["aesthetic_quality"] - want["aesthetic_quality"]) > 1e-6


def test_the_families_ship_without_their_models_and_the_copies_compute_the_same(prepared):
    """What --executor=ray puts in the object store for an actor (cloudpickle, as ray.put):
    the families without their loaded models (RAFT and AMT-S alone are full size, 21 MB
    and 12 MB); the unpickled copies load their own and give the same values."""
    shipped = cloudpickle.dumps(prepared.families)
    assert len(shipped) < 200_000, len(shipped)
    copies = {f.name: f for f in cloudpickle.loads(shipped)}
    rgb = _frames(4, (36, 60, 3), seed=0)
    for name in ("dino_temporal", "clip_temporal", "laion_aesthetic"):
        family = next(f for f in prepared.families if f.name == name)
        assert copies[name].compute(_ctx(rgb)) == family.compute(_ctx(rgb)), name


def test_dynamic_degree_family_is_raft_things_on_the_rgb_frames(prepared, checkpoint_dir):
    rgb = _frames(2, (125, 123, 3), seed=1)  # pads to 128 x 128, raft_large's minimum
    raft = raft_things.load_raft_things(checkpoint_dir["raft_things"] / "raft-things.pth", "cpu")
    family = next(f for f in prepared.families if f.name == "raft_dynamic")
    got = family.compute(_ctx(rgb)).columns["dynamic_degree"]
    assert got == pytest.approx(dynamic_degree.compute(rgb, raft), rel=1e-6)


def test_motion_smoothness_family_is_amt_s_on_the_rgb_frames(prepared, checkpoint_dir):
    rgb = _frames(3, (125, 130, 3), seed=2)  # pads to 128 x 144, AMT-S's minimum at scale 1
    model = amt.load_amt_s(checkpoint_dir["amt_s"] / "amt-s.pth", "cpu")
    family = next(f for f in prepared.families if f.name == "amt_smoothness")
    got = family.compute(_ctx(rgb))
    assert not got.unavailable
    want = temporal_motion_smoothness.compute(rgb, model, scale=1.0)  # the CPU rule's scale
    assert got.columns["temporal_motion_smoothness"] == pytest.approx(want, abs=1e-9)
    assert 0.0 < want < 1.0
    assert prepared.backend_of("temporal_motion_smoothness").name == "amt_s"
    bgr = family.compute(_ctx(np.ascontiguousarray(rgb[..., ::-1])))
    assert bgr.columns["temporal_motion_smoothness"] != pytest.approx(want, abs=1e-9)
    # Under 128 px upstream returns NaN; ours raises, which the sample loop records as the
    # sample's reason (ValueError is an expected per-sample failure).
    with pytest.raises(ValueError, match="at least 128 px"):
        family.compute(_ctx(_frames(3, (64, 200, 3), seed=3)))


def test_imaging_quality_family_is_musiq_on_every_rgb_frame(prepared, checkpoint_dir):
    rgb = _frames(2, (530, 90, 3), seed=2)  # shrunk to 512 x 86
    model = musiq.load_musiq(checkpoint_dir["musiq_spaq"] / "musiq_spaq_ckpt-358bb6af.pth", "cpu",
                             tiny_checkpoints.TINY_MUSIQ)
    family = next(f for f in prepared.families if f.name == "musiq")
    got = family.compute(_ctx(rgb)).columns["imaging_quality"]
    assert got == pytest.approx(imaging_quality.compute(rgb, model), abs=1e-6)
    assert prepared.backend_of("imaging_quality").name == "musiq_spaq"
    assert "metrics/iqa/testdata/musiq_parity.json" in prepared.backend_of(
        "imaging_quality").parity.scope


def test_tracking_strength_family_is_cotracker2_online_on_the_rgb_frames(prepared,
                                                                        checkpoint_dir):
    rgb = _frames(10, (36, 60, 3), seed=4)  # chunks 0-7, 4-9: histories of 8 and 10 frames
    model = cotracker2_loader.load_cotracker2_online(
        checkpoint_dir["cotracker2"] / "cotracker2.pth", "cpu", cotracker2_config.TINY)
    family = next(f for f in prepared.families if f.name == "cotracker_strength")
    got = family.compute(_ctx(rgb))
    assert not got.unavailable
    want = tracking_strength.compute(rgb, model)
    assert got.columns["tracking_strength"] == pytest.approx(want, abs=1e-9)
    assert want > 0
    assert prepared.backend_of("tracking_strength").name == "cotracker2_online"
    bgr = family.compute(_ctx(np.ascontiguousarray(rgb[..., ::-1])))
    assert bgr.columns["tracking_strength"] != pytest.approx(want, abs=1e-9)
    # Four frames give no online call (upstream fails on the empty concatenation); ours
    # raises ValueError, which the sample loop records as the sample's reason.
    with pytest.raises(ValueError, match="longer than one step"):
        family.compute(_ctx(_frames(4, (36, 60, 3), seed=5)))


def test_amt_scale_setting_replaces_the_memory_rule(checkpoint_dir):
    config = _config(next(iter(checkpoint_dir.values())).parent)
    config.amt_scale = 0.5
    prepared = families.prepare(config, {"temporal_motion_smoothness"})
    rgb = _frames(3, (256, 264, 3), seed=2)  # 128 px per side at scale 0.5
    model = amt.load_amt_s(checkpoint_dir["amt_s"] / "amt-s.pth", "cpu")
    got = prepared.families[0].compute(_ctx(rgb)).columns["temporal_motion_smoothness"]
    assert got == pytest.approx(temporal_motion_smoothness.compute(rgb, model, scale=0.5),
                                abs=1e-9)
    assert got != pytest.approx(temporal_motion_smoothness.compute(rgb, model, scale=1.0),
                                abs=1e-9)


def test_tracking_history_final_is_the_named_corrected_variant(checkpoint_dir):
    config = _config(next(iter(checkpoint_dir.values())).parent)
    config.tracking_history = "final"
    prepared = families.prepare(config, {"tracking_strength"})
    backend = prepared.backend_of("tracking_strength")
    assert not backend.official and "final_history" in backend.name
    rgb = _frames(10, (36, 60, 3), seed=4)
    model = cotracker2_loader.load_cotracker2_online(
        checkpoint_dir["cotracker2"] / "cotracker2.pth", "cpu", cotracker2_config.TINY)
    got = prepared.families[0].compute(_ctx(rgb)).columns["tracking_strength"]
    assert got == pytest.approx(tracking_strength.compute(rgb, model, corrected=True), abs=1e-9)
    assert got != pytest.approx(tracking_strength.compute(rgb, model), abs=1e-6)


def test_a_missing_checkpoint_is_unavailable_with_its_fetch_command(tmp_path):
    empty = families.prepare(_config(tmp_path), set(WIRED))
    assert not empty.families
    for metric_id, spec in [("temporal_dino_consistency", ckpts.DINO_VITB16),
                            ("temporal_clip_consistency", ckpts.CLIP_VIT_B32),
                            ("aesthetic_quality", ckpts.CLIP_VIT_L14),
                            ("dynamic_degree", ckpts.RAFT_THINGS),
                            ("temporal_motion_smoothness", ckpts.AMT_S),
                            ("imaging_quality", ckpts.MUSIQ_SPAQ),
                            ("tracking_strength", ckpts.COTRACKER2)]:
        reason, backend = empty.unavailable[metric_id]
        assert spec.fetch_command(str(tmp_path)) in reason and backend.official, metric_id


# --- --sample_batch: the per-frame towers' calls shared by several videos ---------------

PER_FRAME = ("temporal_dino_consistency", "temporal_clip_consistency", "aesthetic_quality")


def _counting(monkeypatch):
    """Counts per_frame calls of each per-frame metric module (the model calls)."""
    calls = {}
    for module in (temporal_dino_consistency, temporal_clip_consistency, aesthetic_quality):
        def counted(frames, model, *args, _inner=module.per_frame, _name=module.__name__,
                    **kw):
            calls[_name.rsplit(".", 1)[1]] = calls.get(_name.rsplit(".", 1)[1], 0) + 1
            return _inner(frames, model, *args, **kw)
        monkeypatch.setattr(module, "per_frame", counted)
    return calls


def _batch_run(root, checkpoint_dir, out, sample_batch):
    config = runner.MiraBenchConfig(
        common=CommonConfig(metrics=PER_FRAME, offline=True, device="cpu",
                            checkpoint_dir=str(next(iter(checkpoint_dir.values())).parent),
                            sample_batch=sample_batch),
        meta_csv=root / "meta_generated.csv", generated_dir=root / "generated",
        output_dir=out, model_name="m", architectures=tiny_checkpoints.ARCHITECTURES)
    runner.run(config)
    return batch_parity.rows(out)


def test_sample_batch_shares_the_tower_calls_and_moves_no_value_beyond_1e_5(
        checkpoint_dir, tmp_path, monkeypatch):
    # Four videos of one size, one of another (DINO shares calls within a size only), a
    # one-frame video (no temporal consistency: it is scored alone, with its reason), and
    # a meta row whose video is missing (its load fails; the others still share calls).
    clips = {i: mirabench_clips.parallax_clip(5, i, 36, 60) for i in (1, 2, 3, 4)}
    clips[5] = mirabench_clips.static_clip(4, 5, 48, 64)
    clips[6] = mirabench_clips.static_clip(1, 6, 36, 60)
    mirabench_clips.write_set(tmp_path, clips, "generated", "meta_generated.csv")
    (tmp_path / "generated" / "3.mp4").unlink()
    calls = _counting(monkeypatch)
    alone = _batch_run(tmp_path, checkpoint_dir, tmp_path / "alone", 1)
    calls_alone = dict(calls)
    calls.clear()
    batched = _batch_run(tmp_path, checkpoint_dir, tmp_path / "batched", 3)
    assert "3" in alone and alone["3"].get("error")
    batch_parity.assert_rows_match(alone, batched)
    assert "temporal_dino_consistency" in alone["6"]["unavailable"]
    # Alone: one call per scorable video (3 is missing; 6, one frame, has no temporal
    # consistency). Batched (groups {1,2,3}, {4,5,6}): group one shares one call per
    # tower; in group two DINO calls once per size (4 and 5 differ; 6 is too short),
    # CLIP B/32 once, the aesthetic head once (with 6).
    assert calls_alone == {"temporal_dino_consistency": 4, "temporal_clip_consistency": 4,
                           "aesthetic_quality": 5}
    assert calls["aesthetic_quality"] == 2 and calls["temporal_clip_consistency"] == 2
    assert calls["temporal_dino_consistency"] == 3


def test_every_family_kept_the_contract_on_every_result(prepared):
    """Last in the module: every wired family computed here and each result of it kept
    the contract (known code keys, finite floats or None, reasons for its own metrics)."""
    assert set(CHECKED["counts"]) == {f.name for f in prepared.families}, CHECKED
