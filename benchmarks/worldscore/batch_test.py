"""--sample_batch in WorldScore, on tiny random checkpoints: subjective_quality's models
(CLIP-IQA+ and the LAION aesthetic predictor, each image through the network alone in
the official code) score the anchor images of several instances in one call. Every
instance keeps the value it has alone (to 1e-5), a broken instance keeps its error, and
the calls drop from one per anchor image to one per model."""

import dataclasses

import pytest

from benchmarks.common import batch_parity
from benchmarks.common.flags import CommonConfig
from benchmarks.worldscore import runner
from metrics.clip import aesthetic
from metrics.clip import clipiqa
from metrics.clip import random_models
from metrics.clip import tiny_clipiqa
from tools.fixtures import worldscore_sample
from tools.fixtures import worldscore_tree

BAD = "static/photorealistic/indoor/bath/bad"
STATIC = ("static/photorealistic/indoor/kitchen/k01", "static/stylized/outdoor/forest/f01")


@pytest.fixture(scope="module")
def tree(tmp_path_factory):
    """The bundled sample and a static instance with a frame that is not an image."""
    root = tmp_path_factory.mktemp("ws_batch")
    sample = worldscore_sample.write_sample(root / "sample")
    bad = worldscore_tree.static_entry("photorealistic", "indoor", "bath", "bad")
    static, dynamic = worldscore_sample.entries()
    worldscore_tree.write_dataset(sample["data_root"], static + [bad], dynamic)
    path = worldscore_sample.write_instance(sample["generated_root"], bad, 1, 0)
    (path / "frames" / "000.png").write_bytes(b"not a png")
    ckpt = root / "ckpt"
    tiny_clipiqa.write_rn50(ckpt / clipiqa.CLIP_RN50.name / clipiqa.CLIP_RN50.filename, seed=4)
    tiny_clipiqa.write_prompts(ckpt / clipiqa.CLIPIQA_PLUS_PROMPTS.name
                               / clipiqa.CLIPIQA_PLUS_PROMPTS.filename, seed=5)
    random_models.write_vision_snapshot(ckpt / aesthetic.CLIP_VIT_L14.name, projection_dim=768)
    random_models.write_head(ckpt / aesthetic.AESTHETIC_HEAD.name
                             / aesthetic.AESTHETIC_HEAD.filename)
    return sample, ckpt


def _run(tree, out, sample_batch, monkeypatch):
    sample, ckpt = tree
    monkeypatch.setattr(clipiqa, "CLIP_RN50", dataclasses.replace(clipiqa.CLIP_RN50, sha256=""))
    config = runner.WorldScoreConfig(
        common=CommonConfig(device="cpu", offline=True, checkpoint_dir=str(ckpt),
                            metrics=("subjective_quality",), sample_batch=sample_batch),
        generated_root=sample["generated_root"], data_root=sample["data_root"],
        output_dir=out, model_name="fixture")
    runner.run(config)
    return batch_parity.rows(out)


def test_anchor_images_share_the_calls_and_keep_their_values(tree, tmp_path, monkeypatch):
    calls = batch_parity.count_calls(monkeypatch, (("clipiqa", clipiqa, "frame_scores"),
                                                   ("aesthetic", aesthetic, "tensor_scores")))
    alone = _run(tree, tmp_path / "alone", 1, monkeypatch)
    calls_alone = dict(calls)
    calls.clear()
    batched = _run(tree, tmp_path / "batched", 4, monkeypatch)
    assert "000.png" in alone[BAD]["error"] and "000.png" in batched[BAD]["error"]
    for key in STATIC:
        assert {"subjective_quality.clip_iqa+", "subjective_quality.clip_aesthetic"} <= set(
            alone[key]["metrics"]), key
    batch_parity.assert_rows_match(alone, batched)
    # Alone, as the official code: one call per anchor image (k01's 3, f01's 2).
    assert calls_alone == {"clipiqa": 5, "aesthetic": 5}
    assert calls == {"clipiqa": 1, "aesthetic": 1}


if __name__ == "__main__":
    raise SystemExit(pytest.main([__file__, "-q"]))
