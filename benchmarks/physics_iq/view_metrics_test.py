"""Tests for benchmarks.physics_iq.view_metrics.

Two references:
  * testdata/view_metrics_official.json: the outputs of the upstream code
    itself (original e457754, Verified dc7dd06) on view_metrics_scene's
    videos, masks included; compared exactly (==).
  * `_reference`: a per-frame loop transcription of upstream's process_view
    arithmetic (spec §6-§7, §10) written for this test, run on hand-made
    decoded streams; compared exactly (==).
"""

import json
import os

import cv2
import numpy as np
import pytest

from benchmarks.physics_iq import view_metrics as vm
from benchmarks.physics_iq import view_metrics_scene as scene
from metrics.motion_masks import background
from metrics.motion_masks.mask_video import iter_video_frames

OFFICIAL_PATH = os.path.join(os.path.dirname(__file__), "testdata", "view_metrics_official.json")
ROLES = ("real_take1", "real_take2", "generated")
MASK_ROLES = ("mask_take1", "mask_take2", "mask_generated")


@pytest.fixture(scope="module")
def official():
    with open(OFFICIAL_PATH) as f:
        return json.load(f)


@pytest.fixture(scope="module")
def scene_files(tmp_path_factory):
    """The scene's videos and our mask files, written once."""
    folder = str(tmp_path_factory.mktemp("scene"))
    paths = scene.write_scene(folder)
    for view, id1, id2 in zip(scene.VIEWS, scene.TAKE1_IDS, scene.TAKE2_IDS):
        names = {
            "mask_take1": vm.mask_file_name(id1, view, "take-1", scene.SCENARIO, scene.FPS),
            "mask_take2": vm.mask_file_name(id2, view, "take-2", scene.SCENARIO, scene.FPS),
            "mask_generated": vm.mask_file_name(id1, view, "take-1", scene.SCENARIO, scene.FPS),
        }
        for role, mask_role, sub in zip(ROLES, MASK_ROLES, ("real", "real", "generated")):
            os.makedirs(os.path.join(folder, "masks", sub), exist_ok=True)
            path = os.path.join(folder, "masks", sub, names[mask_role])
            vm.write_mask_file(iter_video_frames(paths[view][role]), path, fps=float(scene.FPS))
            paths[view][mask_role] = path
    return paths


def _streams(paths):
    return [iter_video_frames(paths[r]) for r in ROLES + MASK_ROLES]


def test_inputs_decode_as_in_the_calibration_run(official, scene_files):
    # If this fails the codec build changed, and the comparisons below are moot.
    for view in scene.VIEWS:
        for role in ROLES:
            frames = list(iter_video_frames(scene_files[view][role]))
            assert scene.frames_digest(frames) == official["inputs"]["decoded_sha256"][view][role]["sha256"]


def test_mask_files_are_the_official_ones(official, scene_files):
    for view in scene.VIEWS:
        for role in MASK_ROLES:
            expected = official["masks_decoded_sha256"][view][role]
            assert os.path.basename(scene_files[view][role]) == expected["file"]
            frames = list(iter_video_frames(scene_files[view][role]))
            assert len(frames) == expected["frames"] == scene.FRAMES
            assert scene.frames_digest(frames) == expected["sha256"]


@pytest.mark.parametrize("track", vm.TRACKS)
@pytest.mark.parametrize("view", scene.VIEWS)
def test_matches_upstream_outputs_exactly(official, scene_files, view, track):
    ours = vm.compute_view_metrics(*_streams(scene_files[view]), fps=official["inputs"]["fps"], track=track)
    expected = official[track][view]
    assert list(ours) == list(vm.KEYS)
    assert ours == expected  # lists of 40 floats and scalars, bit for bit
    for key, value in ours.items():
        if key in vm.LIST_KEYS:
            assert len(value) == 40 and all(type(v) is float for v in value)
        else:
            assert type(value) is float
    # Quirk: every mask video starts with an empty frame, empty union = 1.0.
    assert ours["spatiotemporal_iou_v1"][0] == ours["variance_spatiotemporal_iou"][0] == 1.0


def test_in_memory_masks_give_other_numbers(official, scene_files):
    # Quirk: the official masks are what the mp4v codec returns. The binary
    # masks before storage give different values on this scene.
    view = scene.VIEWS[0]
    paths = scene_files[view]
    in_memory = []
    for role in ROLES:
        masks = background.motion_masks(
            list(iter_video_frames(paths[role])), alpha=0.3, threshold=10, blur_size=5, morph_size=5
        )
        in_memory.append([cv2.cvtColor(m, cv2.COLOR_GRAY2BGR) for m in masks])
    rgb = [iter_video_frames(paths[r]) for r in ROLES]
    ours = vm.compute_view_metrics(*rgb, *in_memory, fps=8.0, track="original")
    expected = official["original"][view]
    assert ours["v1_mse"] == expected["v1_mse"]
    assert ours["spatiotemporal_iou_v1"] != expected["spatiotemporal_iou_v1"]
    assert ours["spatial_iou_v1"] != expected["spatial_iou_v1"]


def test_mask_file_names():
    assert (
        vm.mask_file_name("0001", "perspective-left", "take-1", "trimmed-a.mp4", 30.0)
        == "0001_video-masks_30FPS_perspective-left_take-1_trimmed-a.mp4"
    )
    # round(), not int(): 23.976 -> 24 (upstream's mask writer), 24.5 -> 24 (half to even).
    assert "_24FPS_" in vm.mask_file_name("0199", "perspective-right", "take-2", "s.mp4", 23.976)
    assert "_24FPS_" in vm.mask_file_name("0199", "perspective-right", "take-2", "s.mp4", 24.5)


def test_mask_file_is_written_at_the_rounded_fps(tmp_path):
    frames = [np.full((24, 33, 3), 10 * t, np.uint8) for t in range(5)]
    path = str(tmp_path / "m.mp4")
    assert vm.write_mask_file(iter(frames), path, fps=7.6) == 5
    capture = cv2.VideoCapture(path)
    assert capture.get(cv2.CAP_PROP_FPS) == 8.0
    assert capture.get(cv2.CAP_PROP_FRAME_WIDTH) == 32  # 33 & -2
    capture.release()
    decoded = list(iter_video_frames(path))
    assert len(decoded) == 5 and not decoded[0].any()  # first mask all zeros


def test_window_length():
    assert vm.window_length(8.0) == 40
    assert vm.window_length(30.0) == 150
    assert vm.window_length(23.976) == 120  # indices 0..119 < 119.88
    with pytest.raises(ValueError):
        vm.window_length(0.0)


# --- hand-made decoded streams against a loop transcription of upstream -----


def _reference(streams, fps, track):
    """Loop transcription of upstream process_view (original) / load_view+compute (verified)."""
    r1, r2, g, m1, m2, mg = streams
    end = fps * 5
    size = (r1[0].shape[1] // 4, r1[0].shape[0] // 4)

    def load(frames, normalize):
        out = []
        for i, f in enumerate(frames):
            if 0 <= i < end:
                f = cv2.resize(f, size)
                out.append(f / 255.0 if normalize else f)
        return out

    r1, r2, g = (load(x, True) for x in (r1, r2, g))
    if track == "original":
        m1, m2, mg = ([(m > 127).astype(np.uint8) for m in load(x, False)] for x in (m1, m2, mg))
    else:
        m1, m2, mg = ([m[:, :, 0] > 127 for m in load(x, False)] for x in (m1, m2, mg))

    def iou(a, b):
        values = []
        for x, y in zip(a, b):
            union = np.logical_or(x, y).sum()
            values.append(1.0 if union == 0 else np.logical_and(x, y).sum() / union)
        return values

    def spatial(ms):
        return (np.max(ms, axis=0) > 0).astype(np.uint8) * 255

    def weight(ms):
        return np.sum(ms, axis=0, dtype=np.uint16) / len(ms)

    def wiou(a, b, active_only):
        lo, hi = np.minimum(a, b), np.maximum(a, b)
        if not active_only:
            return 1.0 if np.sum(hi) == 0 else np.sum(lo) / np.sum(hi)
        keep = hi > 0
        return 1.0 if np.sum(keep) == 0 else np.sum(lo[keep]) / np.sum(hi[keep])

    def mse(a, b):
        if len(a) != len(b):
            raise ValueError("Videos must have the same number of frames.")
        return [np.mean((x.astype(np.float32) - y.astype(np.float32)) ** 2) for x, y in zip(a, b)]

    w1, w2, wg = weight(m1), weight(m2), weight(mg)
    out = {
        "v1_mse": mse(r1, g), "v2_mse": mse(r2, g),
        "variance_spatial": np.mean(iou([spatial(m1)], [spatial(m2)])),
        "variance_weighted_spatial": wiou(w1, w2, track == "verified"),
        "variance_spatiotemporal_iou": iou(m1, m2), "variance_mse": mse(r1, r2),
        "spatiotemporal_iou_v1": iou(m1, mg), "spatiotemporal_iou_v2": iou(m2, mg),
        "spatial_iou_v1": iou([spatial(m1)], [spatial(mg)])[0],
        "spatial_iou_v2": iou([spatial(m2)], [spatial(mg)])[0],
        "weighted_spatial_iou_v1": wiou(w1, wg, True), "weighted_spatial_iou_v2": wiou(w2, wg, True),
    }
    return {k: [float(x) for x in v] if isinstance(v, list) else float(v) for k, v in out.items()}


def _hand_streams(seed, counts=(23, 23, 23, 23, 22, 21), size=(67, 50), gen_size=(41, 33)):
    """Random BGR frames and blocky decoded-looking masks whose channels sometimes differ."""
    rng = np.random.default_rng(seed)
    w, h = size
    r1, r2 = ([rng.integers(0, 256, (h, w, 3), dtype=np.uint8) for _ in range(n)] for n in counts[:2])
    g = [rng.integers(0, 256, (gen_size[1], gen_size[0], 3), dtype=np.uint8) for _ in range(counts[2])]
    masks = []
    for n, (mw, mh) in zip(counts[3:], ((w, h), (w, h), gen_size)):
        frames = [np.zeros((mh, mw, 3), np.uint8)]
        for _ in range(n - 1):
            levels = rng.choice([0, 90, 127, 128, 200, 255], size=(mh // 6 + 1, mw // 6 + 1, 3))
            frame = np.kron(levels, np.ones((6, 6, 1))).astype(np.uint8)[:mh, :mw]
            frame[..., 1:] = np.where(rng.random((mh, mw, 1)) < 0.1, 255 - frame[..., 1:], frame[..., 1:])
            frames.append(frame)
        masks.append(frames)
    return [r1, r2, g] + masks


@pytest.mark.parametrize("seed", range(3))
def test_original_matches_loop_reference(seed):
    streams = _hand_streams(seed)  # masks of 23/22/21 frames: zip keeps the shorter
    ours = vm.compute_view_metrics(*streams, fps=4.0, track="original")  # window 20
    assert ours == _reference(streams, 4.0, "original")
    assert len(ours["spatiotemporal_iou_v1"]) == 20 and len(ours["v1_mse"]) == 20
    verified_like = _reference(streams, 4.0, "verified")
    assert ours["spatiotemporal_iou_v1"] != verified_like["spatiotemporal_iou_v1"]  # 3 channels vs 1


@pytest.mark.parametrize("seed", range(3))
def test_verified_matches_loop_reference(seed):
    streams = _hand_streams(seed, counts=(23,) * 6)
    ours = vm.compute_view_metrics(*streams, fps=3.7, track="verified")  # window 19 (< 18.5)
    assert ours == _reference(streams, 3.7, "verified")
    assert len(ours["v1_mse"]) == 19


def test_resize_happens_before_normalisation():
    # Upstream resizes the uint8 frame (INTER_LINEAR rounds to uint8), then
    # divides by 255. Resizing the [0, 1] float frame instead gives other bits.
    streams = _hand_streams(5)
    ours = vm.compute_view_metrics(*streams, fps=4.0, track="original")
    size = (streams[0][0].shape[1] // 4, streams[0][0].shape[0] // 4)

    def float_first(frame):
        return cv2.resize(frame / 255.0, size).astype(np.float32)

    other = [
        float(np.mean((float_first(a) - float_first(b)) ** 2))
        for a, b in zip(streams[0][:20], streams[2][:20])
    ]
    assert ours["v1_mse"] != other
    assert np.allclose(ours["v1_mse"], other, atol=1e-3)


def test_empty_and_mismatched_streams():
    streams = _hand_streams(1)
    empty = [[]] + streams[1:]
    assert vm.compute_view_metrics(*empty, fps=4.0, track="original") is None
    with pytest.raises(ValueError, match="no frames"):
        vm.compute_view_metrics(*empty, fps=4.0, track="verified")
    short_gen = streams[:2] + [streams[2][:10]] + streams[3:]
    with pytest.raises(ValueError, match="same number of frames"):
        vm.compute_view_metrics(*short_gen, fps=4.0, track="original")
    with pytest.raises(ValueError, match="shapes differ"):
        vm.compute_view_metrics(*short_gen, fps=4.0, track="verified")
    short_mask = streams[:5] + [streams[5][:10]]
    assert vm.compute_view_metrics(*short_mask, fps=4.0, track="original") is not None
    with pytest.raises(ValueError, match="shapes differ"):
        vm.compute_view_metrics(*short_mask, fps=4.0, track="verified")
    with pytest.raises(ValueError, match="generated mask"):
        vm.compute_view_metrics(*streams[:5], [], fps=4.0, track="original")
    with pytest.raises(ValueError, match="track"):
        vm.compute_view_metrics(*streams, fps=4.0, track="other")


def test_still_scene_scores_one_everywhere():
    frames = [np.full((48, 64, 3), 80, np.uint8)] * 12
    masks = [np.zeros((48, 64, 3), np.uint8)] * 12
    out = vm.compute_view_metrics(frames, frames, frames, masks, masks, masks, fps=2.0, track="original")
    assert out["spatiotemporal_iou_v1"] == [1.0] * 10 and out["v1_mse"] == [0.0] * 10
    for key in ("spatial_iou_v1", "weighted_spatial_iou_v1", "variance_spatial", "variance_weighted_spatial"):
        assert out[key] == 1.0
