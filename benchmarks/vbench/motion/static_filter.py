"""VBench's static filter for temporal_flickering: the decision and the selection (spec §5.3).

Upstream (vbench/cli/static_filter.py @45e79ec), `vbench static_filter` with the default
--filter_scope temporal_flickering:
  * Per video (`StaticFilter.infer`, :77-89; scored by static_scores.py): RAFT over ALL
    native RGB frames, the consecutive pairs and then the two loop pairs first -> last and
    last -> first (:82); each pair's score the mean of the int(0.02 * Hp * Wp) largest
    |flow| of the padded field (:40-54).
  * Thresholds (`set_params`, :72-74): thres = 3.0 * (min(H, W) / 256.0) (native H, W),
    count_num = round(2 * (T / 16.0)) (Python's banker's rounding; T all frames).
  * Decision (`check_static`, :57-69): walking the consecutive scores, NOT static once
    more than count_num of them exceed thres (count > count_num: strictly more); then
    not static if either loop score exceeds thres * count_num * 2 (so with count_num = 0,
    i.e. T <= 4, any loop score above 0 makes the video not static); else static.
  * Selection (`static_filter`, :120-162): the videos are `sorted(glob('*.mp4'))`, full
    paths compared as strings, so "-10" sorts before "-2"; a video's prompt is its file
    stem less a trailing "-<digits>" (utils.get_prompt_from_filename); videos whose
    prompt is not a temporal_flickering prompt are ignored; a prompt that already has 5
    static videos is not scored again (:153), so at most 5 per prompt, the first 5 in
    that order. The info file (`filtered_static_video.json` by default, :158-161) maps
    every prompt to {"static_count", "static_path"}; then each static video is copied to
    `{result_path}/filtered_videos/{prompt}-{i}.mp4`, i renumbered from 0 (:108-118), with
    a warning for each prompt with fewer than 5.

This module is the pure part (no torch): `is_static` from scores, `select` from file
names and a per-video flag, `write_outputs`. The prompts are the caller's (the suite's
temporal_flickering prompts, in the full-info order). Only upstream's default scope is
reproduced: 'all' and a JSON scope (no 5 cap there) are not.
"""

import glob
import json
import logging
import os
import pathlib
import re
import shutil
from typing import Callable, Dict, Iterable, List, Sequence, Tuple

MAX_STATIC_PER_PROMPT = 5
TOP_FRACTION = 0.02
INFO_FILE = "filtered_static_video.json"
FILTERED_FOLDER = "filtered_videos"
_NUMBER_ENDING = re.compile(r"-\d+$")


def prompt_of(path) -> str:
    """The prompt a video file names: its stem, less a trailing "-<digits>"."""
    return _NUMBER_ENDING.sub("", pathlib.Path(path).stem, count=1)


def thresholds(height: int, width: int, frame_count: int) -> Tuple[float, int]:
    """(thres, count_num) for native frames of height x width, frame_count frames."""
    return 3.0 * (min(height, width) / 256.0), round(2 * (frame_count / 16.0))


def is_static(consecutive: Sequence[float], loops: Sequence[float], thres: float,
              count_num: int) -> bool:
    """The decision of the module docstring from the consecutive and the 2 loop scores."""
    count = 0
    for value in consecutive:
        if value > thres:
            count += 1
        if count > count_num:
            return False
    return not any(value > thres * count_num * 2 for value in loops)


def video_paths(folder) -> List[str]:
    """The folder's '*.mp4' files as upstream lists them: sorted(glob) of the joined
    paths, lexicographic, hidden files left out (glob's rule)."""
    return sorted(glob.glob(os.path.join(os.fspath(folder), "*.mp4")))


def select(paths: Iterable[str], prompts: Sequence[str],
           static: Callable[[str], bool]) -> Dict[str, List[str]]:
    """{prompt: its static videos, in order, at most 5} for every prompt in `prompts`.

    Args:
        paths: The candidate videos; taken in sorted (string) order, as upstream does.
        prompts: The temporal_flickering prompts (duplicates collapse, first order kept).
        static: path -> whether the video is static; called only for a video whose
            prompt is in `prompts` and has fewer than 5 static videos so far.
    """
    chosen: Dict[str, List[str]] = {prompt: [] for prompt in prompts}
    for path in sorted(paths):
        prompt = prompt_of(path)
        if prompt in chosen and len(chosen[prompt]) < MAX_STATIC_PER_PROMPT and static(path):
            chosen[prompt].append(path)
    return chosen


def copies(chosen: Dict[str, List[str]], target) -> List[Tuple[str, pathlib.Path]]:
    """(source, target/{prompt}-{i}.mp4) for each chosen video, i from 0 per prompt."""
    target = pathlib.Path(target)
    return [(path, target / f"{prompt}-{i}.mp4")
            for prompt, paths in chosen.items() for i, path in enumerate(paths)]


def info(chosen: Dict[str, List[str]]) -> dict:
    """The info file's content: {prompt: {"static_count": n, "static_path": [...]}}."""
    return {prompt: {"static_count": len(paths), "static_path": list(paths)}
            for prompt, paths in chosen.items()}


def write_outputs(chosen: Dict[str, List[str]], result_path, info_name: str = INFO_FILE
                  ) -> pathlib.Path:
    """Writes the info file and the copies under `result_path`; returns the copies' folder."""
    result_path = pathlib.Path(result_path)
    result_path.mkdir(parents=True, exist_ok=True)
    (result_path / info_name).write_text(json.dumps(info(chosen)))
    target = result_path / FILTERED_FOLDER
    target.mkdir(exist_ok=True)
    for prompt, paths in chosen.items():
        if len(paths) < MAX_STATIC_PER_PROMPT:
            logging.warning("Prompt: '%s' has fewer than %d filter results.", prompt,
                            MAX_STATIC_PER_PROMPT)
    for source, destination in copies(chosen, target):
        shutil.copy(os.fspath(source), os.fspath(destination))
    return target
