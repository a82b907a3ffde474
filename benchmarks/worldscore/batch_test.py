"""--sample_batch in WorldScore, on tiny random checkpoints: subjective_quality's models
(CLIP-IQA+ and the LAION aesthetic predictor) and content_alignment's CLIP image tower,
each image through the network alone in the official code, score the images of several
instances in one call. Every instance keeps the value it has alone (to 1e-5), a broken
instance keeps its error, and the calls drop from one per image to one per model."""

import dataclasses

import pytest

from benchmarks.common import batch_parity
from benchmarks.common.flags import CommonConfig
from benchmarks.worldscore import runner
from metrics.clip import aesthetic
from metrics.clip import clip_score
from metrics.clip import clipiqa
from metrics.clip import tiny_clip
from metrics.clip import tiny_clip_score
from metrics.clip import tiny_clipiqa
from tools.fixtures import worldscore_sample
from tools.fixtures import worldscore_tree

BAD = "static/photorealistic/indoor/bath/bad"
K02 = "static/photorealistic/indoor/bath/k02"
STATIC = ("static/photorealistic/indoor/kitchen/k01", "static/stylized/outdoor/forest/f01", K02)
METRICS = ("subjective_quality", "content_alignment")


@pytest.fixture(scope="module")
def tree(tmp_path_factory):
    """The bundled sample, one more static instance (move_left), and one with a frame
    that is not an image."""
    root = tmp_path_factory.mktemp("ws_batch")
    sample = worldscore_sample.write_sample(root / "sample")
    bad = worldscore_tree.static_entry("photorealistic", "indoor", "bath", "bad")
    static, dynamic = worldscore_sample.entries()
    k02 = worldscore_tree.static_entry("photorealistic", "indoor", "bath", "k02")
    worldscore_tree.write_dataset(sample["data_root"], static + [bad, k02], dynamic)
    worldscore_sample.write_instance(sample["generated_root"], k02, 2, 7)
    path = worldscore_sample.write_instance(sample["generated_root"], bad, 1, 0)
    (path / "frames" / "000.png").write_bytes(b"not a png")
    ckpt = root / "ckpt"
    tiny_clipiqa.write_rn50(ckpt / clipiqa.CLIP_RN50.name / clipiqa.CLIP_RN50.filename, seed=4)
    tiny_clipiqa.write_prompts(ckpt / clipiqa.CLIPIQA_PLUS_PROMPTS.name
                               / clipiqa.CLIPIQA_PLUS_PROMPTS.filename, seed=5)
    tiny_clip.write_vision_snapshot(ckpt / aesthetic.CLIP_VIT_L14.name, projection_dim=768)
    tiny_clip.write_head(ckpt / aesthetic.AESTHETIC_HEAD.name
                             / aesthetic.AESTHETIC_HEAD.filename)
    tiny_clip_score.write_snapshot(ckpt / clip_score.CLIP_VIT_B16.name)
    return sample, ckpt


def _run(tree, out, sample_batch, monkeypatch):
    sample, ckpt = tree
    monkeypatch.setattr(clipiqa, "CLIP_RN50", dataclasses.replace(clipiqa.CLIP_RN50, sha256=""))
    config = runner.WorldScoreConfig(
        common=CommonConfig(device="cpu", offline=True, checkpoint_dir=str(ckpt),
                            metrics=METRICS, sample_batch=sample_batch),
        generated_root=sample["generated_root"], data_root=sample["data_root"],
        output_dir=out, model_name="fixture")
    runner.run(config)
    return batch_parity.rows(out)


def test_anchor_images_share_the_calls_and_keep_their_values(tree, tmp_path, monkeypatch):
    calls = batch_parity.count_calls(monkeypatch, (
        ("clipiqa", clipiqa, "frame_scores"), ("aesthetic", aesthetic, "tensor_scores"),
        ("clip_image", clip_score, "image_features")))
    alone = _run(tree, tmp_path / "alone", 1, monkeypatch)
    calls_alone = dict(calls)
    calls.clear()
    batched = _run(tree, tmp_path / "batched", 4, monkeypatch)
    assert "000.png" in alone[BAD]["error"] and "000.png" in batched[BAD]["error"]
    for key in STATIC:
        assert {"subjective_quality.clip_iqa+", "subjective_quality.clip_aesthetic"} <= set(
            alone[key]["metrics"]), key
    assert "content_alignment.clip_score" in alone[STATIC[0]]["metrics"]
    assert "content_alignment.clip_score" in alone[K02]["metrics"]
    batch_parity.assert_rows_match(alone, batched)
    # Alone, as the official code: one call per anchor image (k01's 3, f01's 2, k02's 2;
    # clip_score skips f01, an intra layout). Batched: one call per model.
    assert calls_alone == {"clipiqa": 7, "aesthetic": 7, "clip_image": 5}
    assert calls == {"clipiqa": 1, "aesthetic": 1, "clip_image": 1}


if __name__ == "__main__":
    raise SystemExit(pytest.main([__file__, "-q"]))
