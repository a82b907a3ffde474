"""The dataset side: WorldScore-Dataset/{static,dynamic}/{static,dynamic}.json (spec §2).

Each file is a JSON list of entries. An entry's generated folder (dataloader.py::
load_data) is `static/<visual_style>/<scene_type>/<category>/<name>` or
`dynamic/<visual_style>/<motion_type>/<name>`, with category = the image path's parent
folder and name = its file name up to the first "." (`split(".")[0]`, not the stem).
`cross_check` names every entry absent from the generated tree and every generated
instance no entry asks for.
"""

import dataclasses
import os
import pathlib
from typing import Dict, List, Sequence, Tuple

from benchmarks.common.errors import InputError
from benchmarks.worldscore import aspects
from benchmarks.worldscore import official_json

DATASET_DIR = "WorldScore-Dataset"
_REQUIRED = {
    aspects.STATIC: ("visual_movement", "visual_style", "scene_type", "camera_path", "image",
                     "style", "prompt_list", "content_list"),
    aspects.DYNAMIC: ("visual_movement", "visual_style", "motion_type", "camera_path",
                      "image", "style", "prompt", "objects", "masks"),
}


@dataclasses.dataclass(frozen=True)
class Entry:
    key: str          # the instance folder relative to worldscore_output/
    movement: str
    position: int     # index in the dataset file
    data: dict

    @property
    def num_scenes(self) -> int:
        return len(self.data["camera_path"])  # every layout has scenenum 1

    def total_frames(self, frames_per_scene: int) -> int:
        """DataLoader.set_interpframe_num with the model config's `frames`."""
        return self.num_scenes * (frames_per_scene - 1) + 1

    def anchor_frame_idx(self, frames_per_scene: int) -> List[int]:
        return [i * (frames_per_scene - 1) for i in range(self.num_scenes + 1)]


def json_path(data_root: os.PathLike, movement: str) -> pathlib.Path:
    return pathlib.Path(data_root) / DATASET_DIR / movement / f"{movement}.json"


def instance_key(entry: dict, movement: str) -> str:
    image = entry["image"].split("/")
    name = image[-1].split(".")[0]
    if movement == aspects.STATIC:
        return "/".join((movement, entry["visual_style"], entry["scene_type"], image[-2], name))
    return "/".join((movement, entry["visual_style"], entry["motion_type"], name))


def parse(data, path, movement: str) -> List[Entry]:
    """The entries of one dataset file; InputError naming `path` and the entry for
    anything that is not the official shape."""
    if not isinstance(data, list):
        raise InputError(path, f"a JSON list of {movement} entries", type(data).__name__)
    entries, seen = [], {}
    for i, entry in enumerate(data):
        if not isinstance(entry, dict):
            raise InputError(path, f"entry {i} to be an object", type(entry).__name__)
        missing = [k for k in _REQUIRED[movement] if k not in entry]
        if missing:
            raise InputError(path, f"entry {i} to have " + ", ".join(_REQUIRED[movement]),
                             "no " + ", ".join(missing))
        if entry["visual_movement"] != movement:
            raise InputError(path, f"entry {i}: visual_movement {movement!r}",
                             repr(entry["visual_movement"]))
        layouts = entry["camera_path"]
        if not isinstance(layouts, list) or not layouts or any(
                c not in aspects.LAYOUT_TYPES for c in layouts):
            raise InputError(path, f"entry {i}: camera_path, a list of layouts of "
                             + ", ".join(aspects.LAYOUT_TYPES), repr(layouts))
        if not isinstance(entry["image"], str) or (
                movement == aspects.STATIC and "/" not in entry["image"]):
            raise InputError(path, f"entry {i}: image as <category>/<name>.<ext>",
                             repr(entry["image"]))
        key = instance_key(entry, movement)
        if key in seen:
            raise InputError(path, "each instance once", f"{key} at entries {seen[key]} and {i}")
        seen[key] = i
        entries.append(Entry(key, movement, i, entry))
    return entries


def load(data_root: os.PathLike, movement: str) -> List[Entry]:
    path = json_path(data_root, movement)
    return parse(official_json.read_json(path, f"WorldScore's {movement}.json (the "
                                         "Howieeeee/WorldScore dataset, unzipped)"),
                 path, movement)


def mask_problems(data_root: os.PathLike, entry: Entry) -> List[str]:
    """A dynamic entry's first-frame masks: the folder of masks[0] must hold them (the
    official motion_accuracy takes every .png/.jpg there as one object). The paths are
    relative to dataset_root, i.e. <data_root>/WorldScore-Dataset (base_config.yaml)."""
    masks = entry.data["masks"]
    if not isinstance(masks, list) or not masks or not isinstance(masks[0], str):
        return [f"{entry.key}: expected masks, a list of mask paths, found {masks!r}"]
    folder = pathlib.Path(data_root) / DATASET_DIR / os.path.dirname(masks[0])
    found = [f for f in os.listdir(folder) if f.endswith((".png", ".jpg"))] \
        if folder.is_dir() else []
    if not found:
        return [f"{folder}: expected the first-frame object masks of {entry.key} "
                "(.png/.jpg), found none"]
    return []


def cross_check(entries: Sequence[Entry], generated_keys: Sequence[str]
                ) -> Tuple[List[str], List[str]]:
    """(dataset keys with no generated folder, generated keys with no dataset entry)."""
    wanted: Dict[str, Entry] = {e.key: e for e in entries}
    found = set(generated_keys)
    return (sorted(k for k in wanted if k not in found),
            sorted(k for k in found if k not in wanted))
