"""VBench's custom_input and vbench_category modes (spec §2; vbench/__init__.py:46-142 at
45e79ec).

custom_input: a single video, or one entry per video of a folder, its prompt the file
name's stem less a trailing `-<digits>` (utils.py get_prompt_from_filename), or `--prompt`
(one file), or a prompt file `{video_path: prompt}` whose keys are joined onto the folder
(the way for prompts too long to be file names, upstream issue #79). Upstream asserts when a
refused dimension is asked for or a video has no prompt in the file; here the first are
`Layout.refused` (the scorecard's "unavailable") and the second `Layout.unprompted`.

vbench_category cannot run as shipped: evaluate.py:134-135 always passes `category`
(None without --category, then an assert), and the category's prompt list is opened at
vbench/prompts_per_category/, which neither the repository nor the wheel has
(:111,125). Here its intent: each line of the category's prompt file (the repository's
prompts/prompts_per_category/<category>.txt) takes every video whose stem starts with it
(a prefix test, any number of videos, one video may serve several prompts; :128-142).

Which files are videos: upstream's custom_input takes .mp4/.gif (any case; the wheel also
.jpg/.png), its category mode .mp4/.gif/.jpg/.png. Both modes here take .mp4 and .gif and
the other containers the OpenCV decoder reads (EXTRA_VIDEO_SUFFIXES, with a note: upstream
skips them); still images are not videos here (listed in `unmatched`). Folders are listed
in sorted order; upstream follows os.listdir()'s order, so its entries are the same up to
order.
"""

import json
import os
import pathlib
import re
from typing import Dict, List, Optional, Sequence, Tuple

from benchmarks.common.errors import InputError
from benchmarks.vbench.suite import layout as layout_lib

# Dimensions that read the suite's auxiliary_info: custom modes refuse them (:21-26).
NEEDS_AUXILIARY_INFO = ("object_class", "multiple_objects", "scene", "appearance_style",
                        "color", "spatial_relationship")
UPSTREAM_VIDEO_SUFFIXES = (".mp4", ".gif")
EXTRA_VIDEO_SUFFIXES = (".avi", ".mov", ".mkv", ".webm", ".m4v")
STILL_IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png")
_TRAILING_INDEX = re.compile(r"-\d+$")


def prompt_from_filename(path) -> str:
    """The stem less one trailing `-<digits>`: `a cat-3.mp4` -> `a cat`
    (get_prompt_from_filename, utils.py:375-384)."""
    return _TRAILING_INDEX.sub("", pathlib.PurePath(path).stem, count=1)


def _refused(dimensions: Sequence[str]) -> Tuple[Tuple[Tuple[str, str], ...], Tuple[str, ...]]:
    why = ("needs the prompt suite's auxiliary_info: upstream refuses it outside "
           "vbench_standard (vbench/__init__.py:21-26)")
    refused = tuple((d, why) for d in dimensions if d in NEEDS_AUXILIARY_INFO)
    return refused, tuple(d for d in dimensions if d not in NEEDS_AUXILIARY_INFO)


def _videos(folder: str, names) -> Tuple[List[str], List[Tuple[str, str]], List[str]]:
    """The video file names, (name, why) for the rest, and the extra-suffix names."""
    videos, unmatched, extra = [], [], []
    for name in names:
        suffix = pathlib.PurePath(name).suffix.lower()
        if os.path.isdir(os.path.join(folder, name)):
            unmatched.append((name, "a folder"))
        elif suffix in UPSTREAM_VIDEO_SUFFIXES + EXTRA_VIDEO_SUFFIXES:
            videos.append(name)
            if suffix in EXTRA_VIDEO_SUFFIXES:
                extra.append(name)
        elif suffix in STILL_IMAGE_SUFFIXES:
            unmatched.append((name, "a still image, not a video (the vbench wheel's "
                              "custom_input and upstream's category mode take .jpg/.png as "
                              "one-frame videos; the repository's custom_input skips them)"))
        else:
            unmatched.append((name, f"suffix {suffix or 'none'}: not a video suffix "
                              f"({', '.join(UPSTREAM_VIDEO_SUFFIXES + EXTRA_VIDEO_SUFFIXES)})"))
    return videos, unmatched, extra


def _extra_note(extra) -> Tuple[str, ...]:
    if not extra:
        return ()
    return (f"{len(extra)} videos have a suffix upstream skips (it takes "
            f"{'/'.join(UPSTREAM_VIDEO_SUFFIXES)}) and are evaluated here: "
            f"{', '.join(extra[:5])}{' ...' if len(extra) > 5 else ''}",)


def read_prompt_file(path) -> Dict[str, str]:
    """A prompt file `{video_path: prompt}`; InputError naming it when it is not one."""
    what = "a JSON object {video_path: prompt} (--prompt_file)"
    try:
        data = json.loads(pathlib.Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError as e:
        raise InputError(path, what, "no such file") from e
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
        raise InputError(path, what, f"{type(e).__name__}: {e}") from e
    if not isinstance(data, dict):
        raise InputError(path, what, type(data).__name__)
    if not data:
        raise InputError(path, what + " with at least one video", "an empty object "
                         "(upstream then silently reads prompts from file names)")
    bad = [k for k, v in data.items() if not isinstance(v, str)]
    if bad:
        raise InputError(path, what + " with string prompts", f"{bad[0]!r}: {data[bad[0]]!r}")
    return data


def custom_input(videos_path, dimensions: Sequence[str], prompt: Optional[str] = None,
                 prompt_file=None) -> layout_lib.Layout:
    """The custom_input layout (:46-106).

    Args:
      videos_path: one video file, or a folder of videos.
      dimensions: the requested dimensions; those needing auxiliary_info are returned in
        `refused`, the rest become every entry's `dimension`.
      prompt: one video's prompt (upstream's --prompt); with a folder an InputError
        (upstream crashes indexing the list by path).
      prompt_file: a JSON `{video_path: prompt}`; keys are joined onto the folder (onto the
        video's folder for a single file) and compared as absolute paths, as upstream
        does. Videos it does not cover are `unprompted`, not entries.
    """
    videos_path = os.fspath(videos_path)
    if prompt is not None and prompt_file is not None:
        raise InputError(prompt_file, "either --prompt or --prompt_file, not both")
    refused, kept = _refused(dimensions)
    prompts = None if prompt_file is None else read_prompt_file(prompt_file)
    notes: Tuple[str, ...] = ()
    unmatched: List[Tuple[str, str]] = []
    if os.path.isfile(videos_path):
        videos = [videos_path]
        base = os.path.dirname(videos_path)
        if prompts is not None:
            notes = ("a prompt file with a single video is read as with a folder (upstream "
                     "raises KeyError for a one-key file and ignores a longer one)",)
    else:
        if prompt is not None:
            raise InputError(videos_path, "a single video file with --prompt (for a folder "
                             "give --prompt_file {video_path: prompt})", "a folder")
        names, unmatched, extra = _videos(
            videos_path, layout_lib.listing(videos_path, "--videos_path: a video file or a folder of videos"))
        videos = [os.path.join(videos_path, n) for n in names]
        base = videos_path
        notes = _extra_note(extra)
    by_path = None
    if prompts is not None:
        by_path = {os.path.abspath(os.path.join(base, k)): v for k, v in prompts.items()}
        used = {os.path.abspath(v) for v in videos}
        spare = [k for k in prompts if os.path.abspath(os.path.join(base, k)) not in used]
        if spare:
            notes += (f"{len(spare)} prompt file keys name no video here, e.g. {spare[0]!r}",)
    entries, unprompted = [], []
    for video in videos:
        if by_path is None:
            text = prompt if prompt is not None else prompt_from_filename(video)
        elif os.path.abspath(video) in by_path:
            text = by_path[os.path.abspath(video)]
        else:
            unprompted.append(os.path.basename(video))
            continue
        entries.append(layout_lib.LayoutEntry(text, kept, (video,)))
    return layout_lib.Layout(layout_lib.CUSTOM_INPUT, videos_path, kept, tuple(entries),
                             unmatched=tuple(unmatched), refused=refused,
                             unprompted=tuple(unprompted), notes=notes)


def category_prompts(category: str, prompts_path) -> List[str]:
    """The category's prompts: `prompts_path` is the file, or a folder holding
    `<category>.txt` (the repository's prompts/prompts_per_category/). Lines are stripped
    as upstream does; blank lines are skipped (upstream's '' would take every video)."""
    if not category:
        raise InputError(prompts_path, "a category name (--category) for vbench_category")
    path = pathlib.Path(prompts_path)
    if path.is_dir():
        known = sorted(p.stem for p in path.glob("*.txt"))
        if category not in known:
            raise InputError(path, f"{category}.txt: a category of {', '.join(known) or 'none'}",
                             f"no {category}.txt")
        path = path / f"{category}.txt"
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except FileNotFoundError as e:
        raise InputError(path, f"the prompt list of category {category!r}", "no such file") from e
    except (OSError, UnicodeDecodeError) as e:
        raise InputError(path, f"the prompt list of category {category!r} (UTF-8 text)",
                         f"{type(e).__name__}: {e}") from e
    prompts = [line.strip() for line in lines if line.strip()]
    if not prompts:
        raise InputError(path, f"one prompt per line for category {category!r}", "no prompt")
    return prompts


def category(videos_path, category: str, dimensions: Sequence[str],
             prompts_path) -> layout_lib.Layout:
    """The vbench_category layout as upstream intends it (:108-142; see the module
    docstring): one entry per prompt of the category, in the file's order, with every
    video of the folder whose stem starts with the prompt."""
    videos_path = os.fspath(videos_path)
    prompts = category_prompts(category, prompts_path)
    refused, kept = _refused(dimensions)
    names, unmatched, extra = _videos(
        videos_path, layout_lib.listing(videos_path, "--videos_path: a folder of videos"))
    entries, used = [], set()
    for text in prompts:
        mine = [n for n in names if pathlib.PurePath(n).stem.startswith(text)]
        used.update(mine)
        entries.append(layout_lib.LayoutEntry(
            text, kept, tuple(os.path.join(videos_path, n) for n in mine)))
    unmatched += [(n, f"its stem starts with no prompt of category {category!r}")
                  for n in names if n not in used]
    empty = sum(not e.video_list for e in entries)
    notes = _extra_note(extra) + (
        "vbench_category does not run as shipped upstream (evaluate.py:134-135, "
        "vbench/__init__.py:111,125); this is its intent, a stem prefix match",)
    if empty:
        notes += (f"{empty} of the category's {len(entries)} prompts have no video",)
    return layout_lib.Layout(layout_lib.CATEGORY, videos_path, kept, tuple(entries),
                             unmatched=tuple(sorted(unmatched)), refused=refused, notes=notes)
