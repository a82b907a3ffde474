"""Physics-IQ Verified's prompts: the descriptions CSVs built from upstream's data.yaml.

What upstream does (spec §10 "Prompts"; google-deepmind/physics-iq-benchmark @ 023e069:
physiq/dataset.py, physiq/templater/base.py, physiq/templater/physiq_verified.py,
physiq/generate_descriptions.py), reproduced byte for byte by `render`:

Input. `descriptions/data.yaml`: {"scenes": [scene, ...]}; per scene the required `scene`
(name) and `category` strings and `takes` list, and the optional strings `description`,
`subject-action`, `scene-description`, `pre-action-scene-description`,
`subject-action-postfix` (dataset.py:30-55; pydantic with populate_by_name, so each may
also be spelled as its Python name, e.g. `subject_action`; the hyphenated key wins when both
are there, even when it is null). Other keys are ignored. A take is {"take": N, <view>: id,
...}: every key but `take` is a view (perspective) name, in the file's order.

Rows (dataset.py:92-124). One row per (scene, take, view) with its id; rows sorted by id.
`scenario` is `{id:04}_perspective-{view}_take-{take}_trimmed-{scene}.mp4` and
`generated_video_name` `{id:04}_perspective-{view}_trimmed-{scene}.mp4` (Python's `04`:
zero-padded to 4 characters, sign included, never cut).

Prompts (templater/base.py:50-147, physiq_verified.py:29-88). A missing field is "";
nothing is stripped (a field of spaces is kept, only "" is dropped); a missing
subject-action is NOT an error (base.py:96-103 turn it into "" before the NaN check). The
action is the subject-action, plus " " and the postfix when the postfix is not "" and the
suffix is on (the default; `--no-action-suffix` turns it off): with no subject-action that
leaves a leading space. Then, with CAMERA, STYLE and SETUP_ONLY the three fixed sentences:
  base:   " ".join of the non-"" of CAMERA, STYLE, SETUP_ONLY, pre-action, scene, action;
  pvideo: ", ".join of the non-"" of action, " ".join(non-"" pre-action, scene), CAMERA,
          STYLE, SETUP_ONLY;
  sora2:  "Style: STYLE\\n\\n{" ".join(non-"" pre-action, scene, SETUP_ONLY)}\\n\\n"
          "Cinematography:\\nCAMERA\\n\\nActions:\\n- {action}" (the action even when "").
`original` is no templater: it is dataset.py's build_original_descriptions (the scene's
`description`, not `description-factual`; "" when missing), which the shipped
descriptions_original.csv equals (physiq/tests/test_descriptions.py).

CSV (generate_descriptions.py:49-65: pandas `to_csv(index=False)`): header
scenario,description,category,generated_video_name; UTF-8 without BOM; "\\n" line ends
(os.linesep on upstream's Linux/macOS); a field is put in double quotes (inner quotes
doubled) when it holds `,`, `"`, "\\n" or "\\r". That last one is the csv module of Python
3.13+ (upstream's .python-version is 3.14); on 3.12 and older a lone "\\r" is left unquoted
(testdata/prompts_official.json records both).

Where we differ, on input upstream takes but should not: an id or take number must be an
int (pydantic also takes True, 1.0 and "7"); ids must be unique (upstream sorts with an
unstable sort, so equal ids have no defined order); a file with no video at all is an
error (upstream fails with a KeyError). Anything upstream refuses, we refuse, naming the
file, the scene and the field.
"""

import dataclasses
import pathlib
from typing import Any, Dict, List, Optional, Sequence, Tuple

import yaml

from benchmarks.common.errors import InputError

TEMPLATES = ("base", "pvideo", "sora2")  # upstream's REGISTRY names
ORIGINAL = "original"
VARIANTS = TEMPLATES + (ORIGINAL,)
COLUMNS = ("scenario", "description", "category", "generated_video_name")

# templater/base.py:50-60: the fixed camera, style and action sentences.
CAMERA = ("Static locked-off single-shot with fixed frame throughout filmed with constant "
          "framerate in real-time.")
STYLE = "The scene shows a realistic scientific demonstration."
SETUP_ONLY = "The scene only contains the described setup and actions."

# Scene attribute -> (the data.yaml key, its Python-name spelling).
_TEXT_FIELDS = {
    "description": ("description", "description"),
    "subject_action": ("subject-action", "subject_action"),
    "scene_description": ("scene-description", "scene_description"),
    "pre_action": ("pre-action-scene-description", "pre_action_description"),
    "postfix": ("subject-action-postfix", "subject_action_postfix"),
}
_TAKE = "take"


@dataclasses.dataclass(frozen=True)
class Scene:
    """One data.yaml scene; a missing optional text is ""."""
    name: str
    category: str
    description: str
    subject_action: str
    scene_description: str
    pre_action: str
    postfix: str
    takes: Tuple[Tuple[int, Tuple[Tuple[str, int], ...]], ...]  # (take, ((view, id), ...))


@dataclasses.dataclass(frozen=True)
class Video:
    """One row: a (scene, take, view) and its id."""
    id: int
    take: int
    view: str
    scene: Scene

    @property
    def scenario(self) -> str:
        return (f"{self.id:04}_perspective-{self.view}_take-{self.take}_trimmed-"
                f"{self.scene.name}.mp4")

    @property
    def generated_video_name(self) -> str:
        return f"{self.id:04}_perspective-{self.view}_trimmed-{self.scene.name}.mp4"


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _scene(path: pathlib.Path, index: int, raw: Any) -> Scene:
    where = f"scenes[{index}]"
    if not isinstance(raw, dict):
        raise InputError(path, f"{where} to be a mapping (scene, category, takes, ...)",
                         type(raw).__name__)
    name = raw.get("scene")
    if not isinstance(name, str):
        raise InputError(path, f"{where}.scene: a string (the scene's name)", repr(name))
    where = f"scene {name!r}"
    for key in ("category", "takes"):
        if key not in raw:
            raise InputError(path, f"{where}: a `{key}` field", "none")
    if not isinstance(raw["category"], str):
        raise InputError(path, f"{where}.category: a string", repr(raw["category"]))
    texts = {}
    for attr, (key, python_name) in _TEXT_FIELDS.items():
        chosen = key if key in raw else python_name
        value = raw.get(chosen)
        if value is not None and not isinstance(value, str):
            raise InputError(path, f"{where}.{chosen}: a string or nothing", repr(value))
        texts[attr] = value or ""
    if not isinstance(raw["takes"], list):
        raise InputError(path, f"{where}.takes: a list of {{take: N, <view>: id, ...}}",
                         repr(raw["takes"]))
    takes = []
    for t, entry in enumerate(raw["takes"]):
        at = f"{where}.takes[{t}]"
        if not isinstance(entry, dict) or _TAKE not in entry:
            raise InputError(path, f"{at}: a mapping with `take` and view: id pairs",
                             repr(entry))
        for key, value in entry.items():
            if not isinstance(key, str):
                raise InputError(path, f"{at}: view names that are strings", repr(key))
            if not _is_int(value):
                raise InputError(path, f"{at}.{key}: an integer", repr(value))
        views = tuple((k, v) for k, v in entry.items() if k != _TAKE)
        takes.append((entry[_TAKE], views))
    return Scene(name=name, category=raw["category"], takes=tuple(takes), **texts)


def load(path: pathlib.Path) -> List[Scene]:
    """The scenes of a data.yaml (yaml.safe_load, as dataset.py:63-66), checked."""
    path = pathlib.Path(path)
    try:
        raw = yaml.safe_load(path.read_text(encoding="utf-8"))
    except OSError as e:
        raise InputError(path, "a readable data.yaml", e.strerror or str(e)) from e
    except (yaml.YAMLError, UnicodeDecodeError) as e:
        raise InputError(path, "a UTF-8 YAML file", f"{type(e).__name__}: {e}") from e
    if not isinstance(raw, dict) or not isinstance(raw.get("scenes"), list):
        raise InputError(path, "a mapping with a `scenes` list (upstream's "
                         "descriptions/data.yaml)", type(raw).__name__ if not isinstance(
                             raw, dict) else f"keys {sorted(map(str, raw))}")
    return [_scene(path, i, s) for i, s in enumerate(raw["scenes"])]


def videos(scenes: Sequence[Scene], source: Optional[pathlib.Path] = None) -> List[Video]:
    """Every (scene, take, view), sorted by id (dataset.py:124); `source` names the file
    in errors."""
    out = [Video(id=vid, take=take, view=view, scene=scene)
           for scene in scenes for take, views in scene.takes for view, vid in views]
    if not out:
        raise InputError(source or "data.yaml", "at least one take with a view: id pair",
                         "no video")
    seen: Dict[int, Video] = {}
    for video in out:
        if video.id in seen:
            raise InputError(source or "data.yaml", "each video id once (rows are sorted "
                             "by id)", f"id {video.id} for {seen[video.id].scenario} and "
                             f"{video.scenario}")
        seen[video.id] = video
    return sorted(out, key=lambda v: v.id)


def _joined(separator: str, *parts: str) -> str:
    """Upstream's filter_empty join: drops "" only (whitespace is kept)."""
    return separator.join(part for part in parts if part != "")


def action(scene: Scene, action_suffix: bool = True) -> str:
    """The subject-action, plus " " and the postfix (base.py:94-111)."""
    if action_suffix and scene.postfix != "":
        return f"{scene.subject_action} {scene.postfix}"
    return scene.subject_action


def prompt(scene: Scene, variant: str, action_suffix: bool = True) -> str:
    """The description `variant` gives `scene`."""
    act = action(scene, action_suffix)
    if variant == "base":
        return _joined(" ", CAMERA, STYLE, SETUP_ONLY, scene.pre_action,
                       scene.scene_description, act)
    if variant == "pvideo":
        return _joined(", ", act, _joined(" ", scene.pre_action, scene.scene_description),
                       CAMERA, STYLE, SETUP_ONLY)
    if variant == "sora2":
        setting = _joined(" ", scene.pre_action, scene.scene_description, SETUP_ONLY)
        return (f"Style: {STYLE}\n\n{setting}\n\nCinematography:\n{CAMERA}\n\n"
                f"Actions:\n- {act}")
    if variant == ORIGINAL:
        return scene.description
    raise InputError("--template", f"one of {', '.join(VARIANTS)}", repr(variant))


def table(scenes: Sequence[Scene], variant: str, action_suffix: bool = True,
          source: Optional[pathlib.Path] = None) -> List[Tuple[str, str, str, str]]:
    """The CSV's rows (COLUMNS), in upstream's order."""
    if variant not in VARIANTS:
        raise InputError("--template", f"one of {', '.join(VARIANTS)}", repr(variant))
    return [(v.scenario, prompt(v.scene, variant, action_suffix), v.scene.category,
             v.generated_video_name) for v in videos(scenes, source)]


def _field(text: str) -> str:
    if any(c in text for c in ',"\n\r'):
        return '"' + text.replace('"', '""') + '"'
    return text


def to_csv(rows: Sequence[Sequence[str]]) -> bytes:
    """The bytes pandas' to_csv(index=False) writes for these rows under COLUMNS."""
    lines = [",".join(_field(cell) for cell in row) + "\n" for row in [COLUMNS, *rows]]
    return "".join(lines).encode("utf-8")


def render(data_yaml: pathlib.Path, variant: str, action_suffix: bool = True) -> bytes:
    """The descriptions CSV upstream writes for `data_yaml` and `variant`."""
    return to_csv(table(load(data_yaml), variant, action_suffix, pathlib.Path(data_yaml)))
