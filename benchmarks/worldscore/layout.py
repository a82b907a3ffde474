"""The generated side: worldscore_output/ walked as the official evaluator walks it.

`static/<style>/<scene_type>/<category>/<instance>/` and
`dynamic/<style>/<motion_type>/<instance>/` (spec §3): at each level the directories,
sorted by name; files between levels are ignored, as `Evaluator._evaluate` and
`calculate_worldscore` ignore them. The completeness rules of `Evaluator.data_exists`
and `calculate_metrics` become per-instance problems naming the file and what was
expected, where the official code skips the instance without a word (data_exists) or
crashes the batch (the static frame/camera count check).
"""

import dataclasses
import os
import pathlib
from typing import List, Optional

from benchmarks.common.errors import InputError
from benchmarks.worldscore import aspects
from benchmarks.worldscore import official_json

IMAGE_DATA, CAMERA_DATA, INPUT_IMAGE, FRAMES = (
    "image_data.json", "camera_data.json", "input_image.png", "frames")
DEPTH = {aspects.STATIC: 4, aspects.DYNAMIC: 3}  # folder levels below static/ | dynamic/
_FRAME_SUFFIXES = (".png", ".jpg")          # data_exists counts f.endswith(...) files
_SAM2_SUFFIXES = (".jpg", ".jpeg", ".JPG", ".JPEG", ".png")  # motion_accuracy's frame list


@dataclasses.dataclass
class Instance:
    """One generated instance folder and what its checks found."""

    movement: str
    parts: tuple                 # (style, scene_type, category, instance) | (style, motion, instance)
    path: pathlib.Path
    image_data: Optional[dict] = None
    frames: List[str] = dataclasses.field(default_factory=list)  # sorted as the evaluator does
    problems: List[str] = dataclasses.field(default_factory=list)  # data_exists fails
    # The official evaluation raises (calculate_metrics) or a metric falls back to 0:
    crashes: List[str] = dataclasses.field(default_factory=list)
    warnings: List[str] = dataclasses.field(default_factory=list)

    @property
    def key(self) -> str:
        return "/".join((self.movement,) + self.parts)

    @property
    def exists(self) -> bool:
        """Evaluator.data_exists: the official evaluator (and --only_calculate_mean's
        renormalisation) considers the instance at all."""
        return not self.problems

    @property
    def complete(self) -> bool:
        """Evaluable without the official batch crashing."""
        return not self.problems and not self.crashes


def _dirs(path: pathlib.Path) -> List[pathlib.Path]:
    try:
        return sorted((p for p in path.iterdir() if p.is_dir()), key=lambda p: p.name)
    except OSError as e:
        raise InputError(path, "a readable WorldScore output folder",
                         f"{type(e).__name__}: {e.strerror or e}") from e


def walk(generated_root: os.PathLike, movement: str) -> List[Instance]:
    """The instance folders under `<generated_root>/<movement>/`, in the official order;
    [] when that folder does not exist."""
    root = pathlib.Path(generated_root) / movement
    if not root.is_dir():
        return []
    level = [((), root)]
    for _ in range(DEPTH[movement]):
        level = [(parts + (d.name,), d) for parts, d in level for d in _dirs(d)]
    return [Instance(movement, parts, path) for parts, path in level]


def check_root(generated_root: os.PathLike, movements, flag: str = "--generated_root"
               ) -> None:
    """InputError (exit 2, before any work) unless `generated_root` is a folder holding
    at least one instance folder under one of `movements` (<root>/static/<style>/... or
    <root>/dynamic/<style>/...): a missing, empty or non-folder root is not a run of
    every instance failed."""
    root = pathlib.Path(generated_root)
    shape = (f"a model's worldscore_output folder ({flag}) holding instance folders "
             + " or ".join(f"{m}/" + "/".join(_LEVELS[m]) + "/" for m in movements))
    if not root.is_dir():
        found = ("a link to nothing" if root.is_symlink() and not root.exists() else
                 "a file" if root.exists() else "no such folder")
        raise InputError(root, shape, found)
    if any(walk(root, m) for m in movements):
        return
    try:
        present = sorted(p.name for p in root.iterdir())
    except OSError as e:
        raise InputError(root, shape, f"a folder that cannot be listed ({type(e).__name__}: "
                         f"{e.strerror or e})") from e
    found = ("an empty folder" if not present else "no instance folder under "
             + " or ".join(f"{m}/" for m in movements) + " (it holds "
             + ", ".join(present[:5]) + (f" and {len(present) - 5} more" if len(present) > 5
                                          else "") + ")")
    raise InputError(root, shape, found)


_LEVELS = {aspects.STATIC: ("<style>", "<scene_type>", "<category>", "<instance>"),
           aspects.DYNAMIC: ("<style>", "<motion_type>", "<instance>")}


def _problem(inst: Instance, name: str, expected: str, found: str, crash=False) -> None:
    (inst.crashes if crash else inst.problems).append(
        f"{inst.path / name}: expected {expected}, found {found}")


def _read_image_data(inst: Instance) -> Optional[dict]:
    path = inst.path / IMAGE_DATA
    if not path.is_file():
        _problem(inst, IMAGE_DATA, "the instance's image_data.json (dataset entry plus "
                 "num_scenes, total_frames)", "no such file")
        return None
    try:
        data = official_json.read_json(path, "image_data.json")
    except InputError as e:
        inst.problems.append(str(e))
        return None
    total = data.get("total_frames") if isinstance(data, dict) else None
    if not isinstance(total, int) or isinstance(total, bool) or total < 1:
        _problem(inst, IMAGE_DATA, "an object with an integer total_frames >= 1",
                 repr(total) if isinstance(data, dict) else type(data).__name__)
        return None
    return data


def _check_camera_data(inst: Instance, total: int) -> None:
    path = inst.path / CAMERA_DATA
    try:
        data = official_json.read_json(path, "camera_data.json")
    except InputError as e:
        inst.crashes.append(str(e))
        return
    cams = data.get("cameras_interp") if isinstance(data, dict) else None
    if not isinstance(cams, list):
        _problem(inst, CAMERA_DATA, "a cameras_interp list (total_frames 4x4 matrices)",
                 "none" if cams is None else type(cams).__name__, crash=True)
        return
    bad = next((i for i, c in enumerate(cams) if not (
        isinstance(c, list) and len(c) == 4
        and all(isinstance(r, list) and len(r) == 4 for r in c))), None)
    if bad is not None:
        _problem(inst, CAMERA_DATA, "cameras_interp entries that are 4x4 matrices",
                 f"entry {bad}: {str(cams[bad])[:60]}", crash=True)
    elif len(cams) != total:
        _problem(inst, CAMERA_DATA, f"{total} cameras_interp matrices (total_frames in "
                 f"{IMAGE_DATA}; the official calculate_metrics raises otherwise)",
                 str(len(cams)), crash=True)


def check(inst: Instance) -> Instance:
    """Fills `inst` with its image data, sorted frames, problems and warnings."""
    present = set(os.listdir(inst.path))
    data = _read_image_data(inst)
    required = [FRAMES, INPUT_IMAGE] + ([CAMERA_DATA] if inst.movement == aspects.STATIC else [])
    for name in required:
        if name not in present:
            _problem(inst, name, "it (Evaluator.data_exists)", "no such file or folder")
    if data is None:
        return inst
    inst.image_data = data
    total = data["total_frames"]
    if FRAMES in present and not (inst.path / FRAMES).is_dir():
        _problem(inst, FRAMES, "a folder of frames", "a file")
    elif FRAMES in present:
        names = os.listdir(inst.path / FRAMES)
        inst.frames = sorted(n for n in names if os.path.splitext(n)[1] in _FRAME_SUFFIXES)
        count = len([n for n in names if n.endswith(_FRAME_SUFFIXES)])
        if count < total:
            _problem(inst, FRAMES, f"at least {total} .png/.jpg frames (total_frames)",
                     str(count))
        elif count > total and inst.movement == aspects.STATIC:
            _problem(inst, FRAMES, f"exactly {total} frames for a static instance (the "
                     "official calculate_metrics raises otherwise)", str(count), crash=True)
        elif count > total:
            inst.warnings.append(f"{inst.path / FRAMES}: {count} frames for total_frames "
                                 f"{total}; the official evaluator uses all {count}")
        _check_frame_names(inst, names)
    if inst.movement == aspects.STATIC and CAMERA_DATA in present:
        _check_camera_data(inst, total)
    return inst


def _check_frame_names(inst: Instance, names: List[str]) -> None:
    if inst.movement == aspects.DYNAMIC:  # motion_accuracy sorts by int(file stem)
        bad = sorted(n for n in names if os.path.splitext(n)[1] in _SAM2_SUFFIXES
                     and not _is_int(os.path.splitext(n)[0]))
        if bad:
            _problem(inst, f"{FRAMES}/{bad[0]}", "integer-named frames (000.png, ...: the "
                     "official motion_accuracy sorts them by int(name) and fails, scoring "
                     "0, otherwise)", f"{len(bad)} not integer-named", crash=True)
    numeric = [n for n in inst.frames if _is_int(os.path.splitext(n)[0])]
    if len(numeric) == len(inst.frames) and numeric != sorted(
            numeric, key=lambda n: int(os.path.splitext(n)[0])):
        inst.warnings.append(f"{inst.path / FRAMES}: frame names are not zero-padded; the "
                             "official evaluator reads them in name order "
                             f"({', '.join(inst.frames[:3])}, ...)")


def _is_int(text: str) -> bool:
    try:
        int(text)
    except ValueError:
        return False
    return True
