"""TCS (spec §4.3, §9) on given keyframe objects, tracks and masks: VMBench's rules.

Everything here is pure: what the official temporal_coherence_score.py decides once
GroundingDINO, SAM 2.1 and CoTracker3 have produced the per-keyframe objects and the
tracks (object ids across keyframes: tcs_ids.py). Faithful by default; the one repaired
quirk is named (QUERY_CORRECTED).

  keyframe_step(fps)  int(fps) - 1 (CAP_PROP_FPS). 1 <= fps < 2 gives 0, which the official
                      range() rejects (ValueError: raised here too, so the runner makes it an
                      error row); fps < 1 gives a negative step: no keyframe, TCS = 1.0.
  keyframe_dicts      the per-frame object list of the propagation segments (step + 1
                      frames each) reduced as the official code does: drop every
                      (step+1)-th entry, then keep every step-th: one dict per keyframe.
  vanish_events / emerge_events
                      objects in keyframe i but not i+1 (vanish; an object vanishing twice
                      counts twice) / in i but not i-1 (emerge; keyframe 0 never counts),
                      each with its first-appearance *keyframe index* f and its mask there.
  query_frame         QUERY_FAITHFUL: f itself, used as a video frame (the official quirk:
                      the mask is from video frame f*step, the tracks are queried at frame
                      f, and "after/before" cut at f); QUERY_CORRECTED: f * step.
  event_counts        an event counts unless it left by an edge, became small, or never
                      fully disappeared (vanish: 0.8/0.5, 0.8/0.07, 1.0; emerge: 0.85/0.5,
                      0.8/0.03, 0.8).
  score               (vanish_score + emerge_score) / 2, each (objects - counted) /
                      objects, or 1.0 with no event.
"""

import dataclasses
from typing import Dict, List, Optional, Sequence

import numpy as np

from metrics.tracking import visibility_events as ev

QUERY_FAITHFUL, QUERY_CORRECTED = "faithful", "corrected"
QUERY_MODES = (QUERY_FAITHFUL, QUERY_CORRECTED)
VANISH, EMERGE = "vanish", "emerge"
GRID_SIZE = 50  # evaluate.sh --grid_size 50


@dataclasses.dataclass(frozen=True)
class Thresholds:
    edge_visibility: float
    edge_points: float
    small_points: float
    small_size: float
    detect_error_visibility: float


THRESHOLDS = {
    VANISH: Thresholds(0.8, 0.5, 0.8, 0.07, 1.0),
    EMERGE: Thresholds(0.85, 0.5, 0.8, 0.03, 0.8),
}
_SIDE = {VANISH: ev.AFTER, EMERGE: ev.BEFORE}


@dataclasses.dataclass(frozen=True)
class Event:
    kind: str                # VANISH or EMERGE
    object_id: object
    first_keyframe: int      # f: the keyframe index where the object first appears
    mask: Optional[np.ndarray]


def keyframe_step(fps: float) -> int:
    step = int(fps) - 1
    if step == 0:
        raise ValueError(f"fps {fps:g} gives a keyframe step of int(fps) - 1 = 0, which the "
                         "official temporal_coherence_score.py cannot use (range() step 0)")
    return step


def keyframe_dicts(per_frame: Sequence[Dict], step: int) -> List[Dict]:
    """One object dict per keyframe from the segments' per-frame dicts (see module)."""
    if step < 0:
        return []
    kept = [d for i, d in enumerate(per_frame, 1) if i % (step + 1) != 0]
    return kept[::step]


def _first_appearances(dicts: Sequence[Dict]):
    first = {}
    for i, objects in enumerate(dicts):
        for obj_id, mask in objects.items():
            first.setdefault(obj_id, (i, None if mask is None else np.asarray(mask)))
    return first


def vanish_events(dicts: Sequence[Dict]) -> List[Event]:
    """dicts: per keyframe, {object id: its mask (H, W) or None}."""
    first = _first_appearances(dicts)
    return [Event(VANISH, obj, *first[obj]) for i in range(len(dicts) - 1)
            for obj in sorted(set(dicts[i]) - set(dicts[i + 1]), key=str)]


def emerge_events(dicts: Sequence[Dict]) -> List[Event]:
    first = _first_appearances(dicts)
    return [Event(EMERGE, obj, *first[obj]) for i in range(1, len(dicts))
            for obj in sorted(set(dicts[i]) - set(dicts[i - 1]), key=str)]


def query_frame(first_keyframe: int, step: int, mode: str = QUERY_FAITHFUL) -> int:
    if mode == QUERY_FAITHFUL:
        return first_keyframe
    if mode == QUERY_CORRECTED:
        return first_keyframe * step
    raise ValueError(f"query-frame mode must be one of {QUERY_MODES}, found {mode!r}")


def decisions(kind: str, tracks, visibility, start: int, width: int, height: int) -> Dict:
    """The three explanations of an event, and whether it counts against the video."""
    th, side = THRESHOLDS[kind], _SIDE[kind]
    edge = ev.left_by_edge(tracks, visibility, start, width, height, side,
                           th.edge_visibility, th.edge_points)
    small = ev.became_small(tracks, visibility, start, width, height, side,
                            th.small_points, th.small_size)
    detect_error = ev.never_invisible(visibility, start, side, th.detect_error_visibility)
    return {"edge": edge, "small": small, "detect_error": detect_error,
            "counts": not (edge or small or detect_error)}


def trackable(event: Event) -> bool:
    """The official loop skips events whose first-appearance mask is not 2-D."""
    return event.mask is not None and event.mask.ndim == 2


def partial_score(objects_count: int, events: Sequence[Event], counted: int) -> float:
    if not events:
        return 1.0
    return (objects_count - counted) / objects_count


def score(objects_count: int, vanish: Sequence[Event], vanish_counted: int,
          emerge: Sequence[Event], emerge_counted: int) -> float:
    return (partial_score(objects_count, vanish, vanish_counted)
            + partial_score(objects_count, emerge, emerge_counted)) / 2


def evaluate(dicts: Sequence[Dict], objects_count: int, step: int, track, width: int,
             height: int, mode: str = QUERY_FAITHFUL):
    """(TCS, per-event details) from keyframe dicts and a tracker.

    `track(mask, query_frame) -> (tracks (T, N, 2), visibility (T, N))` is called once
    per trackable event (the official CoTracker3 call: grid 50 on the mask, backward
    tracking on); its query frame, and the frame the decisions cut at, follow `mode`.
    """
    details, counted = [], {VANISH: 0, EMERGE: 0}
    events = {VANISH: vanish_events(dicts), EMERGE: emerge_events(dicts)}
    for kind in (VANISH, EMERGE):
        for event in events[kind]:
            if not trackable(event):
                details.append({"kind": kind, "object": str(event.object_id),
                                "skipped": "no 2-D mask at its first appearance"})
                continue
            start = query_frame(event.first_keyframe, step, mode)
            tracks, visibility = track(event.mask, start)
            decided = decisions(kind, tracks, visibility, start, width, height)
            counted[kind] += decided["counts"]
            details.append({"kind": kind, "object": str(event.object_id),
                            "first_keyframe": event.first_keyframe, "query_frame": start,
                            **decided})
    value = score(objects_count, events[VANISH], counted[VANISH], events[EMERGE],
                  counted[EMERGE])
    return value, details
