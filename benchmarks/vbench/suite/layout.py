"""VBench's standard layout and the `{name}_full_info.json` it writes (spec §2, §3, §9.14).

Upstream (`VBench.build_full_info_json`, vbench/__init__.py:144-162 at 45e79ec) takes,
for every full-info entry whose dimension list meets the requested dimensions, the videos
`f"{prompt_en}{special_str}-{i}{suffix}"` for i = 0..4 that are in `os.listdir(videos_path)`
(an exact, case-sensitive membership test), and keeps the entry even when none is there.

The suffix. Upstream takes the extension of `os.listdir(videos_path)[0]`: whichever file
the file system lists first. When every entry of the folder has one suffix that is the
same whatever the order, and we take it. When the folder mixes suffixes (`.mp4` and `.avi`;
a stray `.DS_Store`, whose suffix is '' and with which upstream reports every video
missing), upstream's result depends on the listing order. Here the choice is deterministic:
the suffix that matches the most expected names (ties: more files with it, then `.mp4`,
then the smaller string), and a note names the suffixes and what upstream finds with each
one listed first. An empty folder is an InputError (upstream: IndexError).

custom_input and vbench_category live in custom_modes.py; the Layout is shared.
"""

import collections
import dataclasses
import json
import os
import pathlib
import re
from typing import Dict, List, Optional, Sequence, Tuple

from benchmarks.common.errors import InputError
from benchmarks.vbench.suite import prompt_suite

STANDARD, CUSTOM_INPUT, CATEGORY = "vbench_standard", "custom_input", "vbench_category"
VIDEOS_PER_PROMPT = 5  # indices 0..4 (prompts/README.md: 5 seeds per prompt)
_INDEXED = re.compile(r"(.*)-([0-9]+)")


@dataclasses.dataclass(frozen=True)
class LayoutEntry:
    """One entry of the full-info list a mode builds.

    Attributes:
      prompt_en: the prompt the dimensions read.
      dimension: the entry's dimensions (standard: the suite entry's own list; the other
        modes: the requested dimensions upstream accepts there).
      video_list: the videos found, as upstream writes them: os.path.join(videos_path, name).
      missing: standard mode: the expected file names not in the folder.
      suite_entry: standard mode: the suite entry (auxiliary_info, raw key order).
    """

    prompt_en: str
    dimension: Tuple[str, ...]
    video_list: Tuple[str, ...]
    missing: Tuple[str, ...] = ()
    suite_entry: Optional[prompt_suite.Entry] = None

    @property
    def auxiliary_info(self):
        """The suite entry's auxiliary_info (None outside standard mode or where absent)."""
        return self.suite_entry.auxiliary_info if self.suite_entry else None


@dataclasses.dataclass(frozen=True)
class Layout:
    """A videos folder (or file) matched as one of upstream's three modes does.

    Attributes:
      mode: STANDARD, CUSTOM_INPUT or CATEGORY.
      videos_path: as given (the prefix of every video_list path).
      dimensions: the requested dimensions the mode evaluates (minus `refused`).
      entries: in upstream's order (suite order; custom/category: file names sorted);
        entries with an empty video_list are kept, as upstream keeps them.
      missing: every expected file name that is absent, once each, in entry order
        (standard mode; upstream prints one warning per name).
      unmatched: (file name, why) for each entry of the folder no LayoutEntry uses.
      suffix: the suffix standard mode looked for (None in the other modes).
      suffix_rule: how it was chosen.
      refused: (dimension, why) for requested dimensions the mode cannot evaluate
        (custom_input and category refuse those needing auxiliary_info).
      unprompted: custom_input with a prompt file: the videos it gives no prompt for
        (left out of `entries`; upstream stops with an assertion).
      notes: what a user should know (upstream's behaviour where ours differs).
    """

    mode: str
    videos_path: str
    dimensions: Tuple[str, ...]
    entries: Tuple[LayoutEntry, ...]
    missing: Tuple[str, ...] = ()
    unmatched: Tuple[Tuple[str, str], ...] = ()
    suffix: Optional[str] = None
    suffix_rule: str = ""
    refused: Tuple[Tuple[str, str], ...] = ()
    unprompted: Tuple[str, ...] = ()
    notes: Tuple[str, ...] = ()


def listing(videos_path, what: str) -> List[str]:
    """os.listdir of a folder, sorted; InputError naming it when it is no folder."""
    try:
        return sorted(os.listdir(videos_path))
    except FileNotFoundError as e:
        raise InputError(videos_path, what, "no such file or folder") from e
    except NotADirectoryError as e:
        raise InputError(videos_path, what, "a file") from e
    except OSError as e:
        raise InputError(videos_path, what, f"{type(e).__name__}: {e}") from e


def _suffix(name: str) -> str:
    """The suffix as upstream reads it: pathlib's ('' for '.DS_Store', '.gz' for 'a.tar.gz')."""
    return pathlib.PurePath(name).suffix


def _expected(entry, special_str: str, suffix: str) -> List[str]:
    return [f"{entry.prompt_en}{special_str}-{i}{suffix}" for i in range(VIDEOS_PER_PROMPT)]


def _choose_suffix(names, selected, special_str) -> Tuple[str, str, Tuple[str, ...]]:
    counts = collections.Counter(_suffix(n) for n in names)
    if len(counts) == 1:
        (only,) = counts
        return only, f"every entry of the folder has the suffix {only!r}", ()
    present = set(names)
    found = {s: sum(n in present for e in selected for n in _expected(e, special_str, s))
             for s in counts}
    ranked = sorted(counts, key=lambda s: (-found[s], -counts[s], s != ".mp4", s))
    chosen = ranked[0]
    listed = ", ".join(f"{s!r} ({counts[s]} entries, {found[s]} expected videos)"
                       for s in ranked)
    rule = (f"the folder mixes suffixes: {listed}; took {chosen!r}, the one matching the "
            "most expected names")
    note = (f"{rule}. Upstream takes the suffix of whichever file os.listdir() lists first, "
            "so its result depends on the listing order (with each suffix above first it "
            "finds the number of expected videos shown)")
    return chosen, rule, (note,)


def _unmatched_reason(name, suffix, special_str, by_prompt, selected_prompts, path) -> str:
    if os.path.isdir(os.path.join(path, name)):
        return "a folder"
    if _suffix(name) != suffix:
        return f"suffix {_suffix(name)!r}, not {suffix!r} (the suffix standard mode looks for)"
    stem = name[:len(name) - len(suffix)]
    match = _INDEXED.fullmatch(stem)
    if not match:
        return f"not named <prompt>{special_str}-<0..4>{suffix}"
    base, index = match.groups()
    if not base.endswith(special_str):
        return f"does not end in the special_str {special_str!r} before -<index>"
    prompt = base[:len(base) - len(special_str)]
    if prompt not in by_prompt:
        return "no prompt of the suite is named so"
    if index not in {str(i) for i in range(VIDEOS_PER_PROMPT)}:
        return f"index {index}: standard mode reads only -0 to -{VIDEOS_PER_PROMPT - 1}"
    if prompt not in selected_prompts:
        dims = sorted({d for e in by_prompt[prompt] for d in e.dimension})
        return f"its prompt serves {', '.join(dims)}, none of the requested dimensions"
    return "unused"  # unreachable: a selected prompt's 0..4 name with the suffix is used


def standard(videos_path, entries: Sequence[prompt_suite.Entry], dimensions: Sequence[str],
             special_str: str = "") -> Layout:
    """The vbench_standard layout (upstream :144-162; the suffix rule in the module
    docstring). `entries` are the suite's; InputError when videos_path is no folder or is
    empty."""
    videos_path = os.fspath(videos_path)
    names = listing(videos_path, "--videos_path: a folder of VBench videos (<prompt>-<0..4>.mp4)")
    if not names:
        raise InputError(videos_path, "--videos_path: a folder of VBench videos "
                         "(<prompt>-<0..4>.mp4)", "an empty folder")
    wanted = set(dimensions)
    selected = [e for e in entries if wanted & set(e.dimension)]
    suffix, rule, notes = _choose_suffix(names, selected, special_str)
    present = set(names)
    built, missing, used = [], {}, set()
    for entry in selected:
        expected = _expected(entry, special_str, suffix)
        found = [n for n in expected if n in present]
        used.update(found)
        absent = tuple(n for n in expected if n not in present)
        missing.update(dict.fromkeys(absent))
        built.append(LayoutEntry(entry.prompt_en, entry.dimension,
                                 tuple(os.path.join(videos_path, n) for n in found),
                                 absent, entry))
    by_prompt: Dict[str, list] = collections.defaultdict(list)
    for entry in entries:
        by_prompt[entry.prompt_en].append(entry)
    selected_prompts = {e.prompt_en for e in selected}
    unmatched = tuple(
        (n, _unmatched_reason(n, suffix, special_str, by_prompt, selected_prompts, videos_path))
        for n in names if n not in used)
    return Layout(STANDARD, videos_path, tuple(d for d in dimensions), tuple(built),
                  tuple(missing), unmatched, suffix, rule, notes=notes)


def full_info(layout: Layout) -> List[Dict[str, object]]:
    """The list upstream writes to `{name}_full_info.json` (:165-167): standard mode, the
    suite object as read with `video_list` set (appended, or in place where the object
    already had one, as a dict assignment does); the other modes
    `{prompt_en, dimension, video_list}`."""
    out = []
    for entry in layout.entries:
        if entry.suite_entry is not None:
            record = dict(entry.suite_entry.raw)
        else:
            record = {"prompt_en": entry.prompt_en, "dimension": list(entry.dimension)}
        record["video_list"] = list(entry.video_list)
        out.append(record)
    return out


def full_info_text(layout: Layout) -> str:
    """`{name}_full_info.json`'s text, byte for byte as upstream's save_json writes it
    (json.dump, indent 4, ASCII escapes, no trailing newline; utils.py save_json)."""
    return json.dumps(full_info(layout), indent=4)
