"""All of MiraBench in one run: every checkpoint a random model of the official
architecture (benchmarks/mirabench/tiny_checkpoints.py) resolved through --checkpoint_dir, two
generated and two GT videos of 16 frames at 128 x 128 (the smallest every network takes:
AMT-S and RAFT need 128 px, I3D 9 frames, a 3D-consistency pair 15). One run computes
the 17 metrics and the extras, except KID (it needs 100 frames per set, as upstream),
writes video_score.csv with every cell filled and decodes each video once. Each value the
run stored is pinned to its own metric module's on the same video and tiny weights
(tests/mirabench_value_pins.py), so that no metric can land in another's column."""

import collections
import csv
import json

import pytest
import torch

from benchmarks.common import family_contract as contract
from benchmarks.common.flags import CommonConfig
from benchmarks.mirabench import families
from benchmarks.mirabench import metric_specs
from benchmarks.mirabench import runner
from benchmarks.mirabench import sample as sample_lib
from benchmarks.mirabench import tiny_checkpoints as tiny
from metrics.video import frames as frames_lib
from tests import mirabench_value_pins as pins
from tools.fixtures import mirabench_clips

SIDE = 128
FRAMES = 16


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    torch.set_num_threads(1)
    root = tmp_path_factory.mktemp("all")
    clip = mirabench_clips.parallax_clip
    gen = mirabench_clips.write_set(root, {1: clip(FRAMES, 0, SIDE, SIDE),
                                           2: mirabench_clips.static_clip(FRAMES, 1, SIDE, SIDE)},
                                    "gen", "meta_gen.csv")
    gt = mirabench_clips.write_set(root, {1: clip(FRAMES, 9, SIDE, SIDE),
                                          2: clip(FRAMES, 7, SIDE, SIDE)}, "gt", "meta_gt.csv")
    ckpt = tiny.write_all(root / "ckpt")
    loads, load = collections.Counter(), sample_lib.load

    def counted(row, max_side=None):
        loads[str(row.source)] += 1
        return load(row, max_side)
    mp = pytest.MonkeyPatch()
    mp.setattr(sample_lib, "load", counted)
    with contract.enforced(runner.BENCHMARK) as checked:
        card = runner.run(runner.MiraBenchConfig(
            common=CommonConfig(offline=True, device="cpu", checkpoint_dir=str(ckpt)),
            meta_csv=gen, generated_dir=root / "gen", output_dir=root / "out",
            model_name="m", gt_meta_csv=gt, gt_dir=root / "gt",
            architectures=tiny.ARCHITECTURES))
    mp.undo()
    loads["contract"] = checked
    return root / "out", card, loads


def test_every_family_keeps_the_engine_contract_on_every_video(run):
    """benchmarks/common/family_contract, enforced through the run: every per-video family
    (all of families.SPECS) was checked on both videos."""
    _, _, loads = run
    assert loads["contract"] == {w.name: 2 for w in families.SPECS}, loads["contract"]


def test_every_metric_but_kid_is_computed(run):
    _, card, _ = run
    by_id = {m.id: m for m in card.metrics}
    assert set(by_id) >= {s.id for s in metric_specs.PER_VIDEO_SPECS + metric_specs.SET_SPECS}
    missing = {m.id: m.unavailable_reason for m in card.metrics if not m.available}
    assert list(missing) == ["kid"], missing
    assert "100" in missing["kid"]
    assert card.coverage.evaluated == 2 and card.coverage.failed == 0


def test_video_score_csv_has_every_per_video_cell(run):
    out, _, _ = run
    with open(out / "video_score.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    assert [r["video_id"] for r in rows] == ["1.0", "2.0"]  # the official writer's floats
    per_video = [s.id for s in metric_specs.PER_VIDEO_SPECS]
    for row in rows:
        assert all(row[m] != "" for m in per_video), row
    averages = json.loads((out / "average_score.csv").read_text())
    assert {"fvd", "kvd"} <= set(averages) and "fid" not in averages  # KID failed: neither


def test_each_video_is_decoded_once(run):
    _, _, loads = run
    loads = collections.Counter({k: v for k, v in loads.items() if k != "contract"})
    assert len(loads) == 4 and set(loads.values()) == {1}


def _decoded(folder):
    return {i: frames_lib.load_frames_and_digest(folder / f"{i}.mp4")[0] for i in (1, 2)}


@pytest.fixture(scope="module")
def pinned(run):
    """{video: {metric: value}} and the set-level values, from the per-metric modules
    (not the runner) on the run's videos and tiny checkpoint files; the slow ones
    (pins.SLOW) on the parallax video 1 only."""
    out, _, _ = run
    models = pins.Models(out.parent / "ckpt")
    gen, gt = _decoded(out.parent / "gen"), _decoded(out.parent / "gt")
    per_video = {i: pins.per_video(gen[i], mirabench_clips.captions(i), models, i == 1)
                 for i in gen}
    return per_video, pins.set_level([gen[1], gen[2]], [gt[1], gt[2]], models)


def test_each_stored_value_is_its_own_metric_on_that_video(run, pinned):
    out, card, _ = run
    want, _ = pinned
    rows = {r["sample_id"]: r["metrics"] for r in map(
        json.loads, (out / "per_sample_scores.jsonl").read_text().splitlines())}
    with open(out / "video_score.csv", newline="") as f:
        cells = {r["video_id"]: r for r in csv.DictReader(f)}
    assert set(want[1]) == set(metric_specs.PER_VIDEO_IDS)  # every per-video metric pinned
    for video, values in want.items():
        for metric, value in values.items():
            where = (video, metric, value)
            assert rows[str(video)][metric] == pytest.approx(value, rel=1e-6, abs=1e-6), where
            assert float(cells[f"{video}.0"][metric]) == pytest.approx(value, rel=1e-6,
                                                                       abs=1e-6), where
    by_id = {m.id: m for m in card.metrics}
    for metric in want[2]:  # pinned on both videos: the scorecard holds their mean
        mean = (want[1][metric] + want[2][metric]) / 2
        assert by_id[metric].value == pytest.approx(mean, rel=1e-6, abs=1e-6), metric


def test_per_video_pins_tell_the_metrics_apart(pinned):
    """The pins above catch a swap only where the swapped values differ: the ones that
    could be confused (same unit, same network) do on these videos."""
    want, _ = pinned
    for video in want:
        alignment = [want[video][m] for m in pins.CAPTION_COLUMN]  # one video, 5 captions
        assert len(set(alignment)) == len(alignment), alignment
    # Every pinned metric of the parallax video 1 has its own value.
    assert len(set(want[1].values())) == len(want[1]), want[1]


def test_set_level_values_are_the_formulas_on_the_i3d_logits(run, pinned):
    """FVD and KVD from each video's I3D logits (model_metrics/fvd_logits) and the official
    formulas; the tiny I3D responds to its input, so FVD is not 0 and a frame-order or
    colour-order change moves it. FID (full-size Inception, not re-run here) only by being
    positive and neither of them."""
    out, card, _ = run
    _, want = pinned
    by_id = {m.id: m.value for m in card.metrics if m.available}
    averages = json.loads((out / "average_score.csv").read_text())
    for metric in ("fvd", "kvd"):
        assert by_id[metric] == pytest.approx(want[metric], rel=1e-5, abs=1e-9), metric
        assert averages[metric] == pytest.approx(want[metric], rel=1e-5, abs=1e-9), metric
    assert by_id["fvd"] > 1e-8, by_id["fvd"]  # the generated and GT sets differ (4.6e-7)
    assert by_id["fid"] > 0 and by_id["fid"] not in (by_id["fvd"], by_id["kvd"])
