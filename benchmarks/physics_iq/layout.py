"""The Physics-IQ inputs of one model: what upstream's run_physics_iq.py reads (spec §1-§3).

Upstream reads, relative to the cwd, `physics-IQ-benchmark/split-videos/testing/{F}FPS`
(the real take-1/take-2 testing videos), `physics-IQ-benchmark/video-masks/real/{F}FPS`
(their masks) and the model's folder, where F = int(fps) and fps is the generated
videos' CAP_PROP_FPS (`run_physics_iq.py:287-289,331-332,380`). Here `benchmark` is that
`physics-IQ-benchmark` folder. The descriptions file decides what is expected: its take-1
rows are the samples (a subset file gives a subset run), each paired with the take-2 row of
the same (scenario, view).

Differences from upstream, all deliberate:
- Every missing or bad file is named, in one result (`problems`); the run is refused
  (`refused`, `raise_if_refused`) when the real side cannot be read. `upstream_stops` says
  where upstream's own run would have stopped (generated_folder.py).
- Nothing is renamed: `Sample.name` is the name upstream's in-place renaming would give
  the user's file (`{id}_{view}_{scenario}`, the take-1 real file's parts 0, 3, 5,
  :71-86).
- Real files are read in the {F}FPS folder under their {F}FPS names. Upstream also
  requires the 30FPS folder to hold every file (`validate_video_files` of 30FPS with
  '30FPS' replaced by '{F}FPS', :293,305); we ask the same. Where {F}FPS does not exist
  upstream makes it from 30FPS (fps_change.py), writing avc1, which the locked
  opencv-python wheel cannot encode (spec §4 [I]); `resample_from` says so.
- The fps naming quirk (spec §2, §11.10): paths use int(fps), upstream's mask writer
  names files with round(fps). Where they differ (e.g. 23.976: 23FPS folders, 24FPS mask
  names) upstream cannot find the masks it wrote: the run is refused here.
- A real masks folder that exists is used as it is (upstream :334); every mask it lacks is
  named (upstream: AssertionError "File not found" mid-run). Where it does not exist the
  masks are to be generated (`masks_present` False).
"""

import csv
import dataclasses
import os
import pathlib
from typing import List, Optional, Tuple

from benchmarks.common.errors import InputError
from benchmarks.physics_iq import generated_folder
from benchmarks.physics_iq.generated_folder import Problem

VIEWS = ("perspective-left", "perspective-center", "perspective-right")
TAKES = ("take-1", "take-2")
COLUMNS = ("scenario", "description", "category", "generated_video_name")


def testing_name(sample_id: str, fps: int, view: str, take: str, scenario: str) -> str:
    """A real testing video's file name (spec §1)."""
    return f"{sample_id}_testing-videos_{fps}FPS_{view}_{take}_{scenario}"


def mask_name(sample_id: str, fps: int, view: str, take: str, scenario: str) -> str:
    """A mask video's file name, real or generated (spec §5; generated: always take-1)."""
    return f"{sample_id}_video-masks_{fps}FPS_{view}_{take}_{scenario}"


def switch_frame_name(sample_id: str, view: str, scenario: str) -> str:
    """A switch frame's file name (spec §1); `scenario` ends in .mp4, the frame in .jpg."""
    return f"{sample_id}_switch-frames_anyFPS_{view}_{scenario[:-len('.mp4')]}.jpg"


@dataclasses.dataclass(frozen=True)
class Row:
    """One descriptions.csv row, its `scenario` cell split as upstream splits it."""

    id: str
    view: str
    take: str
    scenario: str  # e.g. "trimmed-ball-falls.mp4"
    category: str
    generated_video_name: str


@dataclasses.dataclass(frozen=True)
class Sample:
    """One (scenario, view): the unit of the metrics (spec §7)."""

    scenario: str
    view: str
    id: str  # take-1 id
    take2_id: str
    category: str
    name: str  # upstream's name for the generated video: {id}_{view}_{scenario}
    real_take1: pathlib.Path
    real_take2: pathlib.Path
    mask_take1: pathlib.Path
    mask_take2: pathlib.Path
    switch_frame: Optional[pathlib.Path]  # None when absent (upstream never reads it)
    generated: Optional[pathlib.Path]  # the user's file; None when absent or unusable
    generated_why: str = ""  # why `generated` is None (or the file is unusable)


@dataclasses.dataclass(frozen=True)
class Layout:
    """The inputs of one model's run (module docstring)."""

    benchmark: pathlib.Path
    descriptions: pathlib.Path
    generated_folder: Optional[pathlib.Path]
    fps: Optional[float]  # the generated videos' CAP_PROP_FPS
    fps_folder: str  # f"{int(fps)}FPS": folders and read names
    real_folder: pathlib.Path
    resample_from: Optional[pathlib.Path]  # the 30FPS folder when {F}FPS must be made
    mask_folder: pathlib.Path
    masks_present: bool  # False: the real masks are to be generated
    samples: Tuple[Sample, ...]
    problems: Tuple[Problem, ...]
    refused: Tuple[Problem, ...]  # why the run cannot go on at all
    upstream_stops: Tuple[str, ...]
    notes: Tuple[str, ...] = ()

    def raise_if_refused(self) -> None:
        """InputError naming every refusal (path and what was expected), if there is any."""
        if self.refused:
            raise InputError(self.benchmark, "a Physics-IQ tree with every file the "
                             f"descriptions name ({len(self.refused)} problems)",
                             "; ".join(str(p) for p in self.refused))


def read_descriptions(path) -> Tuple[List[Row], List[Problem]]:
    """The rows of descriptions.csv and a Problem for each row upstream cannot split."""
    path = pathlib.Path(path)
    try:
        with open(path, newline="", encoding="utf-8") as f:
            reader = csv.DictReader(f)
            missing = [c for c in COLUMNS if c not in (reader.fieldnames or [])]
            if missing:
                return [], [Problem(str(path), f"the columns {', '.join(COLUMNS)}",
                                    f"no {', '.join(missing)}")]
            records = list(reader)
    except (OSError, UnicodeDecodeError, csv.Error) as e:
        return [], [Problem(str(path), "the descriptions CSV", f"{type(e).__name__}: {e}")]
    rows, problems = [], []
    for k, rec in enumerate(records, start=2):
        parts = rec["scenario"].split("_")
        if (len(parts) != 4 or len(parts[0]) != 4 or not parts[0].isdigit()
                or parts[1] not in VIEWS or parts[2] not in TAKES
                or not parts[3].endswith(".mp4")):
            problems.append(Problem(f"{path}:{k}", "scenario = {id}_{view}_{take-1|take-2}_"
                                    "{scenario}.mp4", repr(rec["scenario"])))
            continue
        rows.append(Row(*parts, rec["category"], rec["generated_video_name"]))
    return rows, problems


def _fps_folder(fps: Optional[float]) -> Tuple[int, List[Problem]]:
    if fps is None or fps <= 0:
        return 30, []
    if int(fps) != round(fps):
        return int(fps), [Problem(f"{int(fps)}FPS", "an fps whose int() and round() agree "
                                  "(upstream reads int(fps)FPS names, its mask writer writes "
                                  "round(fps)FPS names: spec §2, §11.10)",
                                  f"{fps}: reads {int(fps)}FPS, writes {round(fps)}FPS")]
    return int(fps), []


def _real_files(rows: List[Row], real: pathlib.Path, thirty: pathlib.Path, f: int,
                refused: List[Problem], notes: List[str]) -> None:
    """Refusals for real files missing from the {F}FPS folder (and from 30FPS, upstream)."""
    expected = {testing_name(r.id, f, r.view, r.take, r.scenario): r for r in rows}
    for folder in dict.fromkeys([thirty, real]):
        try:
            listing = sorted(os.listdir(folder))
        except OSError:
            refused.append(Problem(str(folder), "the folder of real testing videos",
                                   "no such folder"))
            continue
        present = {n.replace("30FPS", f"{f}FPS") for n in listing if n.endswith(".mp4")}
        for name, r in expected.items():
            if name not in present:
                shown = name.replace(f"_{f}FPS_", "_30FPS_") if folder == thirty else name
                refused.append(Problem(str(folder / shown), f"the {r.take} testing video of "
                                       f"{r.scenario} {r.view}", "no such file",
                                       r.id if r.take == "take-1" else None))
        extra = sorted(present - set(expected))
        if extra:
            notes.append(f"{folder}: {len(extra)} real videos the descriptions do not name "
                         f"(ignored; upstream warns, then process_videos still reads them): "
                         + ", ".join(extra[:5]))


def lay_out(benchmark, descriptions, generated=None, fps: Optional[float] = None) -> Layout:
    """The inputs of one run. `generated`: the model's folder (None: the real side only, at
    `fps`, default 30). Never raises for a bad tree: see `refused`, `raise_if_refused`."""
    benchmark, descriptions = pathlib.Path(benchmark), pathlib.Path(descriptions)
    rows, problems = read_descriptions(descriptions)
    refused: List[Problem] = list(problems)
    notes: List[str] = []
    take1 = {(r.scenario, r.view): r for r in rows if r.take == "take-1"}
    take2 = {(r.scenario, r.view): r for r in rows if r.take == "take-2"}
    for key in sorted(set(take1) ^ set(take2)):
        have = take1.get(key) or take2[key]
        lacking = "take-2" if key in take1 else "take-1"
        refused.append(Problem(str(descriptions), f"a {lacking} row for {key[0]} {key[1]}",
                               f"only {have.take} ({have.id})"))
    pairs = sorted(((take1[k], take2[k]) for k in take1 if k in take2),
                   key=lambda pair: pair[0].id)
    checked = None
    if generated is not None:
        checked = generated_folder.check(generated, [t1.id for t1, _ in pairs])
        fps = checked.fps
        problems += checked.problems
    f, fps_refusals = _fps_folder(fps)
    refused += fps_refusals
    testing = benchmark / "split-videos" / "testing"
    thirty, real = testing / "30FPS", testing / f"{f}FPS"
    resample_from = thirty if not real.is_dir() and f != 30 else None
    if resample_from is not None:
        notes.append(f"{real} does not exist: upstream makes it from {thirty} (fps_changer, "
                     "fourcc avc1, which the locked opencv-python cannot encode: upstream then "
                     "writes nothing and stops at validate_video_files)")
    in_pairs = [r for pair in pairs for r in pair]
    _real_files(in_pairs, real if resample_from is None else thirty, thirty, f, refused, notes)
    masks = benchmark / "video-masks" / "real" / f"{f}FPS"
    masks_present = masks.is_dir()
    samples = []
    for t1, t2 in pairs:
        m1 = masks / mask_name(t1.id, f, t1.view, "take-1", t1.scenario)
        m2 = masks / mask_name(t2.id, f, t2.view, "take-2", t2.scenario)
        for m, r in ((m1, t1), (m2, t2)):
            if masks_present and not m.is_file():
                refused.append(Problem(str(m), f"the {r.take} mask of {r.scenario} {r.view}",
                                       "no such file", t1.id))
        switch = benchmark / "switch-frames" / switch_frame_name(t1.id, t1.view, t1.scenario)
        path = checked.files.get(t1.id) if checked else None
        why = checked.why.get(t1.id, "") if checked else "no generated folder given"
        samples.append(Sample(
            scenario=t1.scenario, view=t1.view, id=t1.id, take2_id=t2.id,
            category=t1.category, name=f"{t1.id}_{t1.view}_{t1.scenario}",
            real_take1=real / testing_name(t1.id, f, t1.view, "take-1", t1.scenario),
            real_take2=real / testing_name(t2.id, f, t2.view, "take-2", t2.scenario),
            mask_take1=m1, mask_take2=m2,
            switch_frame=switch if switch.is_file() else None,
            generated=None if why else path, generated_why=why))
    if not masks_present:
        notes.append(f"{masks} does not exist: the real masks are to be generated "
                     "(upstream's binary_mask_generator, spec §5)")
    if generated is not None:
        stale = (benchmark / "video-masks" / "generated"
                 / os.path.basename(os.path.normpath(generated)) / f"{f}FPS")
        if stale.is_dir():
            notes.append(f"{stale} exists: upstream would reuse it unchecked (spec §11.11)")
    all_problems = tuple(dict.fromkeys(list(problems) + refused))
    return Layout(benchmark, descriptions, pathlib.Path(generated) if generated else None,
                  fps, f"{f}FPS", real, resample_from, masks, masks_present, tuple(samples),
                  all_problems, tuple(dict.fromkeys(refused)),
                  checked.upstream_stops if checked else (), tuple(notes))
