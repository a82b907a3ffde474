"""FID/KID on the real packaged Inception-v3: the weights through the resolver, the
official frame selection and input distortion (pinned), features on a few frames, and
the runner's FID/KID end to end (KID unavailable below 100 frames)."""

import json

import numpy as np
import pytest
import torch

from benchmarks.common.flags import CommonConfig
from benchmarks.mirabench import inception_fid
from benchmarks.mirabench import runner
from metrics.checkpoints import resolver
from tools.fixtures import mirabench_clips


def test_frames_sorted_as_strings_then_linspace():
    assert inception_fid.selected_frames(12) == [0, 9, 10, 11, 1, 2, 3, 4, 5, 6, 7, 8]
    picked = inception_fid.selected_frames(250)
    names = sorted(f"frames_{k + 1}.png" for k in range(250))
    expected = [int(names[i][7:-4]) - 1 for i in np.linspace(0, 249, 100).astype(int)]
    assert picked == expected and picked[:2] == [0, 99]  # frames_1, frames_100


def test_official_input_wraps_out_of_range_values_as_torch_casts_them():
    black = np.zeros((8, 8, 3), np.uint8)
    x = inception_fid.network_input(black)
    # red: (0 - 0.485) / 0.229 * 255 = -540.1 -> byte() on CPU wraps: -540 mod 256 = 228
    assert x.dtype == torch.uint8 and tuple(x.shape) == (3, 299, 299)
    assert [int(x[c, 0, 0]) for c in range(3)] == [int(np.trunc(v)) % 256 for v in (
        (0 - 0.485) / 0.229 * 255, (0 - 0.456) / 0.224 * 255, (0 - 0.406) / 0.225 * 255)]
    assert int(inception_fid.network_input(black, inception_fid.CORRECTED)[0, 0, 0]) == 0


@pytest.fixture(scope="module")
def network():
    path = inception_fid.packaged_weights()
    found = resolver.resolve(inception_fid.CHECKPOINT, explicit_path=str(path))
    assert found.sha256 == inception_fid.CHECKPOINT.sha256
    return inception_fid.InceptionFeatures(found.path)


def test_real_inception_features_on_a_few_frames(network):
    clip = mirabench_clips.parallax_clip(2, 0, 72, 128)
    feats = network.of_video(clip)
    assert feats.shape == (2, 2048) and np.isfinite(feats).all() and (feats >= 0).all()
    corrected = network.of_video(clip[:1], inception_fid.CORRECTED)
    assert not np.allclose(feats[:1], corrected)   # the distortion moves the features
    assert feats.mean() > 0.05


def test_runner_fid_kid_on_tiny_sets(tmp_path):
    gen = mirabench_clips.write_set(tmp_path, {1: mirabench_clips.parallax_clip(1, 0, 72, 128),
                                               2: mirabench_clips.static_clip(1, 1, 72, 128)},
                                    "gen", "meta_gen.csv")
    gt = mirabench_clips.write_set(tmp_path, {1: mirabench_clips.parallax_clip(2, 9, 72, 128)},
                                   "gt", "meta_gt.csv")
    card = runner.run(runner.MiraBenchConfig(
        common=CommonConfig(metrics=("fid&kid",), offline=True, device="cpu"),
        meta_csv=gen, generated_dir=tmp_path / "gen", output_dir=tmp_path / "out",
        model_name="m", gt_meta_csv=gt, gt_dir=tmp_path / "gt"))
    by_id = {m.id: m for m in card.metrics}
    assert by_id["fid"].available and by_id["fid"].value > 0
    assert by_id["fid"].value == float(np.float32(by_id["fid"].value))  # float32, as upstream
    assert by_id["fid"].sample_count == 2
    assert by_id["fid"].backend.digest_pinned
    assert "at least 100 generated frames" in by_id["kid"].unavailable_reason
    assert json.loads((tmp_path / "out" / "average_score.csv").read_text()) == {}
    notes = " ".join(card.notes)
    assert "GT set has 1 videos, the generated set 2" in notes
    assert card.provenance.checkpoints[0].sha256 == inception_fid.CHECKPOINT.sha256
