"""FVD/KVD through the runner: a tiny I3D (the official layout at 1/64 width) found in the
--checkpoint_dir layout; the values equal the distribution formulas on logits computed
directly; fewer than two videos in a set is unavailable and leaves both out of
average_score.csv; with all four set metrics each video is decoded once, and never again
for the set metrics on a Ray-shaped executor, on resume, or after a lost embedding."""

import collections
import json
import pathlib

import pytest
import torch

from benchmarks.common import executor as executor_lib
from benchmarks.common import outputs as outputs_lib
from benchmarks.common import pickled_executor
from benchmarks.common import sample_store
from benchmarks.common.flags import CommonConfig
from benchmarks.mirabench import checkpoints as ckpts
from benchmarks.mirabench import distribution
from benchmarks.mirabench import layout
from benchmarks.mirabench import runner
from benchmarks.mirabench import sample as sample_lib
from benchmarks.mirabench.model_metrics import fvd_logits
from metrics.i3d import inception_i3d
from tools.fixtures import mirabench_clips

DIVISOR = 64


def _tiny_i3d(root, seed):
    torch.set_num_threads(1)
    torch.manual_seed(seed)
    model = inception_i3d.InceptionI3d(400, width_divisor=DIVISOR)
    for name, buf in model.named_buffers():
        if name.endswith("running_var"):
            buf.uniform_(0.5, 1.5)
    (root / ckpts.I3D_400.name).mkdir(parents=True)
    torch.save(model.state_dict(), root / ckpts.I3D_400.name / ckpts.I3D_400.filename)
    return root


@pytest.fixture(scope="module")
def ckpt(tmp_path_factory):
    return _tiny_i3d(tmp_path_factory.mktemp("ckpt"), 5)


@pytest.fixture(scope="module")
def sets(tmp_path_factory):
    root = tmp_path_factory.mktemp("sets")
    clip = mirabench_clips.parallax_clip
    # I3D needs >= 9 frames (fvd_logits.MIN_FRAMES)
    gen = mirabench_clips.write_set(root, {1: clip(9, 0, 72, 128),
                                           2: mirabench_clips.static_clip(9, 1, 72, 128),
                                           3: clip(10, 3, 72, 128)}, "gen", "meta_gen.csv")
    gt = mirabench_clips.write_set(root, {1: clip(9, 9, 72, 128), 2: clip(11, 7, 72, 128)},
                                   "gt", "meta_gt.csv")
    one = mirabench_clips.write_set(root, {1: clip(9, 9, 72, 128)}, "gt1", "meta_gt1.csv")
    short = mirabench_clips.write_set(root, {1: clip(9, 9, 72, 128), 2: clip(8, 2, 72, 128)},
                                      "gt_short", "meta_gt_short.csv")
    return root, gen, gt, one, short


def _run(sets, ckpt, out, metrics, gt_csv=None, gt_dir="gt", **common):
    root, gen, gt = sets[:3]
    return runner.run(runner.MiraBenchConfig(
        common=CommonConfig(metrics=metrics, offline=True, device="cpu",
                            checkpoint_dir=str(ckpt), **common),
        meta_csv=gen, generated_dir=root / "gen", output_dir=out, model_name="m",
        gt_meta_csv=gt_csv or gt, gt_dir=root / gt_dir,
        architectures={"i3d_width_divisor": DIVISOR}))


def _logits(meta, folder, ckpt):
    model = inception_i3d.load_i3d(ckpt / ckpts.I3D_400.name / ckpts.I3D_400.filename, "cpu",
                                   width_divisor=DIVISOR)
    return torch.stack([torch.from_numpy(fvd_logits.compute(sample_lib.load(r).frames, model))
                        for r in layout.rows(meta, folder)]).numpy()


def test_fvd_and_kvd_equal_the_formulas_on_directly_computed_logits(sets, ckpt, tmp_path):
    root, gen, gt = sets[:3]
    card = _run(sets, ckpt, tmp_path / "out", ("fvd&kvd",))
    by_id = {m.id: m for m in card.metrics}
    fake, real = _logits(gen, root / "gen", ckpt), _logits(gt, root / "gt", ckpt)
    assert fake.shape == (3, 400) and real.shape == (2, 400)
    assert by_id["fvd"].available and by_id["kvd"].available
    assert by_id["fvd"].value == pytest.approx(distribution.frechet_distance_svd(real, fake),
                                               rel=1e-5, abs=1e-9)
    assert by_id["kvd"].value == pytest.approx(distribution.polynomial_mmd(real, fake),
                                               rel=1e-5, abs=1e-9)
    assert by_id["fvd"].sample_count == 3 and by_id["fvd"].backend.official
    assert not by_id["fvd"].backend.digest_pinned  # no published digest for the I3D file
    averages = json.loads((tmp_path / "out" / "average_score.csv").read_text())
    assert list(averages) == ["fvd", "kvd"]
    assert averages["fvd"] == by_id["fvd"].value
    assert any(c.id == ckpts.I3D_400.url or ckpts.I3D_400.name in c.id or c.sha256
               for c in card.provenance.checkpoints)


def test_one_gt_video_is_unavailable_and_leaves_both_out(sets, ckpt, tmp_path):
    root, one = sets[0], sets[3]
    card = _run(sets, ckpt, tmp_path / "out", ("fvd&kvd",), gt_csv=one, gt_dir="gt1")
    by_id = {m.id: m for m in card.metrics}
    assert not by_id["fvd"].available and "more than one sample" in by_id["fvd"].unavailable_reason
    assert not by_id["kvd"].available and "two videos per set" in by_id["kvd"].unavailable_reason
    assert json.loads((tmp_path / "out" / "average_score.csv").read_text()) == {}
    assert any("holds neither fvd nor kvd" in n for n in card.notes)
    del root


def test_a_video_under_nine_frames_makes_both_unavailable_naming_it(sets, ckpt, tmp_path):
    card = _run(sets, ckpt, tmp_path / "out", ("fvd&kvd",), gt_csv=sets[4], gt_dir="gt_short")
    by_id = {m.id: m for m in card.metrics}
    for mid in ("fvd", "kvd"):
        reason = by_id[mid].unavailable_reason
        assert not by_id[mid].available and "GT video 2" in reason and "9 frames" in reason
    assert json.loads((tmp_path / "out" / "average_score.csv").read_text()) == {}


def test_missing_i3d_is_unavailable_with_the_fetch_url(sets, tmp_path):
    card = _run(sets, tmp_path / "none", tmp_path / "out", ("fvd&kvd",))
    reason = {m.id: m for m in card.metrics}["fvd"].unavailable_reason
    assert "I3D unavailable" in reason and ckpts.I3D_400.url in reason


def test_all_four_decode_each_video_once(sets, ckpt, tmp_path, monkeypatch):
    loads, load = collections.Counter(), sample_lib.load

    def counted(row, max_side=None):
        loads[str(row.source)] += 1
        return load(row, max_side)
    monkeypatch.setattr(sample_lib, "load", counted)
    card = _run(sets, ckpt, tmp_path / "out", ("fvd&kvd", "fid&kid"))
    by_id = {m.id: m for m in card.metrics}
    assert by_id["fvd"].available and by_id["fid"].available
    assert len(loads) == 5 and set(loads.values()) == {1}
    averages = json.loads((tmp_path / "out" / "average_score.csv").read_text())
    assert list(averages) == ["fvd", "kvd"]  # KID needs 100 frames: neither fid nor kid


ALL_FOUR = ("fvd&kvd", "fid&kid")


@pytest.fixture(name="loads")
def _loads(monkeypatch):
    """Decodes per video file, counted in this process (a pickled copy counts apart)."""
    counts, load = collections.Counter(), sample_lib.load

    def counted(row, max_side=None):
        counts["/".join(pathlib.Path(row.source).parts[-2:])] += 1
        return load(row, max_side)
    monkeypatch.setattr(sample_lib, "load", counted)
    return counts


def _values(card):
    return {m.id: (m.available, m.value) for m in card.metrics}


GT_ONCE = {"gt/1.mp4": 1, "gt/2.mp4": 1}


def test_on_a_ray_shaped_executor_the_driver_decodes_only_the_gt_set(sets, ckpt, tmp_path,
                                                                     loads):
    local = _values(_run(sets, ckpt, tmp_path / "local", ALL_FOUR))
    loads.clear()
    executor_lib.install(pickled_executor.PickledExecutor())
    try:
        shipped = _values(_run(sets, ckpt, tmp_path / "ray", ALL_FOUR))
    finally:
        executor_lib.install(None)
    assert loads == GT_ONCE  # the generated videos were decoded in the worker's copy only
    assert shipped == local and local["fvd"][0] and local["fid"][0]


def test_resume_reads_the_embeddings_back_and_recomputes_only_a_corrupted_one(
        sets, ckpt, tmp_path, loads):
    out = tmp_path / "out"
    first = _values(_run(sets, ckpt, out, ALL_FOUR))
    loads.clear()
    assert _values(_run(sets, ckpt, out, ALL_FOUR, resume=True)) == first
    assert loads == GT_ONCE
    store = out / outputs_lib.PER_SAMPLE
    victim = sample_store.attachment_path(store, sample_lib.ref(
        layout.rows(sets[1], sets[0] / "gen")[1]).key, "i3d_logits.npy")
    victim.write_bytes(victim.read_bytes()[:-4] + b"\0\0\0\1")
    loads.clear()
    assert _values(_run(sets, ckpt, out, ALL_FOUR, resume=True)) == first
    assert loads == {**GT_ONCE, "gen/2.mp4": 1}  # that video alone decoded again


def test_a_resume_with_another_checkpoint_embeds_the_videos_again(sets, ckpt, tmp_path,
                                                                  loads):
    out, other = tmp_path / "out", _tiny_i3d(tmp_path / "other", 6)
    first = _values(_run(sets, ckpt, out, ("fvd&kvd",)))
    loads.clear()
    resumed = _values(_run(sets, other, out, ("fvd&kvd",), resume=True))
    assert loads == {**GT_ONCE, "gen/1.mp4": 1, "gen/2.mp4": 1, "gen/3.mp4": 1}
    assert resumed == _values(_run(sets, other, tmp_path / "fresh", ("fvd&kvd",)))
    assert resumed["fvd"] != first["fvd"]
