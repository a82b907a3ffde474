"""A model's folder of generated videos, checked as upstream checks it (spec §2, §3 step 5).

Upstream (`code/run_physics_iq.py` at e457754) stops the run at the first of these:
`get_video_fps` (:237-269: no .mp4 file; more than one `CAP_PROP_FPS` value),
`validate_generations` (:145-171: not exactly 198 `.mp4` files; sorted file i not starting
with `f"{i:04d}_"`; an ffprobe duration off 5.0 by more than 0.001 s) and
`rename_generated_videos` (:61-88: any entry not ending in `.mp4`, folders included, raises
ValueError, after the .mp4 files sorted before it were already renamed). Here every file is
checked and every problem kept, per file and per expected id, and `upstream_stops` says
what upstream would have stopped on. Upstream renames each file in place to the real file
its first 4 characters name; we rename nothing: the sample keeps the user's file and its
upstream name is computed (layout.py).

The ids expected are the take-1 ids of the descriptions file. For the full benchmark they
are 0001..0198 and the positional prefix rule is upstream's; for a subset descriptions file
file i must start with the i-th expected id (upstream's rule with its 198 replaced by the
subset). A file also needs at least 5·fps frames (upstream: ValueError in mse_per_frame,
spec §2 "Frames").
"""

import collections
import dataclasses
import math
import os
import pathlib
from typing import Dict, List, Optional, Sequence, Tuple

import cv2

from benchmarks.physics_iq import mp4_duration

SECONDS = 5.0
DURATION_TOLERANCE = 0.001  # run_physics_iq.py:170 math.isclose(..., abs_tol=0.001)


@dataclasses.dataclass(frozen=True)
class Problem:
    """One thing wrong with one file (or the run, sample None): its path, what was expected."""

    path: str
    expected: str
    found: str
    sample: Optional[str] = None  # the take-1 id it concerns

    def __str__(self) -> str:
        return f"{self.path}: expected {self.expected}, found {self.found}"


@dataclasses.dataclass(frozen=True)
class Generated:
    """The checked folder.

    Attributes:
      folder: the folder.
      fps: the CAP_PROP_FPS most of its .mp4 files report (ties: the first file's); None
        when it has none.
      files: take-1 id -> the user's file upstream maps to it (its first 4 characters),
        when exactly one file has that id.
      why: take-1 id -> why that sample has no usable generated video (absent: usable).
      problems: every problem, per file.
      upstream_stops: what upstream's run would stop on, in its order.
    """

    folder: pathlib.Path
    fps: Optional[float]
    files: Dict[str, pathlib.Path]
    why: Dict[str, str]
    problems: Tuple[Problem, ...]
    upstream_stops: Tuple[str, ...]


def _probe(path: pathlib.Path) -> Tuple[float, int]:
    """(CAP_PROP_FPS, CAP_PROP_FRAME_COUNT) as cv2 reports them; (0.0, 0) if unopenable."""
    cap = cv2.VideoCapture(str(path))
    try:
        return float(cap.get(cv2.CAP_PROP_FPS)), int(cap.get(cv2.CAP_PROP_FRAME_COUNT))
    finally:
        cap.release()


def _run_fps(fps_of: Dict[str, float], names: Sequence[str]) -> Optional[float]:
    if not names:
        return None
    counts = collections.Counter(fps_of[n] for n in names)
    best = max(counts.values())
    return next(fps_of[n] for n in names if counts[fps_of[n]] == best)


def check(folder, expected_ids: Sequence[str]) -> Generated:
    """Checks `folder` against the sorted take-1 ids `expected_ids` (see module docstring)."""
    folder = pathlib.Path(folder)
    expected_ids = sorted(expected_ids)
    try:
        listing = sorted(os.listdir(folder))
    except OSError as e:
        p = Problem(str(folder), "a folder of generated .mp4 videos", type(e).__name__)
        return Generated(folder, None, {}, {i: str(p) for i in expected_ids}, (p,), (str(p),))
    problems: List[Problem] = []
    stops: List[str] = []
    videos = [n for n in listing if n.endswith(".mp4")]
    probed = {n: _probe(folder / n) for n in videos}
    fps_of = {n: probed[n][0] for n in videos}
    fps = _run_fps(fps_of, videos)
    if not videos:
        stops.append(f"get_video_fps: no MP4 files found in {folder} (ValueError)")
    elif len(set(fps_of.values())) > 1:
        stops.append(f"get_video_fps: inconsistent FPS values {sorted(set(fps_of.values()))}")
    if len(videos) != len(expected_ids):
        stops.append(f"validate_generations: found {len(videos)} videos but expected "
                     f"{len(expected_ids)}")
    for i, name in enumerate(videos):
        if i < len(expected_ids) and not name.startswith(expected_ids[i] + "_"):
            stops.append(f"validate_generations: video {name} (number {i + 1} sorted) does "
                         f"not start with {expected_ids[i]}_")
            break
    by_id: Dict[str, List[str]] = collections.defaultdict(list)
    wanted = set(expected_ids)
    bad: Dict[str, str] = {}
    duration_stop = ""
    span = f"{expected_ids[0]}_..{expected_ids[-1]}_" if expected_ids else "(none expected)"
    for name in videos:
        path, prefix = folder / name, name[:4]
        if name[4:5] != "_" or prefix not in wanted:
            problems.append(Problem(str(path), f"a name starting with an expected id {span}",
                                    "an extra file"))
            continue
        by_id[prefix].append(name)
        duration = mp4_duration.duration_seconds(path)
        if duration is None:
            found = "no readable duration (ffprobe gives none; upstream's float() raises)"
        elif not math.isclose(duration, SECONDS, abs_tol=DURATION_TOLERANCE):
            found = f"{duration} s"
        else:
            found = ""
        if found:
            problems.append(Problem(str(path), f"a duration of {SECONDS} s +- "
                                    f"{DURATION_TOLERANCE} (ffprobe format=duration)", found,
                                    prefix))
            bad.setdefault(name, f"duration: {found}")
            if not duration_stop:  # upstream asserts on the first such file
                duration_stop = f"validate_generations: {path} is {found}, needs 5 s"
                stops.append(duration_stop)
        if fps is not None and fps_of[name] != fps:
            problems.append(Problem(str(path), f"the folder's frame rate {fps} (cv2 "
                                    "CAP_PROP_FPS, one value for all files)",
                                    f"{fps_of[name]}", prefix))
            bad.setdefault(name, f"frame rate {fps_of[name]}, the folder's is {fps}")
        frames, needed = probed[name][1], math.ceil(SECONDS * fps_of[name])
        if frames < needed:
            problems.append(Problem(str(path), f"at least 5·fps = {needed} frames", str(frames),
                                    prefix))
            bad.setdefault(name, f"{frames} frames, needs {needed}")
    for name in listing:
        if not name.endswith(".mp4"):
            kind = "a folder" if (folder / name).is_dir() else "a file not ending in .mp4"
            problems.append(Problem(str(folder / name), "only .mp4 files (upstream's renaming "
                                    "raises ValueError 'Only .mp4 files are supported.')", kind))
            stops.append(f"rename_generated_videos: {folder / name} is not an .mp4 file "
                         "(ValueError)")
    files: Dict[str, pathlib.Path] = {}
    why: Dict[str, str] = {}
    for sample in expected_ids:
        names = by_id.get(sample, [])
        if not names:
            problems.append(Problem(str(folder / f"{sample}_*.mp4"), f"a generated video "
                                    f"named {sample}_*.mp4", "none (a gap in the prefixes)",
                                    sample))
            why[sample] = f"no file named {sample}_*.mp4 in {folder}"
        elif len(names) > 1:
            for n in names:
                problems.append(Problem(str(folder / n), f"one file with the prefix {sample}_",
                                        f"{len(names)}: {', '.join(names)}", sample))
            why[sample] = f"{len(names)} files named {sample}_*: {', '.join(names)}"
        else:
            files[sample] = folder / names[0]
            if names[0] in bad:
                why[sample] = f"{names[0]}: {bad[names[0]]}"
    return Generated(folder, fps, files, why, tuple(problems), tuple(stops))
