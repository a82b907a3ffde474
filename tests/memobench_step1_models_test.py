"""Step 1 model metrics through the MemoBench runner, with tiny random checkpoints.

The checkpoints are random models of the official architectures, saved by the test
under the official file names in a --checkpoint_dir and loaded through the same code
path a real run takes (resolver -> loader -> family). Their digests cannot match the
pinned ones, so the pins are cleared for this test only; a separate check shows the
real pins refuse these files. The numbers are then compared with the metric modules
called directly on the same frames.
"""

import dataclasses
import json
import shutil

import cv2
import numpy as np
import pytest

from benchmarks.common import family as family_api
from benchmarks.common import family_contract as contract
from benchmarks.common.flags import CommonConfig
from benchmarks.memobench import bundled_sample
from benchmarks.memobench import clip_eval
from benchmarks.memobench import dataset
from benchmarks.memobench import generated
from benchmarks.memobench import metric_specs
from benchmarks.memobench import runner
from benchmarks.memobench.step1 import prepare
from benchmarks.memobench.step1 import formulas
from benchmarks.memobench.step1 import gt_revisit
from benchmarks.memobench.step1 import model_formulas
from benchmarks.memobench.step1.prepare import Step1Settings
from metrics.clip import aesthetic
from metrics.clip import clipiqa
from metrics.clip import frame_similarity
from metrics.clip import vision
from metrics.depth import depth_anything
from metrics.dinov2 import backbone
from metrics.flow import raft
from metrics.lpips import lpips
from metrics.video import frames as frames_lib
from metrics.video import sampling
from benchmarks.memobench import tiny_checkpoints


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    root = tmp_path_factory.mktemp("step1")
    inputs = bundled_sample.extract(root / "in")
    # torchvision's RAFT needs >= 128 px per side: upscale the 96x128 generated frames.
    gen = root / "gen"
    shutil.copytree(inputs.generated_dir, gen)
    for png in gen.rglob("*.png"):
        cv2.imwrite(str(png), cv2.resize(cv2.imread(str(png)), (256, 192)))
    ckpt = tiny_checkpoints.write_all(root / "ckpt")
    settings = Step1Settings(device="cpu", checkpoint_dir=str(ckpt), offline=True)
    config = runner.MemobenchConfig(
        common=CommonConfig(offline=True), data_root=inputs.data_root, output_dir=root / "out",
        model_name="TinyRandom", generated_synthetic_dir=gen / "Synthetic",
        generated_real_dir=gen / "Real", clip="Barnyard_001", step1=settings,
        recorded_flags={})
    with tiny_checkpoints.pins_cleared():
        card = runner.run(config)
    sample = json.loads((root / "out" / "per_sample_scores.jsonl").read_text().splitlines()[0])
    return card, sample, inputs, gen, settings, ckpt


def _metric(card, metric_id):
    return next(m for m in card.metrics if m.id == metric_id)


def test_motion_smoothness_equals_raft_warp_error_computed_directly(run):
    card, sample, _, gen, _, ckpt = run
    motion = _metric(card, "MotionSmoothness")
    assert motion.available and motion.backend.name == "raft-large" and motion.backend.official
    frames = frames_lib.load_frames(gen / "Synthetic" / "Barnyard" / "Barnyard_001" / "frames",
                                    max_side=640)
    h, r = int(sample["diagnostics"]["h_start"]), int(sample["diagnostics"]["r_start"])
    model = raft.load_raft(ckpt / "raft_large" / raft.RAFT_LARGE.filename, "cpu")
    direct = formulas.temporal_score(frames, h, r, 4, raft.RaftFlow(model, "cpu"))
    assert sample["metrics"]["raw:TemporalScore"] == direct.temporal_score
    pct = float(np.clip(round(direct.temporal_score * 100, 1), 0, 100))
    assert motion.value == pytest.approx(pct, abs=1e-9)


def test_lpips_equals_the_metric_called_directly(run):
    card, sample, inputs, gen, _, ckpt = run
    assert _metric(card, "GT_ALL_LPIPS").available
    frames = frames_lib.load_frames(gen / "Synthetic" / "Barnyard" / "Barnyard_001" / "frames",
                                    max_side=640)
    gt_dir = inputs.data_root / "Synthetic_processed" / "Barnyard" / "Barnyard_001" / "RGB1"
    gt_total = int(sample["diagnostics"]["gt_frames"])
    n = len(frames)
    gt_idx = sampling.resample_gt_indices(0, gt_total - 1, n)
    gt_files = frames_lib.list_frame_files(gt_dir)
    gts = [frames_lib.read_image(gt_files[i]) for i in gt_idx]
    model = lpips.load_lpips_alex(ckpt / "alexnet" / lpips.ALEXNET_SPEC.filename,
                                  ckpt / "lpips_alex_v0.1" / "alex.pth", "cpu")
    direct = lpips.lpips_distance_pairs(model, gts, list(frames))
    assert sample["metrics"]["GT_ALL_LPIPS"] == pytest.approx(round(float(np.mean(direct)), 4),
                                                              abs=1e-4 + 1e-12)


def test_checkpoints_are_recorded_with_their_digests(run):
    card, *_ = run
    refs = {(c.metric_id, c.path.rsplit("/", 1)[-1]): c for c in card.provenance.checkpoints}
    assert ("MotionSmoothness", raft.RAFT_LARGE.filename) in refs
    assert ("GT_ALL_LPIPS", "alex.pth") in refs
    assert all(len(c.sha256) == 64 for c in refs.values())


def test_the_real_pins_refuse_random_weights(run):
    *_, settings, _ = run
    card_settings = dataclasses.replace(settings)
    prepared = prepare.prepare(card_settings, ["MotionSmoothness", "GT_ALL_LPIPS"])
    assert "expected sha256 ff5fadd5" in prepared.unavailable["MotionSmoothness"][0]
    assert "expected sha256 7be5be79" in prepared.unavailable["GT_ALL_LPIPS"][0]


def _frames_and_keyframes(run):
    _, sample, _, gen, _, _ = run
    frames = frames_lib.load_frames(gen / "Synthetic" / "Barnyard" / "Barnyard_001" / "frames",
                                    max_side=640)
    return frames, int(sample["diagnostics"]["h_start"]), int(sample["diagnostics"]["r_start"])


def test_object_identity_and_geo3d_equal_the_metrics_called_directly(run):
    card, sample, _, _, _, ckpt = run
    frames, h, r = _frames_and_keyframes(run)
    dino = backbone.load_dinov2(ckpt / backbone.DINOV2_BASE.name, "cpu")
    mean, minimum = model_formulas.obj_identity(frames, r, dino, "cpu")
    assert (sample["metrics"]["raw:ObjIdentityMean"], sample["metrics"]["raw:ObjIdentityMin"]) == (
        mean, minimum)
    model, processor = depth_anything.load_depth_anything(
        ckpt / depth_anything.DEPTH_ANYTHING_V2_SMALL.name, "cpu")
    geo_mean, geo_min = model_formulas.geo_consistency(frames, h, r, model, processor, "cpu")
    assert sample["metrics"]["raw:GeoConsistencyMean"] == pytest.approx(geo_mean, abs=1e-4)
    assert sample["metrics"]["raw:GeoConsistencyMin"] == pytest.approx(geo_min, abs=1e-4)
    for metric, raw_mean, raw_min in (("ObjIdentityConsistency", mean, minimum),
                                      ("Geo3DConsistency", geo_mean, geo_min)):
        result = _metric(card, metric)
        assert result.available and result.backend.official, metric
        pct = lambda x: float(np.clip(np.round(x * 100, 1), 0, 100))  # noqa: E731
        assert sample["metrics"][metric] == pytest.approx(
            round(0.7 * pct(raw_mean) + 0.3 * pct(raw_min), 2), abs=0.011)


def test_aesthetic_and_revisit_equal_the_metrics_called_directly(run):
    card, sample, inputs, _, _, ckpt = run
    frames, _, r = _frames_and_keyframes(run)
    model = aesthetic.load_aesthetic(ckpt / aesthetic.CLIP_VIT_L14.name,
                                     ckpt / aesthetic.AESTHETIC_HEAD.name
                                     / aesthetic.AESTHETIC_HEAD.filename, "cpu")
    direct = round(float(np.mean(aesthetic.strided_frame_scores(frames, 4, model, "cpu").scores)),
                   4)
    assert sample["metrics"]["raw:AestheticScore"] == pytest.approx(direct, abs=1e-4)
    assert sample["metrics"]["AestheticScore"] == sample["metrics"]["raw:AestheticScore"]

    encoder = vision.load_clip_vision(ckpt / frame_similarity.CLIP_VIT_B32.name, "cpu")
    gt_dir = inputs.data_root / "Synthetic_processed" / "Barnyard" / "Barnyard_001" / "RGB1"
    files = frames_lib.list_frame_files(gt_dir)
    value = gt_revisit.gt_revisit_similarity(
        frames, lambda idx: [frames_lib.read_image(files[i]) for i in idx], r,
        _r_gt(inputs),
        int(sample["diagnostics"]["gt_frames"]), encoder, "cpu")
    assert sample["metrics"]["raw:GTRevisitSim"] == pytest.approx(value, abs=1e-4)
    assert _metric(card, "GTRevisitSim").available


def test_visual_quality_equals_the_halves_called_directly(run):
    card, sample, _, _, _, ckpt = run
    frames, _, _ = _frames_and_keyframes(run)
    iqa = clipiqa.load_clipiqa(
        ckpt / clipiqa.CLIP_RN50.name / clipiqa.CLIP_RN50.filename,
        ckpt / clipiqa.CLIPIQA_PLUS_PROMPTS.name / clipiqa.CLIPIQA_PLUS_PROMPTS.filename, "cpu")
    sampled = clipiqa.strided_frame_scores(frames, 4, iqa)
    score = round(float(np.mean(np.clip(sampled.scores, 0.0, 1.0))), 4)
    assert len(sampled.indices) > 1 and sample["metrics"]["raw:ImageQuality"] == score
    pct = lambda x: float(np.clip(np.round(x * 100, 1), 0, 100))  # noqa: E731
    expected = round((pct(sample["metrics"]["raw:AestheticScore"] / 10) + pct(score)) / 2, 2)
    assert sample["metrics"]["VisualQuality"] == pytest.approx(expected, abs=1e-9)
    visual, aes = _metric(card, "VisualQuality"), _metric(card, "AestheticScore")
    assert visual.available and visual.value == pytest.approx(expected, abs=1e-9)
    assert visual.backend.name == "laion-aesthetic-clip-vit-l14 + clipiqa+-rn50"
    assert visual.backend.official and "RN50.pt" in visual.backend.checkpoint_id
    assert aes.available and aes.backend.name == "laion-aesthetic-clip-vit-l14"
    refs = [c.path.rsplit("/", 1)[-1] for c in card.provenance.checkpoints
            if c.metric_id == "VisualQuality"]
    assert refs == ["clip_vit_large_patch14", "sac+logos+ava1-l14-linearMSE.pth", "RN50.pt",
                    "CLIP-IQA+_learned_prompts-603f3273.pth"]
    import pandas as pd  # pylint: disable=import-outside-toplevel
    row = pd.read_csv(card.output_files["eval_csv"]).iloc[0]
    assert (row["ImageQuality"], row["ImageQuality_pct"]) == (score, pct(score))
    assert row["VisualQuality"] == expected


def test_visual_quality_refused_pin_leaves_aesthetic_score(run):
    *_, settings, _ = run
    prepared = prepare.prepare(settings, ["VisualQuality", "AestheticScore"])
    reason = prepared.unavailable["VisualQuality"][0]
    assert "CLIP-IQA+" in reason and "expected sha256 afeb0e10" in reason
    assert [f.metric_ids for f in prepared.families] == [("AestheticScore",)]
    alone = prepare.prepare(settings, ["AestheticScore"])
    assert [f.name for f in alone.families] == ["aesthetic"] and not alone.unavailable


def _r_gt(inputs):
    import pandas as pd  # pylint: disable=import-outside-toplevel
    sheet = pd.read_excel(inputs.data_root / "Synthetic_processed" / "Synthetic_ExitReenter.xlsx")
    return int(sheet.set_index("video_folder").loc["Barnyard_001", "re-enter"])


def test_image_reward_equals_the_metric_called_directly(run):
    card, sample, inputs, _, _, ckpt = run
    frames, _, _ = _frames_and_keyframes(run)
    import pandas as pd  # pylint: disable=import-outside-toplevel
    sheet = pd.read_excel(inputs.data_root / "Synthetic_processed" / "Synthetic_ExitReenter.xlsx")
    prompt = str(sheet.set_index("video_folder").loc["Barnyard_001", "prompt"]).strip()
    direct = tiny_checkpoints.image_reward_score(frames, prompt, tiny_checkpoints.load_image_reward(ckpt))
    assert sample["metrics"]["raw:ImageRewardScore"] == pytest.approx(direct, abs=1e-4)
    pct = float(np.round(np.clip(sample["metrics"]["raw:ImageRewardScore"] * 100, 0, 100), 1))
    assert sample["metrics"]["ImageRewardScore"] == pct
    result = _metric(card, "ImageRewardScore")
    assert result.available and result.backend.official
    assert "phase sheet's prompt column" in result.backend.note
    row = pd.read_csv(card.output_files["eval_csv"]).iloc[0]
    assert row["ImageRewardScore_pct"] == pct and row["ImageRewardScore"] == round(pct, 2)
    refs = [c for c in card.provenance.checkpoints if c.metric_id == "ImageRewardScore"]
    assert sorted(c.path.rsplit("/", 1)[-1] for c in refs) == [
        "ImageReward.pt", "med_config.json", "vocab.txt"]


def _real_run(run, tmp_path, prompt_src_real):
    _, _, inputs, gen, settings, _ = run
    config = runner.MemobenchConfig(
        common=CommonConfig(offline=True, metrics=("ImageRewardScore",)),
        data_root=inputs.data_root, output_dir=tmp_path / "out", model_name="TinyRandom",
        mode="real", generated_real_dir=gen / "Real", clip="001",
        step1=dataclasses.replace(settings, prompt_src_real=str(prompt_src_real)),
        recorded_flags={})
    with tiny_checkpoints.pins_cleared():  # ImageReward's files are sha256-pinned
        card = runner.run(config)
    sample = json.loads((tmp_path / "out" / "per_sample_scores.jsonl").read_text().splitlines()[0])
    return card, sample


def test_real_metadata_csv_gives_real_clips_no_image_reward(run, tmp_path):
    # MemoBench's own real_metadata.csv names its id column video_id, which run_eval.py's
    # load_prompt_map_real does not read: real clips get no ImageReward from it.
    metadata = run[2].data_root / "sam3_metadata" / "real_metadata.csv"
    card, sample = _real_run(run, tmp_path, metadata)
    result = _metric(card, "ImageRewardScore")
    assert not result.available and "video_id" in result.unavailable_reason
    assert "raw:ImageRewardScore" not in sample["metrics"]
    import pandas as pd  # pylint: disable=import-outside-toplevel
    assert pd.isna(pd.read_csv(card.output_files["eval_csv"]).iloc[0]["ImageRewardScore"])


def test_real_prompt_csv_with_id_column_scores_real_clips(run, tmp_path):
    prompts_csv = tmp_path / "prompts_real.csv"
    prompts_csv.write_text('id,prompt\n1,"a clear glass of water on a table"\n')
    card, sample = _real_run(run, tmp_path, prompts_csv)
    frames = frames_lib.load_frames(run[3] / "Real" / "001" / "frames", max_side=640)
    direct = tiny_checkpoints.image_reward_score(frames, "a clear glass of water on a table",
                                 tiny_checkpoints.load_image_reward(run[5]))
    assert sample["metrics"]["raw:ImageRewardScore"] == pytest.approx(direct, abs=1e-4)
    assert _metric(card, "ImageRewardScore").available


def test_every_step1_family_keeps_the_engine_contract(run):
    """benchmarks/common/family_contract over every MemoBench Step 1 family that can be
    built here (MapAnything's package is not installable: its adapter has its own test)."""
    _, _, inputs, gen, settings, _ = run
    with tiny_checkpoints.pins_cleared():
        step1_ids = list(metric_specs.TABLE.of_step(metric_specs.STEP1))
        classical = dataclasses.replace(settings, camera_backend="classical")
        main = prepare.prepare(classical, step1_ids)
        alternatives = (prepare.prepare(dataclasses.replace(classical, flow_backend="dis"),
                                        ["MotionSmoothness"]).families
                        + prepare.prepare(settings, ["AestheticScore"]).families)
    assert not main.unavailable, main.unavailable
    contract.owned_metrics(main.families)  # one owner per metric
    syn_rows, real_rows, _ = dataset.load_sheets(inputs.data_root, None, None)
    rows = {dataset.SYNTHETIC: syn_rows, dataset.REAL: real_rows}
    clip = next(c for c in generated.discover_synthetic(gen / "Synthetic")
                if c.clip_id == "Barnyard_001")
    loaded = clip_eval.load(clip, rows, inputs.data_root, 640)
    ctx = clip_eval.context(clip, loaded, 4)
    for families in (main.families, alternatives):
        contract.check_all(families, ctx, metric_specs.TABLE, runner.BENCHMARK.raw_columns,
                           runner.BENCHMARK.family_aliases)
        prepared = family_api.Prepared(families, {})
        owned = [m for f in families for m in f.metric_ids]
        sample = clip_eval.evaluate(clip, loaded, 4, prepared, owned)
        for metric in owned:  # a value, or the reason it has none
            assert metric in sample.metrics or sample.unavailable.get(metric), metric
