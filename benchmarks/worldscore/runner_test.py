"""The WorldScore runner end to end: a synthetic static + dynamic tree with broken
instances, tiny random models through the real loaders, resume, staging, the binary."""

import dataclasses
import json
import pathlib
import subprocess

import pytest
import torch
from PIL import Image
from torchvision import transforms

from benchmarks.common.flags import CommonConfig
from benchmarks.worldscore import normalize
from benchmarks.worldscore import aspects
from benchmarks.worldscore import families
from benchmarks.worldscore import metric_specs
from benchmarks.worldscore import runner
from benchmarks.worldscore import staging
from benchmarks.worldscore import style_consistency
from metrics.clip import aesthetic
from metrics.clip import clip_score
from metrics.clip import clipiqa
from metrics.clip import tiny_clip
from metrics.clip import tiny_clip_score
from metrics.clip import tiny_clipiqa
from metrics.style import gram
from metrics.style import tiny_vgg
from proto import scorecard_pb2
from tools.fixtures import worldscore_sample
from tools.fixtures import worldscore_tree

K01 = "static/photorealistic/indoor/kitchen/k01"
F01 = "static/stylized/outdoor/forest/f01"
BALL = "dynamic/photorealistic/rigid/ball01"


def _checkpoints(ckpt: pathlib.Path) -> pathlib.Path:
    tiny_vgg.write_vgg19(ckpt / style_consistency.VGG19.name / style_consistency.VGG19.filename)
    tiny_clipiqa.write_rn50(ckpt / clipiqa.CLIP_RN50.name / clipiqa.CLIP_RN50.filename, seed=4)
    tiny_clipiqa.write_prompts(ckpt / clipiqa.CLIPIQA_PLUS_PROMPTS.name
                               / clipiqa.CLIPIQA_PLUS_PROMPTS.filename, seed=5)
    tiny_clip.write_vision_snapshot(ckpt / aesthetic.CLIP_VIT_L14.name, projection_dim=768)
    tiny_clip.write_head(ckpt / aesthetic.AESTHETIC_HEAD.name / aesthetic.AESTHETIC_HEAD.filename)
    tiny_clip_score.write_snapshot(ckpt / clip_score.CLIP_VIT_B16.name)
    return ckpt


def _broken(root: pathlib.Path, data_root: pathlib.Path, out: pathlib.Path):
    """Adds broken instances to the dataset and the tree (names -> what is wrong)."""
    new = {"few": worldscore_tree.static_entry("photorealistic", "indoor", "bath", "few"),
           "extra": worldscore_tree.static_entry("photorealistic", "indoor", "bath", "extra"),
           "cams": worldscore_tree.static_entry("photorealistic", "indoor", "bath", "cams"),
           "absent": worldscore_tree.static_entry("photorealistic", "indoor", "bath", "absent")}
    static, dynamic = worldscore_sample.entries()
    worldscore_tree.write_dataset(data_root, static + list(new.values()), dynamic)
    worldscore_sample.write_instance(out, new["few"], 1, 0, frame_count=4)
    worldscore_sample.write_instance(out, new["extra"], 1, 0, frame_count=6)
    worldscore_tree.write_instance(out, new["cams"], worldscore_sample.FRAMES_PER_SCENE, cameras=3)
    stray = worldscore_tree.static_entry("photorealistic", "indoor", "bath", "stray")
    worldscore_sample.write_instance(out, stray, 1, 0)


def _config(tree, out, ckpt, **kw):
    common = CommonConfig(device="cpu", offline=True, checkpoint_dir=str(ckpt),
                          resume=kw.pop("resume", False))
    return runner.WorldScoreConfig(
        common=common, generated_root=tree["generated_root"], data_root=tree["data_root"],
        output_dir=out, model_name="fixture", gram_resize="128",
        architectures={"vgg19_widths": tiny_vgg.TINY_WIDTHS}, **kw)


@pytest.fixture(scope="module")
def pins_off():
    mp = pytest.MonkeyPatch()
    mp.setattr(style_consistency, "VGG19", dataclasses.replace(style_consistency.VGG19, sha256=""))
    mp.setattr(clipiqa, "CLIP_RN50", dataclasses.replace(clipiqa.CLIP_RN50, sha256=""))
    yield
    mp.undo()


@pytest.fixture(scope="module")
def run(tmp_path_factory, pins_off):
    del pins_off
    root = tmp_path_factory.mktemp("ws")
    tree = worldscore_sample.write_sample(root / "sample")
    _broken(root, tree["data_root"], tree["generated_root"])
    ckpt = _checkpoints(root / "ckpt")
    card = runner.run(_config(tree, root / "out", ckpt))
    return tree, root, ckpt, card


def _rows(out):
    rows = [json.loads(line) for line in (out / "per_sample_scores.jsonl").read_text().splitlines()]
    return {r["sample_id"]: r for r in rows}


def test_error_rows_name_the_file_and_the_run_goes_on(run):
    tree, root, _, card = run
    rows = _rows(root / "out")
    gen = tree["generated_root"]
    assert f"{gen}/static/photorealistic/indoor/bath/few/frames" in rows[
        "static/photorealistic/indoor/bath/few"]["error"]
    assert "exactly 5 frames" in rows["static/photorealistic/indoor/bath/extra"]["error"]
    assert "camera_data.json: expected 5 cameras_interp" in rows[
        "static/photorealistic/indoor/bath/cams"]["error"]
    assert "no such folder" in rows["static/photorealistic/indoor/bath/absent"]["error"]
    assert "no entry for" in rows["static/photorealistic/indoor/bath/stray"]["error"]
    assert not rows[K01].get("error") and not rows[BALL].get("error")
    assert card.coverage.failed == 5 and card.coverage.evaluated == 3
    assert list(card.coverage.missing_sample_ids) == ["static/photorealistic/indoor/bath/absent"]
    manifest = json.loads((root / "out" / "artifact_manifest.json").read_text())
    arts = {a["sample_id"]: a for a in manifest["artifacts"]}
    assert len(arts) == 7 and arts[K01]["num_frames"] == 9 and arts[K01]["width"] == 64
    assert "exactly 5 frames" in arts["static/photorealistic/indoor/bath/extra"]["error"]


def _gram_reference(inst: pathlib.Path, anchors, ckpt):
    features = gram.load_features(
        ckpt / style_consistency.VGG19.name / style_consistency.VGG19.filename, "cpu",
        tiny_vgg.TINY_WIDTHS)
    load = transforms.Compose([transforms.Resize(128), transforms.ToTensor()])
    ref = load(Image.open(inst / "input_image.png")).unsqueeze(0)
    values = [gram.style_distance(features, ref, load(Image.open(
        inst / "frames" / f"{i:03d}.png").convert("RGB")).unsqueeze(0)) for i in anchors]
    return sum(values) / len(values)


def test_evaluation_json_official_shape_and_values(run):
    tree, root, ckpt, _ = run
    data = json.loads((root / "out" / runner.EVALUATIONS_DIR / K01 / "evaluation.json").read_text())
    assert list(data) == ["content_alignment", "style_consistency", "subjective_quality"]
    assert list(data["subjective_quality"]) == ["clip_iqa+", "clip_aesthetic"]
    style = data["style_consistency"]["gram_matrix"]
    inst = tree["generated_root"] / K01
    anchors = json.loads((inst / "image_data.json").read_text())["anchor_frame_idx"][1:]
    assert anchors == [4, 8]
    assert style["score"] == pytest.approx(_gram_reference(inst, anchors, ckpt), rel=1e-5)
    assert style["score_normalized"] == normalize.normalize(
        aspects.METRICS[("style_consistency", "gram_matrix")], style["score"])
    assert not (root / "out" / runner.EVALUATIONS_DIR / BALL / "evaluation.json").exists()


def test_content_alignment_uses_raw_prompts_on_anchor_frames_and_skips_intra(run):
    tree, root, ckpt, _ = run
    inst = tree["generated_root"] / K01
    image_data = json.loads((inst / "image_data.json").read_text())
    model = clip_score.load_clip_score(ckpt / clip_score.CLIP_VIT_B16.name, "cpu")
    squash = transforms.Compose([transforms.Resize((512, 512)), transforms.ToTensor()])
    expected = []
    for i, frame in enumerate(image_data["anchor_frame_idx"]):
        image = Image.open(inst / "frames" / f"{frame:03d}.png").convert("RGB")
        pixels = (squash(image) * 255).to(torch.uint8)
        expected.append(clip_score.clip_score(model, pixels, image_data["prompt_list"][i]))
    out = root / "out" / runner.EVALUATIONS_DIR
    got = json.loads((out / K01 / "evaluation.json").read_text())["content_alignment"]
    assert got["clip_score"]["score"] == pytest.approx(sum(expected) / len(expected), abs=1e-5)
    intra = json.loads((out / F01 / "evaluation.json").read_text())
    assert "content_alignment" not in intra and "style_consistency" in intra
    row = _rows(root / "out")[F01]
    assert row["unavailable"]["content_alignment.clip_score"].startswith(
        "as in the official code: skipped for the intra layout push_in")


def test_scorecard_aspects_headlines_and_unavailable(run):
    _, root, _, card = run
    by_id = {m.id: m for m in card.metrics}
    assert by_id["style_consistency"].available
    assert by_id["subjective_quality"].available
    assert not by_id["WorldScore-Static"].available
    assert "droid_slam/droid.pth" in by_id["camera_control.camera_error"].unavailable_reason
    assert "MemorySlices/Tartan-C-T-TSKH-spring540x960-M" in by_id[
        "motion_magnitude.optical_flow"].unavailable_reason
    aes = by_id["subjective_quality.clip_aesthetic"].backend
    assert aes.official and aes.name == "laion-aes-pyiqa-tensor-preprocess"
    gram_backend = by_id["style_consistency.gram_matrix"].backend
    assert gram_backend.name == "vgg19-gram-resize128" and not gram_backend.official
    assert gram_backend.parity.verified  # tools/calibration gram_parity rows
    assert "worldscore_json" not in card.output_files
    assert not (root / "out" / "worldscore.json").exists()
    reasons = {b.reason for b in card.verification.blocking}
    assert scorecard_pb2.NON_OFFICIAL_BACKEND in reasons and scorecard_pb2.SAMPLE_ERRORS in reasons
    assert not card.verification.leaderboard_eligible


def test_resume_reuses_every_instance(run):
    tree, root, ckpt, card = run
    again = runner.run(_config(tree, root / "out", ckpt, resume=True))
    assert any("resumed: 3 instances" in n for n in again.notes)  # failed ones are retried
    first = {m.id: m.value for m in card.metrics}
    assert {m.id: m.value for m in again.metrics} == first


def test_staged_dynamic_clip_is_marked_not_a_result(run, tmp_path):
    tree, _, ckpt, _ = run
    staged = staging.stage(tree["generated_root"] / BALL / "frames", tree["data_root"],
                           tmp_path / "staged", 3)
    assert sorted(p.name for p in (staged.generated_root / BALL / "frames").iterdir()) == [
        "000.png", "001.png", "002.png"]
    config = dataclasses.replace(_config(tree, tmp_path / "o", ckpt), movements=("dynamic",),
                                 generated_root=staged.generated_root, staged=staged.description,
                                 only_keys=staged.keys)
    card = runner.run(config)
    assert card.coverage.evaluated == 1
    assert any(b.reason == scorecard_pb2.NOT_OFFICIAL_DATA and "NOT a benchmark result"
               in b.detail for b in card.verification.blocking)


def _binary(out, flag):
    return subprocess.run(["benchmarks/worldscore/run", f"--output_dir={out}", flag],
                          capture_output=True, text=True, timeout=120, check=False)


def test_binary_runs_the_bundled_sample(tmp_path):
    done = _binary(tmp_path, "--metrics=camera_error")
    assert done.returncode == 0, done.stderr[-2000:]
    assert "bundled synthetic sample" in done.stdout
    card = json.loads((tmp_path / "scorecard.json").read_text())
    assert card["coverage"]["evaluated"] == 3


def test_binary_refuses_max_side(tmp_path):
    done = _binary(tmp_path, "--max_side=512")
    assert done.returncode == 2, done.stderr[-2000:]
    assert "--max_side: expected no value for WorldScore" in done.stderr
    assert not (tmp_path / "scorecard.json").exists()


def test_a_flow_backend_plugs_into_the_flow_metrics(run, tmp_path):
    tree, _, ckpt, _ = run
    seen = []

    def flow(a, b):  # a uniform 3-4-5 flow: magnitude 5 everywhere, forward-backward 0
        seen.append(a.shape)
        out = torch.zeros(a.shape[0], a.shape[1], 2).numpy()
        out[..., 0], out[..., 1] = 3.0, 4.0
        return out if len(seen) % 2 else -out

    backend = scorecard_pb2.Backend(name="fake-flow", official=False)
    config = dataclasses.replace(
        _config(tree, tmp_path, ckpt), flow=flow, flow_backend=backend,
        common=CommonConfig(device="cpu", offline=True, checkpoint_dir=str(ckpt),
                            metrics=("optical_flow_aepe", "optical_flow")))
    card = runner.run(config)
    by_id = {m.id: m for m in card.metrics}
    assert by_id["motion_magnitude.optical_flow"].available
    dynamic = json.loads((tmp_path / runner.EVALUATIONS_DIR / BALL / "evaluation.json").read_text())
    assert dynamic == {"motion_magnitude": {"optical_flow": {
        "score": 5.0, "score_normalized": normalize.normalize(
            aspects.METRICS[("motion_magnitude", "optical_flow")], 5.0)}}}
    assert seen[0] == (48, 64, 3)  # native-size RGB frames
    assert "photometric_consistency" in json.loads(
        (tmp_path / runner.EVALUATIONS_DIR / K01 / "evaluation.json").read_text())


def test_each_missing_checkpoint_makes_only_its_metric_unavailable(run, tmp_path):
    tree, _, ckpt, _ = run
    only_vgg = tmp_path / "ckpt"
    (only_vgg / style_consistency.VGG19.name).mkdir(parents=True)
    (only_vgg / style_consistency.VGG19.name / style_consistency.VGG19.filename).write_bytes(
        (ckpt / style_consistency.VGG19.name / style_consistency.VGG19.filename).read_bytes())
    prepared = families.prepare(_config(tree, tmp_path / "o", only_vgg),
                                metric_specs.TABLE.select(None))
    assert [f.metric_ids for f in prepared.families] == [("style_consistency.gram_matrix",)]
    why = {m: r for m, (r, _) in prepared.unavailable.items()}
    assert "RN50.pt" in why["subjective_quality.clip_iqa+"]
    assert "clip-vit-large-patch14" in why["subjective_quality.clip_aesthetic"]
    assert "clip-vit-base-patch16" in why["content_alignment.clip_score"]
    assert "groundingdino_swint_ogc.pth" in why["object_control.object_detection"]


def test_binary_stages_a_clip_and_says_it_is_not_a_result(run, tmp_path):
    tree = run[0]
    done = subprocess.run(
        ["benchmarks/worldscore/run", f"--data_root={tree['data_root']}",
         f"--stage_dynamic_source={tree['generated_root'] / BALL / 'frames'}",
         "--stage_target_frames=3", f"--output_dir={tmp_path}", "--metrics=optical_flow"],
        capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    card = json.loads((tmp_path / "scorecard.json").read_text())
    assert card["coverage"]["evaluated"] == 1
    assert any("NOT a benchmark result" in b["detail"] for b in card["verification"]["blocking"])
    staged = tmp_path / "staged" / "worldscore_output" / BALL
    assert json.loads((staged / "image_data.json").read_text())["total_frames"] == 3
