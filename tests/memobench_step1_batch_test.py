"""--sample_batch in MemoBench Step 1, on the tiny random checkpoints.

Step 1's per-frame models (DINOv2 for ObjIdentityConsistency, Depth Anything for
Geo3DConsistency, VisualQuality's LAION aesthetic predictor on CLIP ViT-L/14 and CLIP-IQA+
on RN50, ImageReward's BLIP image tower) see each frame alone, so the sampled frames of
several clips may share their calls. The batched run must give every clip the values of
the clip scored alone (to 1e-5: only float sums change order), leave a broken clip's
error on that clip, and make fewer model calls: DINOv2, the aesthetic tower and BLIP's
ViT take frames of any size in one call (each is resized to its input), Depth Anything
and CLIP-IQA+ only frames of one size. ImageReward's text encoder stays per clip (its
prompt), and a clip without a prompt (Real/001 here) joins no shared call. The step shipped
as to a Ray actor (pickled_executor: the functions and the stage in one pickle, the
same groups) makes the same calls and rows.
"""

import shutil

import cv2
import pytest

from benchmarks.common import batch_parity
from benchmarks.common import executor as executor_lib
from benchmarks.common import pickled_executor
from benchmarks.common.flags import CommonConfig
from benchmarks.memobench import bundled_sample
from benchmarks.memobench import runner
from benchmarks.memobench.step1.prepare import Step1Settings
from metrics.clip import aesthetic
from metrics.clip import clipiqa
from metrics.depth import depth_anything
from metrics.dinov2 import backbone
from metrics.imagereward import scoring
from benchmarks.memobench import tiny_checkpoints

METRICS = ("ObjIdentityConsistency", "Geo3DConsistency", "VisualQuality", "AestheticScore",
           "ImageRewardScore")
COUNTED = (("aesthetic", aesthetic, "frame_scores"), ("clipiqa", clipiqa, "frame_scores"),
           ("dinov2", backbone, "patch_tokens"), ("depth", depth_anything, "depth_maps"),
           ("image_reward", scoring, "image_embeds"))


@pytest.fixture(scope="module")
def clips(tmp_path_factory):
    """The bundled clips: Real/001 at Barnyard_001's 96x128, CityPark_001 at 128x160,
    Barnyard_002 with a frame that is not an image."""
    root = tmp_path_factory.mktemp("batch")
    inputs = bundled_sample.extract(root / "in")
    gen = root / "gen"
    shutil.copytree(inputs.generated_dir, gen)
    for folder, size in (("Real/001", (128, 96)), ("Synthetic/CityPark/CityPark_001", (160, 128))):
        for png in (gen / folder).rglob("*.png"):
            cv2.imwrite(str(png), cv2.resize(cv2.imread(str(png)), size))
    broken = sorted((gen / "Synthetic" / "Barnyard" / "Barnyard_002").rglob("*.png"))[3]
    broken.write_bytes(b"not a png")
    return inputs, gen, tiny_checkpoints.write_all(root / "ckpt")


def _run(clips, out, sample_batch):
    inputs, gen, ckpt = clips
    config = runner.MemobenchConfig(
        common=CommonConfig(offline=True, metrics=METRICS, sample_batch=sample_batch),
        data_root=inputs.data_root, output_dir=out, model_name="TinyRandom",
        generated_synthetic_dir=gen / "Synthetic", generated_real_dir=gen / "Real",
        steps=(runner.STEP1,), recorded_flags={},
        step1=Step1Settings(device="cpu", checkpoint_dir=str(ckpt), offline=True))
    with tiny_checkpoints.pins_cleared():
        runner.run(config)
    return batch_parity.rows(out)


def test_sample_batch_shares_the_calls_and_moves_no_value_beyond_1e_5(
        clips, tmp_path, monkeypatch):
    calls = batch_parity.count_calls(monkeypatch, COUNTED)
    alone = _run(clips, tmp_path / "alone", 1)
    calls_alone = dict(calls)
    calls.clear()
    executor_lib.install(pickled_executor.PickledExecutor())  # as one Ray actor would
    try:
        shipped = _run(clips, tmp_path / "shipped", 4)
    finally:
        executor_lib.install(None)
    calls_shipped = dict(calls)
    calls.clear()
    batched = _run(clips, tmp_path / "batched", 4)
    batch_parity.assert_rows_match(batched, shipped)
    assert calls_shipped == calls
    assert set(alone) == set(batched) == {"001", "Barnyard_001", "Barnyard_002", "CityPark_001"}
    assert "Barnyard_002" in alone["Barnyard_002"]["error"]  # names the file it could not read
    batch_parity.assert_rows_match(alone, batched)
    for clip in ("001", "Barnyard_001", "CityPark_001"):
        assert set(METRICS) - {"ImageRewardScore"} <= set(alone[clip]["metrics"]), clip
    assert "ImageRewardScore" in alone["Barnyard_001"]["metrics"]
    assert "ImageRewardScore" in alone["CityPark_001"]["metrics"]
    assert "no prompt" in alone["001"]["unavailable"]["ImageRewardScore"]
    sizes = {clip: (alone[clip]["diagnostics"]["height"], alone[clip]["diagnostics"]["width"])
             for clip in ("001", "Barnyard_001", "CityPark_001")}
    assert sizes["001"] == sizes["Barnyard_001"] != sizes["CityPark_001"]
    # Alone: one call per model per scorable clip (Barnyard_002 fails to load; 001 has no
    # prompt for ImageReward). Batched (all four clips in one group): DINOv2, the aesthetic
    # tower and BLIP's ViT once, Depth Anything and CLIP-IQA+ once per size.
    assert calls_alone == {"aesthetic": 3, "clipiqa": 3, "dinov2": 3, "depth": 3,
                           "image_reward": 2}
    assert calls == {"aesthetic": 1, "clipiqa": 2, "dinov2": 1, "depth": 2, "image_reward": 1}
