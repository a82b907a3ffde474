"""MiraBench's viclip family (families.prepare) on a tiny random ViCLIP and a tiny BPE file
in the official formats, found through --checkpoint_dir: the five alignments equal
text_video_alignment.compute() with the model loaded independently, on rows read by
layout.rows; a NaN caption leaves its metric out as upstream does; a missing checkpoint is
an unavailable reason with its fetch command. (Apart from model_families_test, whose RAFT
and AMT cases take most of a minute.)"""

import types

import numpy as np
import pytest

from benchmarks.common.flags import CommonConfig
from benchmarks.mirabench import checkpoints as ckpts
from benchmarks.mirabench import families
from benchmarks.mirabench import layout
from benchmarks.mirabench import sample
from benchmarks.mirabench.model_metrics import text_video_alignment
from metrics.viclip import loader
from metrics.viclip import tiny_checkpoint
from metrics.viclip import tokenizer as viclip_tokenizer


def _frames(count, shape, seed):
    return np.random.default_rng(seed).integers(0, 256, (count,) + shape, dtype=np.uint8)


VICLIP_IDS = text_video_alignment.METRIC_IDS


@pytest.fixture(scope="module")
def viclip_dir(tmp_path_factory):
    root = tmp_path_factory.mktemp("viclip_ckpt")
    for spec in ckpts.TEXT_VIDEO_ALIGNMENT:
        (root / spec.name).mkdir()
    tiny_checkpoint.write_checkpoint(root / ckpts.VICLIP.name / ckpts.VICLIP.filename, seed=6)
    tiny_checkpoint.write_bpe(root / ckpts.CLIP_BPE.name / ckpts.CLIP_BPE.filename)
    return root


def _viclip_config(root):
    common = CommonConfig(device="cpu", checkpoint_dir=str(root), offline=True)
    return types.SimpleNamespace(common=common,
                                 architectures={"viclip": tiny_checkpoint.TINY})


def _viclip_rows(tmp_path, columns, cells):
    """layout.rows of a one-row meta CSV with `columns` (video_idx first) and `cells`."""
    meta = tmp_path / "meta.csv"
    meta.write_text(",".join(columns) + "\n" + ",".join(cells) + "\n")
    return layout.rows(meta, None)


def test_the_viclip_family_scores_each_caption_on_one_video(viclip_dir, tmp_path):
    prepared = families.prepare(_viclip_config(viclip_dir), set(VICLIP_IDS))
    assert not prepared.unavailable and [f.name for f in prepared.families] == ["viclip"]
    weights = viclip_dir / ckpts.VICLIP.name / ckpts.VICLIP.filename
    bpe = viclip_dir / ckpts.CLIP_BPE.name / ckpts.CLIP_BPE.filename
    assert {(r.metric_id, r.path) for r in prepared.checkpoints()} == {
        ("camera_alignment", str(weights)), ("camera_alignment", str(bpe))}
    parity = prepared.backend_of("style_alignment").parity
    assert parity.verified and "viclip_internvid_10m_flt" in parity.evidence
    rgb = _frames(11, (30, 44, 3), seed=2)
    scorer = text_video_alignment.ViClipScorer(
        loader.load_viclip(weights, "cpu", tiny_checkpoint.TINY),
        viclip_tokenizer.load_tokenizer(str(bpe)))
    want = text_video_alignment.compute(rgb, {
        "camera_alignment": "the camera", "main_object_alignment": "a cat",
        "background_alignment": "the sky", "style_alignment": "dog cat",
        "overall_consistency": "a dog"}, scorer)
    # No dense_caption column: overall_consistency reads short_caption.
    (row,) = _viclip_rows(tmp_path, ["video_idx", "short_caption", "main_object_caption",
                                     "background_caption", "style_caption", "camera_caption"],
                          ["0", "a dog", "a cat", "the sky", "dog cat", "the camera"])
    ctx = sample.VideoContext(sample_id="0", frames=np.ascontiguousarray(rgb[..., ::-1]), row=row)
    got = prepared.families[0].compute(ctx)
    assert set(got.columns) == set(VICLIP_IDS) and not got.unavailable
    for metric_id in VICLIP_IDS:
        assert got.columns[metric_id] == pytest.approx(want[metric_id], abs=1e-6), metric_id
        assert -1.0 <= got.columns[metric_id] <= 1.0
    assert len(set(round(v, 6) for v in got.columns.values())) == 5


def test_a_nan_caption_leaves_its_metric_out_as_upstream(viclip_dir, tmp_path):
    prepared = families.prepare(_viclip_config(viclip_dir), set(VICLIP_IDS))
    (row,) = _viclip_rows(tmp_path, ["video_idx", "short_caption", "dense_caption",
                                     "main_object_caption", "background_caption",
                                     "style_caption", "camera_caption"],
                          ["0", "a dog", "", "a cat", "the sky", "dog cat", ""])
    ctx = sample.VideoContext(sample_id="0", frames=_frames(9, (20, 20, 3), seed=3), row=row)
    got = prepared.families[0].compute(ctx)
    assert set(got.columns) == {"main_object_alignment", "background_alignment",
                                "style_alignment"}
    # A NaN dense_caption is not None upstream: scored, raises, None; no short fallback.
    assert "no fallback to short_caption" in got.unavailable["overall_consistency"]
    # camera_caption NaN: no reason here, sample.score records caption_problem.
    assert "camera_alignment" not in got.unavailable
    assert "camera_caption is empty (NaN)" in sample.caption_problem(row, "camera_alignment")
    # Through sample.score: three values, two reasons, each naming the NaN cell.
    scored = sample.score(row, sample.Loaded(ctx.frames, "digest", ()), prepared.families,
                          VICLIP_IDS)
    assert sorted(scored.metrics) == sorted(got.columns)
    assert sorted(scored.unavailable) == ["camera_alignment", "overall_consistency"]
    assert "camera_caption is empty (NaN)" in scored.unavailable["camera_alignment"]
    assert "dense_caption is empty (NaN)" in scored.unavailable["overall_consistency"]


def test_viclip_without_its_checkpoint_is_unavailable_with_the_fetch_command(tmp_path):
    empty = families.prepare(_viclip_config(tmp_path), set(VICLIP_IDS))
    assert not empty.families
    reason, backend = empty.unavailable["overall_consistency"]
    assert ckpts.VICLIP.fetch_command(str(tmp_path)) in reason and backend.official
