"""TCS rules (spec §4.3, §9) on given keyframe objects and tracks; each quirk is pinned
by a test that fails if it is "fixed"."""

import numpy as np
import pytest

from benchmarks.vmbench import tcs

W, H = 100, 50
MASK = np.ones((H, W), bool)


def test_keyframe_step_from_fps():
    assert [tcs.keyframe_step(f) for f in (8, 16, 24, 23.976, 30)] == [7, 15, 23, 22, 29]
    # Quirk: fps < 1 (or unreadable, 0) gives a negative step: no keyframe at all.
    assert tcs.keyframe_step(0) == -1
    assert tcs.keyframe_dicts([{1: MASK}] * 10, -1) == []
    with pytest.raises(ValueError, match="range"):
        tcs.keyframe_step(1.5)


def test_keyframe_dicts_drop_segment_boundaries_then_take_every_step():
    # 49 frames at 8 fps: step 7; segments from keyframes 0, 7, ..., 42 yield frames
    # s..s+7 (8 dicts), the last one 42..48 (7): the boundary duplicates go, 49 remain.
    per_frame = [{"frame": s + k} for s in range(0, 49, 7) for k in range(8) if s + k < 49]
    assert len(per_frame) == 55
    kept = tcs.keyframe_dicts(per_frame, 7)
    assert [d["frame"] for d in kept] == [0, 7, 14, 21, 28, 35, 42]
    assert [d["frame"] for d in [x for i, x in enumerate(per_frame, 1) if i % 8]] == list(
        range(49))


def test_events_with_first_appearance_keyframe_and_repeats():
    dicts = [{1: MASK}, {1: MASK, 2: MASK}, {2: MASK}, {1: MASK, 2: MASK}, {}]
    vanish = tcs.vanish_events(dicts)
    assert [(e.object_id, e.first_keyframe) for e in vanish] == [(1, 0), (1, 0), (2, 1)]
    emerge = tcs.emerge_events(dicts)
    # Objects at keyframe 0 never "emerge" there; object 1 re-emerging at 3 counts.
    assert [(e.object_id, e.first_keyframe) for e in emerge] == [(2, 1), (1, 0)]


def test_query_frame_faithful_is_the_keyframe_index_corrected_is_the_video_frame():
    assert tcs.query_frame(2, 7) == 2                         # the official quirk
    assert tcs.query_frame(2, 7, tcs.QUERY_CORRECTED) == 14
    with pytest.raises(ValueError, match="query-frame mode"):
        tcs.query_frame(2, 7, "fixed")


def _tracks(frames, points=10, gone=(), outside=()):
    """Points at (50, 25) visible except in `gone` frames; moved off-frame in `outside`."""
    tracks = np.tile(np.array([50, 25], np.float32), (frames, points, 1))
    vis = np.ones((frames, points), bool)
    spread = np.linspace(-20, 20, points, dtype=np.float32)
    tracks[:, :, 0] += spread
    for t in gone:
        vis[t] = False
    for t in outside:
        vis[t] = False
        tracks[t, :, 0] = -10
    return tracks, vis


def test_vanish_decisions_use_every_threshold():
    tracks, vis = _tracks(30, gone=[20])
    d = tcs.decisions(tcs.VANISH, tracks, vis, 5, W, H)
    assert d == {"edge": False, "small": False, "detect_error": False, "counts": True}
    tracks, vis = _tracks(30, outside=[20])
    assert tcs.decisions(tcs.VANISH, tracks, vis, 5, W, H)["edge"]
    tracks, vis = _tracks(30)  # never invisible: a detection error, not a vanish
    assert tcs.decisions(tcs.VANISH, tracks, vis, 5, W, H)["detect_error"]
    small = np.tile(np.array([50, 25], np.float32), (30, 10, 1))
    small[:, :, 0] += np.linspace(0, 5, 10)   # 5 px wide: 0.05 of W < 0.07 (vanish)
    d_v = tcs.decisions(tcs.VANISH, small, _tracks(30, gone=[20])[1], 5, W, H)
    assert d_v["small"] and not d_v["counts"]
    # Emerge's size threshold is tighter (0.03): the same shape is not small there.
    assert not tcs.decisions(tcs.EMERGE, small, _tracks(30, gone=[2])[1], 25, W, H)["small"]


def test_emerge_detect_error_threshold_is_0_8_and_frames_before_the_start():
    tracks, vis = _tracks(30, points=10)
    vis[3, :8] = False   # r = 0.8 before the start: not a detection error
    assert not tcs.decisions(tcs.EMERGE, tracks, vis, 10, W, H)["detect_error"]
    assert tcs.decisions(tcs.EMERGE, tracks, vis, 3, W, H)["detect_error"]  # t < 3 only


def test_the_query_frame_quirk_changes_the_decision():
    """Object first seen at keyframe 2 (video frame 14 at step 7), fully invisible in
    frames 10-12 only. Faithful cuts at frame 2, so frames 10-12 count: a real vanish.
    Corrected cuts at 14: it never fully vanished after, so a detection error. (Its
    emerge event gets tracks that never vanish: a detection error either way.)"""
    vanishing = _tracks(49, gone=[10, 11, 12])
    steady = _tracks(49)
    dicts = [{}, {}, {7: MASK}, {}]
    calls = []

    def track(mask, start):
        calls.append(start)
        return vanishing if len(calls) == 1 else steady

    faithful, details = tcs.evaluate(dicts, 1, 7, track, W, H, tcs.QUERY_FAITHFUL)
    assert calls == [2, 2] and details[0]["counts"] and not details[1]["counts"]
    assert faithful == 0.5
    calls.clear()
    corrected, details = tcs.evaluate(dicts, 1, 7, track, W, H, tcs.QUERY_CORRECTED)
    assert calls == [14, 14] and not details[0]["counts"] and details[0]["detect_error"]
    assert corrected == 1.0


def test_score_and_no_events():
    assert tcs.score(3, [], 0, [], 0) == 1.0
    events = [tcs.Event(tcs.VANISH, 1, 0, MASK)] * 2
    assert tcs.score(2, events, 2, [], 0) == 0.5
    # Quirk: repeated events can push a part below zero.
    assert tcs.partial_score(1, events, 2) == -1.0


def test_an_event_without_a_2d_mask_is_skipped_but_still_an_event():
    value, details = tcs.evaluate([{1: None}, {}], 1, 7, None, W, H)
    assert details[0]["skipped"] and value == 1.0
