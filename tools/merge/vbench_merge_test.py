"""VBench shards merged equal a single run (merge_check.py): the synthetic sample with
videos of different lengths (tools/fixtures/vbench_clips.py) on tiny random checkpoints
(benchmarks/vbench/tiny_checkpoints.py), scored on temporal_flickering (weight-free),
background_consistency, and the two dimensions whose torchrun aggregate is not the
single-GPU one (spec §6): subject_consistency (frame pairs pooled; torchrun: the mean of
the videos) and appearance_style (all frames pooled; torchrun: each video's last frame).

Beyond file-for-file equality with the single run, the merged subject_consistency is
checked against the single-GPU rule computed here from the merged rows (Σ pair sums /
Σ pairs) and shown to differ from the mean of the videos, so a merge that fell back to
the per-process (torchrun) semantics fails here even if the single run did too.
"""

import dataclasses
import json

import numpy as np
import pytest

from benchmarks.vbench import dimension
from benchmarks.vbench import run as vbench_run
from benchmarks.vbench import runner as vbench_runner
from benchmarks.vbench import tiny_checkpoints
from tools.fixtures import vbench_clips
from tools.merge import merge_check

# Frames of video i of every prompt: unequal, so frame-pair and video weights differ.
LENGTHS = (3, 6, 4, 8, 5)
DIMENSIONS = ("temporal_flickering", "subject_consistency", "appearance_style",
              "background_consistency")
SUBJECT = "subject_consistency"


def _inputs(root):
    vbench_clips.write_sample(root / "sample", frame_counts=LENGTHS)
    tiny_checkpoints.write_all(root / "ckpt")
    return [f"--videos_path={root / 'sample' / vbench_clips.VIDEOS}",
            f"--full_info_json={root / 'sample' / vbench_clips.FULL_INFO}",
            f"--checkpoint_dir={root / 'ckpt'}", "--offline", "--device=cpu"]


def _tiny(config):
    return dataclasses.replace(config, architectures=tiny_checkpoints.ARCHITECTURES)


CASE = merge_check.Case(
    "vbench", vbench_run, vbench_runner,
    [f"--dimensions={','.join(DIMENSIONS)}", "--model_name=m"],
    configure=_tiny, inputs=_inputs)
runs = merge_check.runs_fixture(CASE)


def _rows(out):
    return [json.loads(line) for line in
            (out / "per_sample_scores.jsonl").read_text().splitlines()]


def test_shards_split_the_videos(runs):
    merge_check.assert_shards_split(runs)
    # Both shards score subject_consistency videos: the pooled aggregate spans shards.
    for i in range(runs.num_shards):
        assert any(SUBJECT in r["metrics"] for r in _rows(runs.dir(i))), i


def test_merged_outputs_equal_a_single_run(runs):
    names = merge_check.assert_merged_equals_single(runs)
    assert {"m_eval_results.json", "m_full_info.json"} <= set(names), names
    metrics = {m.id: m for m in runs.cards[merge_check.MERGED].metrics}
    for dim in DIMENSIONS:
        assert metrics[dim].available and metrics[dim].sample_count == 5, dim


def test_merged_subject_consistency_is_pooled_over_frame_pairs_not_videos(runs):
    """The single-GPU rule (spec §6): Σ over videos of the frame-pair similarity sums /
    Σ of the frame pairs; not the mean of the per-video values torchrun reports."""
    rows = [r for r in _rows(runs.dir(merge_check.MERGED)) if SUBJECT in r["metrics"]]
    assert len(rows) == 5
    pairs = [r["metrics"][f"{SUBJECT}:den"] for r in rows]
    assert sorted(pairs) == sorted(n - 1 for n in LENGTHS)  # frame pairs of each video
    pooled = (sum(r["metrics"][f"{SUBJECT}:num"] for r in rows) / sum(pairs))
    by_video = float(np.mean([r["metrics"][SUBJECT] for r in rows]))
    value = {m.id: m for m in runs.cards[merge_check.MERGED].metrics}[SUBJECT].value
    assert value == pytest.approx(pooled, rel=1e-12)
    assert abs(value - by_video) > 1e-6, (value, by_video)
    written = json.loads((runs.dir(merge_check.MERGED) / "m_eval_results.json").read_text())
    assert written[SUBJECT][0] == value



def test_merged_appearance_style_is_pooled_over_all_frames_not_last_frames(runs):
    """The single-GPU rule (spec §6): Σ over videos of the frame values / Σ frames; not
    the mean of each video's last frame (cur_sim) torchrun reports."""
    dim = "appearance_style"
    rows = [r for r in _rows(runs.dir(merge_check.MERGED)) if dim in r["metrics"]]
    assert sorted(r["metrics"][f"{dim}:den"] for r in rows) == sorted(LENGTHS)
    pooled = (sum(r["metrics"][f"{dim}:num"] for r in rows)
              / sum(r["metrics"][f"{dim}:den"] for r in rows))
    last = float(np.mean([dimension.extras_of(dim, r["diagnostics"])["cur_sim"]
                          for r in rows]))
    value = {m.id: m for m in runs.cards[merge_check.MERGED].metrics}[dim].value
    assert value == pytest.approx(pooled, rel=1e-12)
    assert abs(value - last) > 1e-6, (value, last)


if __name__ == "__main__":
    raise SystemExit(pytest.main([__file__, "-q"]))

