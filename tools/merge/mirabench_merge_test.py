"""MiraBench shards merged equal a single run (merge_check.py): two 15-frame videos on
the weight-free 3D-consistency metrics and FID/KID (the packaged Inception-v3), whose
per-video embeddings the merge carries over from the shards' stores (the attachments
folder compared file by file), video_score.csv and average_score.csv included.
Not the bundled sample: its clips take over a minute per run of SIFT at 1280 x 720 on
2 cores; 15 frames give 5 pairs per video (interval 10)."""

from benchmarks.mirabench import run as mirabench_run
from benchmarks.mirabench import runner as mirabench_runner
from tools.fixtures import mirabench_clips
from tools.merge import merge_check


def _inputs(root):
    # Videos 1 and 2 fall in different shards of 2 (sha256 of "generated/<idx>").
    meta = mirabench_clips.write_set(root, {1: mirabench_clips.parallax_clip(15, 0, 72, 128),
                                            2: mirabench_clips.parallax_clip(15, 3, 72, 128)},
                                     "generated", "meta_generated.csv")
    gt = mirabench_clips.write_set(root, {1: mirabench_clips.parallax_clip(15, 7, 72, 128),
                                          2: mirabench_clips.parallax_clip(15, 9, 72, 128)},
                                   "gt", "meta_gt.csv")
    return [f"--meta_csv={meta}", f"--generated_dir={root / 'generated'}",
            f"--gt_meta_csv={gt}", f"--gt_dir={root / 'gt'}"]


CASE = merge_check.Case(
    "mirabench", mirabench_run, mirabench_runner,
    ["--metrics=3D_consistency_mean_err,3D_consistency_rmse,3D_consistency_num_pts,fid&kid",
     "--model_name=m", "--device=cpu", "--offline"], inputs=_inputs)
runs = merge_check.runs_fixture(CASE)


def test_shards_split_the_videos(runs):
    merge_check.assert_shards_split(runs)


def test_merged_outputs_equal_a_single_run(runs):
    names = merge_check.assert_merged_equals_single(runs)
    assert {"video_score.csv", "average_score.csv"} <= set(names), names
    assert sum(".attachments/" in n and n.endswith("/inception_pool3.npy")
               for n in names) == 2, names
    fid = {m.id: m for m in runs.cards[merge_check.MERGED].metrics}["fid"]
    assert fid.available and fid.sample_count == 30  # 15 frames of each generated video
