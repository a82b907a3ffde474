"""A run's videos: the mode's layout (suite/) turned into the samples the engine scores.

Each distinct video file the layout's entries list is one sample (`sample.Item`): its
dimensions are the requested ones of every entry that lists it (the suite's two duplicate
prompts list the same file for disjoint dimensions), each dimension with the entry's
auxiliary_info as upstream's load_dimension_info hands it on. A missing video (standard
mode) is an item without a path: assigned to a shard like the others, named in coverage,
never scored. `order[d]` is the official per-dimension video order (entries in order,
each entry's video_list in order), the order of `{name}_eval_results.json`'s lists.
"""

import dataclasses
import os
import pathlib
from typing import Dict, List, Optional, Tuple

from benchmarks.common.errors import InputError
from benchmarks.vbench import metric_specs
from benchmarks.vbench import sample as sample_lib
from benchmarks.vbench.suite import custom_modes
from benchmarks.vbench.suite import layout as layout_lib
from benchmarks.vbench.suite import prompt_suite

MODES = (layout_lib.STANDARD, layout_lib.CUSTOM_INPUT, layout_lib.CATEGORY)


@dataclasses.dataclass(frozen=True)
class Laid:
    """The run's layout and its samples.

    Attributes:
      layout: the mode's Layout (entries, missing, unmatched, suffix, refused, notes).
      videos: one Item per expected video, found (path set) or missing (path None), in
        first-listed order.
      order: per requested dimension, the names of its found videos in official order.
      video_path: name -> the path string upstream writes in video_list.
      refused: dimension -> why the mode cannot evaluate it.
      source: where the expected list came from (the scorecard's expected_source).
      suite: the prompt suite read (None in custom_input).
    """

    layout: layout_lib.Layout
    videos: Tuple[sample_lib.Item, ...]
    order: Dict[str, Tuple[str, ...]]
    video_path: Dict[str, str]
    refused: Dict[str, str]
    source: str
    suite: Optional[prompt_suite.Suite] = None

    @property
    def suite_path(self) -> Optional[str]:
        return self.suite.source if self.suite else None


def _layout(config, dimensions) -> Tuple[layout_lib.Layout, Optional[prompt_suite.Suite]]:
    folder = str(config.videos_path)
    if config.mode == layout_lib.CUSTOM_INPUT:
        return custom_modes.custom_input(folder, dimensions, prompt=config.prompt,
                                         prompt_file=config.prompt_file), None
    if config.mode == layout_lib.CATEGORY:
        if not config.category or not config.category_prompts:
            raise InputError("--category / --category_prompts", "vbench_category: the "
                             "category and its prompt file (VBench's prompts/"
                             "prompts_per_category/<category>.txt)", "not given")
        return custom_modes.category(folder, config.category, dimensions,
                                     config.category_prompts), None
    suite = prompt_suite.load(config.full_info_json)
    return layout_lib.standard(folder, suite.entries, dimensions,
                               special_str=config.special_str), suite


def _name(video: str, folder: str) -> str:
    """A video's sample id: its path under --videos_path (its file name where
    --videos_path is the video itself)."""
    if os.path.isdir(folder):
        return os.path.relpath(video, folder)
    return os.path.basename(video)


def lay_out(config, dimensions) -> Laid:
    """The run's videos; InputError (exit 2, before any work) for an unusable folder,
    suite or prompt file, and for videos a --prompt_file gives no prompt for."""
    layout, suite = _layout(config, dimensions)
    if layout.unprompted:
        raise InputError(config.prompt_file, "a prompt for every video of --videos_path",
                         f"none for {len(layout.unprompted)}: "
                         + ", ".join(layout.unprompted[:5]))
    folder = str(config.videos_path)
    dims_of: Dict[str, List[str]] = {}
    prompt_of: Dict[str, str] = {}
    aux_of: Dict[str, Dict[str, object]] = {}
    path_of: Dict[str, Optional[pathlib.Path]] = {}
    order: Dict[str, List[str]] = {d: [] for d in dimensions}
    video_path: Dict[str, str] = {}

    def add(name, entry, path):
        if name not in dims_of:
            dims_of[name], prompt_of[name], aux_of[name] = [], entry.prompt_en, {}
            path_of[name] = path
        for dim in entry.dimension:
            if dim in order and dim not in dims_of[name]:
                dims_of[name].append(dim)
                aux_of[name][dim] = (entry.auxiliary_info or {}).get(dim)

    for entry in layout.entries:
        for video in entry.video_list:
            name = _name(video, folder)
            video_path[name] = video
            add(name, entry, pathlib.Path(video))
            for dim in entry.dimension:
                if dim in order:
                    order[dim].append(name)
        for missing in entry.missing:
            add(missing, entry, None)
    rank = {d: k for k, d in enumerate(metric_specs.DIMENSIONS)}
    videos = tuple(sample_lib.Item(
        name=name, path=path_of[name], prompt=prompt_of[name], auxiliary=aux_of[name],
        dimensions=tuple(sorted(dims_of[name], key=rank.get))) for name in dims_of)
    source = (suite.source if suite else
              f"{layout.mode}: the videos of {folder}")
    return Laid(layout=layout, videos=videos,
                order={d: tuple(names) for d, names in order.items()},
                video_path=video_path, refused=dict(layout.refused), source=source,
                suite=suite)
