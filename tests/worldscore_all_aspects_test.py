"""All ten WorldScore aspects in one run: the bundled synthetic tree (static instances of an
inter and an intra layout, one dynamic instance), every checkpoint a tiny random model of
the official architecture loaded through the real resolver and loaders. One run computes
every metric, decodes each frame file once, builds each family once, and writes a complete
worldscore.json with both headlines. Each raw value the run stored is pinned to its own
metric module's on that instance (tests/worldscore_value_pins.py), so that no metric can
land in another's column or instance."""

import collections
import importlib
import json
import math

import pytest
import torch

from benchmarks.common import family_contract as contract
from benchmarks.common import sample_loop
from benchmarks.common.flags import CommonConfig
from benchmarks.worldscore import aspects
from benchmarks.worldscore import families
from benchmarks.worldscore import motion_accuracy
from benchmarks.worldscore import official_json
from benchmarks.worldscore import runner
from benchmarks.worldscore import sample
from metrics.flow.sea_raft import loader
from benchmarks.worldscore import tiny_checkpoints as tiny
from tests import worldscore_value_pins as pins
from tools.fixtures import worldscore_sample


F01 = "static/stylized/outdoor/forest/f01"  # push_in: an intra layout
BUILDERS = ("style_consistency", "subjective_quality", "content_alignment", "motion_smoothness",
            "motion_accuracy", "object_control", "flow_metrics", "droid_metrics")


def _counted(build, name, counter):
    def counted(config, metric_ids):
        counter[(name, tuple(metric_ids))] += 1
        return build(config, metric_ids)
    return counted


CONTEXTS = {}  # sample id -> the InstanceContext the run scored (the pins read them)


def _bound_motion_accuracy(mp):
    real_track = motion_accuracy.sam2_track

    def first_mask_bounded(model):
        # The tiny model's propagated masks are speckle that covers every pixel once
        # dilated 21 x 21 (the official max() then raises): bounded by the first mask.
        track = real_track(model)

        def bounded(frames_rgb, first_masks):
            unions = track(frames_rgb, first_masks)
            return [u & unions[0] for u in unions]
        return bounded
    mp.setattr(motion_accuracy, "sam2_track", first_mask_bounded)


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    torch.set_num_threads(1)  # tiny ops: threads only add hand-off time
    root = tmp_path_factory.mktemp("all")
    tree = worldscore_sample.write_sample(root / "sample")
    ckpt = tiny.write_all(root / "ckpt")
    reads, builds = collections.Counter(), collections.Counter()
    mp = pytest.MonkeyPatch()
    read = sample._read_rgb  # pylint: disable=protected-access

    def counted_read(path):
        reads[str(path)] += 1
        return read(path)
    mp.setattr(sample, "_read_rgb", counted_read)
    sea_raft_loads = loader.load_sea_raft

    def counted_load(*args, **kwargs):
        builds["sea_raft"] += 1
        return sea_raft_loads(*args, **kwargs)
    mp.setattr(loader, "load_sea_raft", counted_load)
    _bound_motion_accuracy(mp)
    run_families = sample_loop.run_families

    def recorded(ctx, *args):  # each instance's frames, as the run decoded them
        CONTEXTS[ctx.sample_id] = ctx
        return run_families(ctx, *args)
    mp.setattr(sample_loop, "run_families", recorded)
    for name in BUILDERS:  # families.prepare looks each build up when it runs
        module = importlib.import_module("benchmarks.worldscore." + name)
        mp.setattr(module, "build", _counted(module.build, name, builds))
    config = runner.WorldScoreConfig(
        common=CommonConfig(device="cpu", offline=True, checkpoint_dir=str(ckpt)),
        generated_root=tree["generated_root"], data_root=tree["data_root"],
        output_dir=root / "out", model_name="fixture", gram_resize="128",
        architectures=tiny.ARCHITECTURES)
    with tiny.pins_cleared(), contract.enforced(runner.BENCHMARK) as checked:
        card = runner.run(config)
    mp.undo()
    builds["contract"] = checked
    CONTEXTS["config"] = config
    return tree, root / "out", card, reads, builds


def test_every_metric_of_the_ten_aspects_is_computed(run):
    _, out, card, _, _ = run
    unavailable = {m.id: m.unavailable_reason for m in card.metrics if not m.available}
    rows = [json.loads(r) for r in (out / "per_sample_scores.jsonl").read_text().splitlines()]
    assert not unavailable, (unavailable, [r.get("unavailable") for r in rows])
    assert {m.id for m in card.metrics} >= set(families.PER_INSTANCE_IDS)
    assert card.coverage.evaluated == 3 and card.coverage.failed == 0


def test_each_instance_has_its_movements_aspects_in_evaluation_json(run):
    _, out, _, _, _ = run
    keys = [p.parent.relative_to(out / runner.EVALUATIONS_DIR).as_posix()
            for p in (out / runner.EVALUATIONS_DIR).rglob("evaluation.json")]
    assert len(keys) == 3
    for key in keys:
        movement = key.split("/")[0]
        data = json.loads((out / runner.EVALUATIONS_DIR / key / "evaluation.json").read_text())
        expected = list(aspects.ASPECTS_OF[movement])
        if key == F01:
            expected = [a for a in expected if a not in aspects.SKIPPED_FOR_INTRA]
        assert list(data) == expected, key
        for aspect in expected:
            for metric in aspects.BY_NAME[aspect].metrics:
                entry = data[aspect][metric.name]
                assert 0 <= entry["score_normalized"] <= 1, (key, metric.name)


def test_worldscore_json_is_complete_with_both_headlines(run):
    _, out, card, _, _ = run
    assert "worldscore_json" in card.output_files
    scores = json.loads((out / official_json.WORLDSCORE_JSON).read_text())
    assert tuple(scores) == official_json.WORLDSCORE_KEYS
    for key in official_json.WORLDSCORE_KEYS:
        assert isinstance(scores[key], (int, float)) and math.isfinite(scores[key]), key
    static = [scores[a] for a in aspects.STATIC_ASPECTS]
    assert scores[aspects.HEADLINE_STATIC] == pytest.approx(sum(static) / 7, abs=0.006)
    every = static + [scores[a] for a in aspects.DYNAMIC_ASPECTS]
    assert scores[aspects.HEADLINE_DYNAMIC] == pytest.approx(sum(every) / 10, abs=0.006)


def test_every_family_keeps_the_engine_contract_on_every_instance(run):
    """benchmarks/common/family_contract, enforced through the run: every family built
    (one per wiring, per metric for the aspect modules) was checked on each instance."""
    _, _, card, _, builds = run
    checked = builds["contract"]
    assert set(checked) >= {w.name for w in families.WIRINGS if not w.per_metric} | {
        "style_consistency", "content_alignment", "motion_smoothness", "motion_accuracy",
        "object_control"}, checked
    assert any(name.startswith("subjective_quality") for name in checked), checked


def test_frames_decoded_once_and_each_family_built_once(run):
    _, _, _, reads, builds = run
    builds = collections.Counter({k: v for k, v in builds.items() if k != "contract"})
    assert reads and set(reads.values()) == {1}
    assert set(builds.values()) == {1}  # one family (one model load) per builder call
    assert {k[0] for k in builds if k != "sea_raft"} == set(BUILDERS)
    assert builds["sea_raft"] == 1  # the flow family and motion_accuracy share it
    # SEA-RAFT's two metrics share one family, as do DROID-SLAM's
    assert ("flow_metrics", families.FLOW_METRICS) in builds
    assert ("droid_metrics", families.DROID_METRICS) in builds


@pytest.fixture(scope="module")
def pinned(run):
    """{sample id: {metric id: raw components}} from each metric's own module on the
    instance frames the run decoded (not through the runner)."""
    del run  # CONTEXTS holds what it scored
    mp = pytest.MonkeyPatch()
    _bound_motion_accuracy(mp)
    try:
        with tiny.pins_cleared():
            return {key: pins.expected_raw(CONTEXTS["config"], ctx)
                    for key, ctx in CONTEXTS.items() if key != "config"}
    finally:
        mp.undo()


def test_each_stored_raw_value_is_its_own_metric_on_that_instance(run, pinned):
    _, out, _, _, _ = run
    rows = [json.loads(r) for r in (out / "per_sample_scores.jsonl").read_text().splitlines()]
    assert sorted(r["sample_id"] for r in rows) == sorted(pinned)
    seen = set()
    for row in rows:
        stored, want = pins.stored_raw(row["metrics"]), pinned[row["sample_id"]]
        for metric, values in stored.items():
            assert metric in want, (row["sample_id"], metric)
            assert values == pytest.approx(want[metric], rel=1e-6, abs=1e-9), (
                row["sample_id"], metric, values, want[metric])
        seen |= set(stored)
    assert seen == set(families.PER_INSTANCE_IDS)  # every metric pinned somewhere


def test_the_pins_tell_the_metrics_of_an_instance_apart(pinned):
    """A swap of two metrics' columns fails the pins above only where their values differ:
    on the tiny models they do, but for the zeros (some components are 0 on an instance:
    a swap of two zeros is not a visible mistake)."""
    for key, want in pinned.items():
        values = [v for components in want.values() for v in components if v != 0]
        assert len(set(values)) == len(values), f"{key}: {want}"
