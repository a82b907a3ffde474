"""The VBench runner end to end on the synthetic VBench-shaped sample
(tools/fixtures/vbench_clips.py, videos of different lengths) with tiny random
checkpoints of every official architecture in the official file formats, found through
--checkpoint_dir, every family held to the family contract.

Each computed dimension's value is checked against an independent computation: the
dimension's per-video function on the video's frames, decoded here, with the model loaded
here through its loader, aggregated with this test's own transcription of the official
single-GPU rule (spec §5.2, §6). That pins the runner's wiring (which video is scored on
which dimension, with which prompt and auxiliary_info, in which order) and its
aggregation, independently of families.py and results/aggregate.py.
"""

import json
import types

import numpy as np
import pytest

from benchmarks.common import family_contract as contract
from benchmarks.common.flags import CommonConfig
from benchmarks.vbench import dimension
from benchmarks.vbench import metric_specs
from benchmarks.vbench import runner
from benchmarks.vbench import tiny_checkpoints
from benchmarks.vbench import checkpoints as ckpts
from benchmarks.vbench.dimensions import aesthetic_quality
from benchmarks.vbench.dimensions import appearance_style
from benchmarks.vbench.dimensions import background_consistency
from benchmarks.vbench.dimensions import clip_image_text
from benchmarks.vbench.dimensions import imaging_quality
from benchmarks.vbench.dimensions import subject_consistency
from benchmarks.vbench.dimensions import viclip_cosine
from benchmarks.vbench.motion import dynamic_degree
from benchmarks.vbench.motion import motion_smoothness
from benchmarks.vbench.motion import temporal_flickering
from metrics.clip import aesthetic
from metrics.clip import vision
from metrics.dino import vit
from metrics.flow import raft_things
from metrics.frame_interpolation import amt
from metrics.iqa import musiq
from metrics.video import frames as frames_lib
from metrics.viclip import loader as viclip_loader
from metrics.viclip import similarity
from metrics.viclip import tokenizer as viclip_tokenizer
from tools.fixtures import vbench_clips

LENGTHS = (5, 3, 4, 5, 6)   # frames of video i of every prompt
NAME = "tiny"


@pytest.fixture(scope="module", name="tree")
def _tree(tmp_path_factory):
    root = tmp_path_factory.mktemp("vbench")
    vbench_clips.write_sample(root / "sample", frame_counts=LENGTHS)
    tiny_checkpoints.write_all(root / "ckpt")
    return root


def _config(tree, out, **kwargs):
    common = kwargs.pop("common", {})
    return runner.VBenchConfig(
        common=CommonConfig(device="cpu", checkpoint_dir=str(tree / "ckpt"), offline=True,
                            **common),
        videos_path=tree / "sample" / vbench_clips.VIDEOS, output_dir=out, model_name="m",
        name=NAME, full_info_json=tree / "sample" / vbench_clips.FULL_INFO,
        architectures=tiny_checkpoints.ARCHITECTURES, **kwargs)


@pytest.fixture(scope="module", name="run")
def _run(tree):
    out = tree / "out"
    with contract.enforced(runner.BENCHMARK):
        card = runner.run(_config(tree, out))
    return types.SimpleNamespace(card=card, out=out,
                                 metrics={m.id: m for m in card.metrics})


def _models(tree):
    ck = tree / "ckpt"
    path = lambda spec: ck / spec.name / spec.filename  # noqa: E731
    folder = lambda spec: ck / spec.name  # noqa: E731
    clip_b32, bpe = ckpts.APPEARANCE_STYLE
    clip_l14, head = ckpts.AESTHETIC_QUALITY
    tower = vision.load_clip_vision(folder(clip_b32), "cpu", "quick_gelu")
    arch = tiny_checkpoints.ARCHITECTURES
    return {
        "subject_consistency": vit.load_dino(path(ckpts.SUBJECT_CONSISTENCY[0]), "cpu",
                                             arch["dino"]),
        "background_consistency": tower,
        "appearance_style": clip_image_text.load_clip_image_text(folder(clip_b32),
                                                                 path(bpe), "cpu"),
        "aesthetic_quality": aesthetic.load_aesthetic_linear(folder(clip_l14), path(head),
                                                             "cpu", activation="quick_gelu"),
        "imaging_quality": musiq.load_musiq(path(ckpts.IMAGING_QUALITY[0]), "cpu",
                                            arch["musiq"]),
        "motion_smoothness": amt.load_amt_s(path(ckpts.MOTION_SMOOTHNESS[0]), "cpu"),
        "dynamic_degree": raft_things.load_raft_things(path(ckpts.DYNAMIC_DEGREE[0]), "cpu"),
        "viclip": similarity.ViClipScorer(
            viclip_loader.load_viclip(path(ckpts.VICLIP[0]), "cpu", arch["viclip"]),
            viclip_tokenizer.load_tokenizer(str(path(bpe))), "cpu"),
    }


_COMPUTE = {
    "subject_consistency": lambda v, m: subject_consistency.compute(v, m["subject_consistency"]),
    "background_consistency": lambda v, m: background_consistency.compute(
        v, m["background_consistency"]),
    "temporal_flickering": lambda v, m: temporal_flickering.compute(v),
    "motion_smoothness": lambda v, m: motion_smoothness.compute(v, m["motion_smoothness"]),
    "dynamic_degree": lambda v, m: dynamic_degree.compute(v, m["dynamic_degree"]),
    "aesthetic_quality": lambda v, m: aesthetic_quality.compute(v, m["aesthetic_quality"]),
    "imaging_quality": lambda v, m: imaging_quality.compute(v, m["imaging_quality"]),
    "appearance_style": lambda v, m: appearance_style.compute(v, m["appearance_style"]),
    "temporal_style": lambda v, m: viclip_cosine.compute(v, m["viclip"]),
    "overall_consistency": lambda v, m: viclip_cosine.compute(v, m["viclip"]),
}


def _official_aggregate(dim, values):
    """This test's transcription of the single-GPU aggregates (spec §5.2, §6)."""
    if dim in ("subject_consistency", "background_consistency", "appearance_style"):
        return sum(v.pooled[0] for v in values) / sum(v.pooled[1] for v in values)
    mean = float(np.mean([v.video_results for v in values]))
    return mean / 100 if dim == "imaging_quality" else mean


@pytest.fixture(scope="module", name="expected")
def _expected(tree):
    """Per computed dimension: its (file name, Value) list in suite order, computed here."""
    models = _models(tree)
    videos = tree / "sample" / vbench_clips.VIDEOS
    out = {d: [] for d in metric_specs.COMPUTED}
    for prompt, dims, auxiliary, _ in vbench_clips.PROMPTS:
        for i in range(vbench_clips.VIDEOS_PER_PROMPT):
            name = f"{prompt}-{i}.mp4"
            bgr = frames_lib.load_frames(videos / name)
            for dim in dims:
                if dim not in out:
                    continue
                video = dimension.Video(rgb=np.ascontiguousarray(bgr[..., ::-1]),
                                        fps=float(vbench_clips.FPS), path=videos / name,
                                        prompt=prompt, auxiliary=(auxiliary or {}).get(dim))
                out[dim].append((name, _COMPUTE[dim](video, models)))
    return out


def test_every_computed_dimension_equals_its_function_aggregated_officially(expected, run):
    for dim in metric_specs.COMPUTED:
        result = run.metrics[dim]
        assert result.available, (dim, result.unavailable_reason)
        want = _official_aggregate(dim, [v for _, v in expected[dim]])
        assert result.value == pytest.approx(want, rel=1e-6, abs=1e-9), dim
        assert result.sample_count == len(expected[dim]) == 5, dim


def test_each_computed_dimension_reports_its_time_and_peak_memory(run):
    """Issue #34 item 6: per-dimension time and peak memory in the scorecard (host RSS on
    this CPU run; no CUDA, so no device figure)."""
    for dim in metric_specs.COMPUTED:
        result = run.metrics[dim]
        assert result.seconds > 0, dim
        assert 2**20 < result.peak_host_bytes < 64 * 2**30, (dim, result.peak_host_bytes)
        assert result.peak_device_bytes == 0, dim
    for dim in set(metric_specs.DIMENSIONS) - set(metric_specs.COMPUTED):
        assert run.metrics[dim].peak_host_bytes == 0, dim


def test_the_eval_results_file_lists_each_dimension_s_videos_in_suite_order(expected, run):
    written = json.loads((run.out / f"{NAME}_eval_results.json").read_text())
    assert list(written) == [d for d in metric_specs.DIMENSIONS if d in metric_specs.COMPUTED]
    for dim, (aggregate, videos) in written.items():
        assert aggregate == pytest.approx(run.metrics[dim].value, rel=1e-12)
        assert [v["video_path"].rsplit("/", 1)[1] for v in videos] == [
            name for name, _ in expected[dim]]
    assert isinstance(written["dynamic_degree"][1][0]["video_results"], bool)
    assert set(written["background_consistency"][1][0]) == {
        "video_path", "video_results", "video_sim", "cnt_per_video"}
    style = written["appearance_style"][1][0]
    assert style["cur_sim"] == style["frame_results"][-1]
    assert len(style["frame_results"]) == LENGTHS[0]


def test_subject_consistency_is_weighted_by_frame_pairs_not_by_videos(expected, run):
    values = [v for _, v in expected["subject_consistency"]]
    by_video = float(np.mean([v.video_results for v in values]))
    assert abs(run.metrics["subject_consistency"].value - by_video) > 1e-6


def test_the_six_part_two_dimensions_and_the_scores_that_need_them(run):
    for dim in metric_specs.NOT_IN_THIS_VERSION:
        assert not run.metrics[dim].available
        assert run.metrics[dim].unavailable_reason.startswith("not in this version"), dim
    assert run.metrics["quality_score"].available       # its 7 dimensions all ran
    for score in ("semantic_score", "total_score"):
        assert not run.metrics[score].available
        assert "object_class" in run.metrics[score].unavailable_reason
    assert run.metrics["cal_final_score_total"].available  # absent counted as 0, as upstream
    assert not run.card.verification.leaderboard_eligible


def test_a_missing_video_is_named_in_coverage_and_its_dimensions_coverage(tree, tmp_path):
    videos = tmp_path / "videos"
    videos.mkdir()
    for path in (tree / "sample" / vbench_clips.VIDEOS).iterdir():
        if not path.name.endswith("frozen in time-3.mp4"):
            (videos / path.name).symlink_to(path)
    config = _config(tree, tmp_path / "out", common={"metrics": ("temporal_flickering",)})
    card = runner.run(runner.dataclasses.replace(config, videos_path=videos))
    missing = "a textured wall, frozen in time-3.mp4"
    assert missing in card.coverage.missing_sample_ids
    flicker = {m.id: m for m in card.metrics}["temporal_flickering"]
    assert flicker.sample_count == 4 and flicker.expected_sample_count == 5
    assert "video not found" in flicker.missing_reasons[f"generated/{missing}"]
    written = json.loads((tmp_path / "out" / f"{NAME}_eval_results.json").read_text())
    assert len(written["temporal_flickering"][1]) == 4


def test_custom_input_refuses_the_dimensions_that_need_the_standard_suite(tree, tmp_path):
    config = runner.dataclasses.replace(
        _config(tree, tmp_path / "out", common={"metrics": ("appearance_style",
                                                            "temporal_flickering")}),
        mode="custom_input", full_info_json=None)
    card = runner.run(config)
    metrics = {m.id: m for m in card.metrics}
    assert not metrics["appearance_style"].available
    assert "outside vbench_standard" in metrics["appearance_style"].unavailable_reason
    assert metrics["temporal_flickering"].available
    assert metrics["temporal_flickering"].sample_count == 15
