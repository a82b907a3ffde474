"""motion_accuracy's own steps against hand-worked answers (fake tracker and flow), and
the runner end to end with a tiny SAM 2.1 through the real loader."""

import dataclasses
import json
import pathlib

import numpy as np
import pytest
from PIL import Image

from benchmarks.common.errors import InputError
from benchmarks.common.flags import CommonConfig
from benchmarks.worldscore import motion_accuracy
from benchmarks.worldscore import runner
from metrics.segmentation import sam2_loader
from metrics.segmentation import tiny_sam2
from proto import scorecard_pb2
from tools.fixtures import worldscore_sample
from tools.fixtures import worldscore_tree

BALL = "dynamic/photorealistic/rigid/ball01"
TINY = dataclasses.replace(tiny_sam2.TINY_128, postprocessing=False, fill_hole_area=0)


def _save(path: pathlib.Path, array):
    path.parent.mkdir(parents=True, exist_ok=True)
    Image.fromarray(array).save(path)


def test_masks_are_every_png_jpg_of_the_folder_in_name_order(tmp_path):
    a = np.zeros((4, 5), np.uint8)
    a[0, 0] = 1
    b = np.zeros((4, 5), np.uint8)
    b[3, 4] = 200
    _save(tmp_path / "m" / "b_second.png", b)
    _save(tmp_path / "m" / "a_first.png", a)
    (tmp_path / "m" / "notes.txt").write_text("not a mask")
    masks = motion_accuracy.read_first_frame_masks(tmp_path / "m")
    assert list(masks) == [0, 1]
    assert masks[0].sum() == 1 and masks[0][0, 0] and masks[1][3, 4] and masks[1].sum() == 1


def test_a_16_bit_mask_wraps_to_uint8_as_officially(tmp_path):
    wide = np.zeros((3, 3), np.uint16)
    wide[0, 0], wide[1, 1] = 256, 257  # astype(uint8): 0 and 1
    path = tmp_path / "m" / "0.png"
    path.parent.mkdir()
    Image.fromarray(wide).save(path)
    mask = motion_accuracy.read_first_frame_masks(tmp_path / "m")[0]
    assert not mask[0, 0] and mask[1, 1] and mask.sum() == 1


def test_bad_masks_are_errors_naming_the_file(tmp_path):
    with pytest.raises(InputError, match="no such folder"):
        motion_accuracy.read_first_frame_masks(tmp_path / "absent")
    _save(tmp_path / "rgb" / "0.jpg", np.full((4, 4, 3), 255, np.uint8))
    with pytest.raises(InputError, match=r"rgb/0.jpg.*2-D mask.*\(4, 4, 3\)"):
        motion_accuracy.read_first_frame_masks(tmp_path / "rgb")
    with pytest.raises(InputError, match="masks, a list"):
        motion_accuracy.mask_folder(tmp_path, {"masks": []})
    folder = motion_accuracy.mask_folder(tmp_path, {"masks": ["dynamic/masks/x/000.png"]})
    assert folder == tmp_path / "WorldScore-Dataset" / "dynamic" / "masks" / "x"


def test_frames_are_tracked_in_int_order_and_non_integer_names_fail():
    files = [pathlib.Path(f"f/{n}.png") for n in ("10", "8", "9")]  # the evaluator's order
    assert motion_accuracy.tracking_order(files) == [1, 2, 0]
    with pytest.raises(InputError, match="frame_a.png"):
        motion_accuracy.tracking_order([pathlib.Path("f/0.png"), pathlib.Path("f/frame_a.png")])


def _ramp_flow(a, b):
    """flow x = column index (|flow| = x), whatever the frames."""
    del b
    out = np.zeros(a.shape[:2] + (2,), np.float32)
    out[..., 0] = np.arange(a.shape[1], dtype=np.float32)[None, :]
    return out


def test_score_pairs_the_tracked_mask_of_frame_t_with_pair_t():
    h, w = 30, 60
    frames = [np.full((h, w, 3), i, np.uint8) for i in range(3)]
    files = [pathlib.Path(f"f/{i:03d}.png") for i in range(3)]
    seen = {}

    def track(stack, first):
        seen["frames"], seen["first"] = stack[:, 0, 0, 0].tolist(), list(first)
        out = []
        for col in (5, 30, 50):  # one pixel per frame; dilated: columns col-10 .. col+10
            m = np.zeros((h, w), bool)
            m[15, col] = True
            out.append(m)
        return out

    first = {0: np.ones((2, 2), bool), 1: np.zeros((2, 2), bool)}
    score = motion_accuracy.instance_score(frames, files, first, track, _ramp_flow)
    assert seen == {"frames": [0, 1, 2], "first": [0, 1]}
    # pair 0: mask cols 0..15 -> max 15, background max 59; pair 1: cols 20..40 -> 40 - 59
    assert score == pytest.approx(((15 - 59) + (40 - 59)) / 2)


def test_lexicographic_pairs_meet_int_ordered_masks_as_officially():
    frames = [np.full((20, 40, 3), i, np.uint8) for i in range(3)]
    files = [pathlib.Path(f"f/{n}.png") for n in ("10", "8", "9")]
    order = []

    def track(stack, first):
        del first
        order.extend(stack[:, 0, 0, 0].tolist())
        masks = []
        for col in (0, 15, 39):
            m = np.zeros((20, 40), bool)
            m[0, col] = True
            masks.append(m)
        return masks

    score = motion_accuracy.instance_score(frames, files, {0: np.ones((1, 1), bool)}, track,
                                           _ramp_flow)
    assert order == [1, 2, 0]  # frames 8, 9, 10
    # pairs (10, 8) and (8, 9) take the masks of tracked frames 8 and 9: cols 0..10, 5..25
    assert score == pytest.approx(((10 - 39) + (25 - 39)) / 2)


def _dilate_reference(mask, r=10):
    """cv2.dilate with a (2r+1)^2 square of ones, written as shifted ORs."""
    h, w = mask.shape
    padded = np.pad(mask, r)
    out = np.zeros_like(mask)
    for dy in range(2 * r + 1):
        for dx in range(2 * r + 1):
            out |= padded[dy:dy + h, dx:dx + w]
    return out


def _slope_flow(a, b):
    del b
    out = np.zeros(a.shape[:2] + (2,), np.float32)
    out[..., 0] = np.arange(a.shape[1], dtype=np.float32)[None, :] / 4
    out[..., 1] = np.arange(a.shape[0], dtype=np.float32)[:, None] / 4
    return out


def test_motion_accuracy_end_to_end_with_a_tiny_sam2_1(tmp_path):
    data, gen, ckpt = tmp_path / "data", tmp_path / "gen", tmp_path / "ckpt"
    ball = worldscore_tree.dynamic_entry("photorealistic", "rigid", "ball01")
    bare = worldscore_tree.dynamic_entry("photorealistic", "rigid", "bare")
    worldscore_tree.write_dataset(data, dynamic=[ball, bare])
    masks = data / "WorldScore-Dataset"
    (masks / bare["masks"][0]).unlink()
    first = np.zeros((96, 128), np.uint8)
    first[30:60, 40:70] = 255
    Image.fromarray(first).save(masks / ball["masks"][0])
    for entry in (ball, bare):  # 2 frames: the tiny model's propagated masks are speckle
        inst = worldscore_tree.write_instance(gen, entry, 2)  # that covers all once dilated
        for i in range(2):
            Image.fromarray(worldscore_sample.texture(3, i, 2, size=(128, 96))).save(
                inst / "frames" / f"{i:03d}.png")
    spec = motion_accuracy.SAM2_1_HIERA_B_PLUS
    sam = tiny_sam2.save_tiny_sam2(ckpt / spec.name / spec.filename,
                                   config=TINY, object_bias=10.0)
    config = runner.WorldScoreConfig(
        common=CommonConfig(device="cpu", offline=True, checkpoint_dir=str(ckpt),
                            metrics=("motion_accuracy",)),
        generated_root=gen, data_root=data, output_dir=tmp_path / "o", model_name="fixture",
        movements=("dynamic",), flow=_slope_flow, architectures={"sam2": TINY},
        flow_backend=scorecard_pb2.Backend(name="fake-flow", official=False))
    card = runner.run(config)
    rows = {json.loads(r)["sample_id"]: json.loads(r) for r in
            (tmp_path / "o" / "per_sample_scores.jsonl").read_text().splitlines()}
    assert str(masks / "dynamic/masks/bare") in rows["dynamic/photorealistic/rigid/bare"]["error"]
    # the reference: the model's own propagation, unions and dilation by hand, numpy maxima
    frames = np.stack([np.asarray(Image.open(gen / BALL / "frames" / f"{i:03d}.png"))
                       for i in range(2)])
    tracked = sam2_loader.load_sam2(sam, config=TINY).propagate(
        frames, {0: first > 0}, 0, len(frames) - 1, frame_resize="bicubic")
    speed = np.hypot(*np.moveaxis(_slope_flow(frames[0], None), -1, 0))
    values = []
    for _, objects in tracked[:-1]:
        mask = _dilate_reference(objects[0])
        values.append(speed[mask].max() - speed[~mask].max())
    assert 0 < _dilate_reference(tracked[0][1][0]).mean() < 1  # a real mask, not all/none
    got = json.loads((tmp_path / "o" / runner.EVALUATIONS_DIR / BALL / "evaluation.json")
                     .read_text())["motion_accuracy"]["motion_accuracy"]
    assert got["score"] == pytest.approx(sum(values) / len(values), abs=1e-5)
    metric = {m.id: m for m in card.metrics}["motion_accuracy.motion_accuracy"]
    assert metric.available and metric.backend.name == "sam2.1-hiera-base-plus + fake-flow"
    assert not metric.backend.official
