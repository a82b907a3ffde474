"""VMBench's prompt suite and video layout (spec §2).

The suite is the official `prompts/prompts.json`: a JSON list of 1,050 objects with the
keys prompt, subject, subject_noun, place, action and index ("0001" ... "1050"). A model's
videos are `<index>.mp4` in one flat folder. The official `create_meta_info.py` keeps the
prompts whose video exists and drops the rest silently; here the dropped ones are named
(coverage), and files that match no index are listed instead of ignored.
"""

import dataclasses
import json
import pathlib
import re
from typing import Dict, List, Sequence, Tuple

from benchmarks.common.errors import InputError

SUITE_SIZE = 1050
FIELDS = ("prompt", "subject", "subject_noun", "place", "action", "index")
VIDEO_SUFFIX = ".mp4"
_INDEX = re.compile(r"^[0-9]{4}$")


@dataclasses.dataclass(frozen=True)
class Prompt:
    """One entry of prompts.json; `entry` keeps the official object as read (key order)."""

    index: str
    subject_noun: str
    entry: Dict[str, object]


@dataclasses.dataclass(frozen=True)
class Layout:
    """A video folder matched against the suite.

    Attributes:
      videos: (prompt, path) for every prompt whose <index>.mp4 exists, in suite order.
      missing: suite indices with no video (the official code drops them silently).
      unmatched: files of the folder that are not <index>.mp4 for a suite index, each
        with why (another suffix, a name that is no index, an index not in the suite).
    """

    videos: Tuple[Tuple[Prompt, pathlib.Path], ...]
    missing: Tuple[str, ...]
    unmatched: Tuple[Tuple[str, str], ...]


def parse_manifest(data, path) -> List[Prompt]:
    """The prompts of an already-parsed prompts.json; InputError naming `path` when the
    shape is not the official one (not a list, an entry that is no object or lacks a
    field, an index that is not 4 digits, duplicate indices)."""
    if not isinstance(data, list):
        raise InputError(path, "a JSON list of prompt objects (VMBench prompts.json)",
                         type(data).__name__)
    prompts, seen = [], {}
    for position, entry in enumerate(data):
        where = f"entry {position}"
        if not isinstance(entry, dict):
            raise InputError(path, f"{where} to be an object", type(entry).__name__)
        lacking = [k for k in FIELDS if k not in entry]
        if lacking:
            raise InputError(path, f"{where} to have the keys {', '.join(FIELDS)}",
                             "no " + ", ".join(lacking))
        index = entry["index"]
        if not isinstance(index, str) or not _INDEX.match(index):
            raise InputError(path, f"{where}: index as a zero-padded 4-digit string "
                             "(\"0001\")", repr(index))
        if index in seen:
            raise InputError(path, "each index once", f"index {index} at entries "
                             f"{seen[index]} and {position}")
        seen[index] = position
        prompts.append(Prompt(index, str(entry["subject_noun"]), dict(entry)))
    if not prompts:
        raise InputError(path, "at least one prompt", "an empty list")
    return prompts


def read_json(path: pathlib.Path, what: str):
    """A JSON file's content; InputError naming it (and `what` it should be) when it is
    missing or not JSON."""
    path = pathlib.Path(path)
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError as e:
        raise InputError(path, what, "no such file") from e
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
        raise InputError(path, f"a JSON file ({what})", f"{type(e).__name__}: {e}") from e


def load_manifest(path: pathlib.Path) -> List[Prompt]:
    """Reads prompts.json; InputError naming the file when it is unreadable or malformed."""
    return parse_manifest(read_json(path, "VMBench's prompts.json (--prompt_manifest)"), path)


def missing_indices(prompts: Sequence[Prompt]) -> List[str]:
    """Suite indices 0001..N (N = the largest) absent from the manifest: a gap in an
    official-shaped suite, reported (the official loop would silently skip it)."""
    present = {p.index for p in prompts}
    top = max(int(p.index) for p in prompts)
    return [f"{i:04d}" for i in range(1, top + 1) if f"{i:04d}" not in present]


def discover(video_dir: pathlib.Path, prompts: Sequence[Prompt]) -> Layout:
    """Matches the flat `video_dir` against the suite; InputError if it is no folder."""
    video_dir = pathlib.Path(video_dir)
    if not video_dir.is_dir():
        raise InputError(video_dir, "a folder of <index>.mp4 videos (--video_dir)",
                         "a file" if video_dir.exists() else "nothing")
    by_index = {p.index: p for p in prompts}
    found: Dict[str, pathlib.Path] = {}
    unmatched = []
    for entry in sorted(video_dir.iterdir()):
        name = entry.name
        if name.startswith("."):
            continue
        stem, suffix = entry.stem, entry.suffix
        if entry.is_dir():
            unmatched.append((name, "a folder (videos are <index>.mp4 directly in --video_dir)"))
        elif suffix != VIDEO_SUFFIX:
            why = (f"suffix {suffix!r}, not .mp4" if suffix.lower() != VIDEO_SUFFIX
                   else "suffix .MP4: the official code looks for lowercase .mp4")
            unmatched.append((name, why))
        elif stem not in by_index:
            why = ("not a 4-digit suite index" if not _INDEX.match(stem)
                   else f"index {stem} is not in the prompt suite")
            unmatched.append((name, why))
        else:
            found[stem] = entry
    videos = tuple((p, found[p.index]) for p in prompts if p.index in found)
    missing = tuple(p.index for p in prompts if p.index not in found)
    return Layout(videos, missing, tuple(unmatched))
