"""All of MiraBench in one run: every checkpoint a random model of the official
architecture (benchmarks/mirabench/tiny_checkpoints.py) resolved through --checkpoint_dir, two
generated and two GT videos of 16 frames at 128 x 128 (the smallest every network takes:
AMT-S and RAFT need 128 px, I3D 9 frames, a 3D-consistency pair 15). One run computes
the 17 metrics and the extras, except KID (it needs 100 frames per set, as upstream),
writes video_score.csv with every cell filled and decodes each video once."""

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
