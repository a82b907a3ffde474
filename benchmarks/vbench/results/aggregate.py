"""Each VBench dimension's official aggregate from its per-video rows, single-GPU semantics.

Upstream's `compute_<dimension>` returns `(aggregate, video_results)`; the aggregate is
built while the videos are scored, and on one GPU it is not always the mean of the
per-video values (spec §6):

  - subject_consistency, background_consistency: Σ frame-pair similarities / Σ frame pairs
    over all videos (`sim / cnt`, subject_consistency.py:68, background_consistency.py:64);
  - appearance_style: Σ frame values / Σ frames over all videos (appearance_style.py:73);
  - object_class, multiple_objects, scene: Σ successful frames / Σ frames;
  - spatial_relationship: np.mean over the frames of all videos (spatial_relationship.py:136);
  - imaging_quality: the mean of the 0-100 video values, then / 100 (imaging_quality.py:54-55);
  - color: the mean over the videos it kept (a video without the object has no entry);
  - human_action: correct videos / videos; dynamic_degree: np.mean of the bools;
  - the others: the mean of the video values.

Each rule adds in upstream's order and form (a running `+=`, `np.mean`, or builtin `sum`),
so the value is the official one to the last bit on the same interpreter (builtin `sum`
of floats is compensated from Python 3.12; `+=` is not).

A row (`VideoRow`) is one video's sample row: its columns (`d`, `d:num`, `d:den`,
benchmarks/vbench/dimension.py) and per dimension the extras of its official per-video
dict. Rows are given in the official list's order; a row without the dimension's column
is not in its list (upstream lists only videos it scored).

`DECLARATIONS` holds one entry per dimension: the rule, the JSON type of `video_results`
and the extra keys upstream writes after it, in its order.
"""

import dataclasses
from typing import Callable, Dict, List, Mapping, Sequence, Tuple

import numpy as np

from benchmarks.vbench import dimension as dimension_lib
from benchmarks.vbench import metric_specs

# JSON types of the extras (official_files writes them; the importer checks them).
INT = "int"
FLOAT = "float"
FLOAT_LIST = "float list"
NUMBER_LIST = "number list"   # spatial_relationship's frame_results: 0 and 1 are ints


class NoVideos(ValueError):
    """The dimension has no video to aggregate (upstream divides by zero, or np.mean([])
    gives NaN): an explicit reason, never a number."""


@dataclasses.dataclass(frozen=True)
class VideoRow:
    """One video's values, as its sample row carries them.

    Attributes:
      video_path: the official per-video dict's video_path.
      columns: the row's metric columns (`d`, and `d:num` / `d:den` where they pool).
      extras: per dimension, its official per-video dict's other keys.
    """

    video_path: str
    columns: Mapping[str, float]
    extras: Mapping[str, Mapping[str, object]] = dataclasses.field(default_factory=dict)

    def value(self, dimension: str) -> float:
        return self.columns[dimension]

    def extra(self, dimension: str, key: str):
        try:
            return self.extras[dimension][key]
        except KeyError:
            raise ValueError(f"{self.video_path}: {dimension} has no {key!r} among its "
                             "extras (the official per-video dict has it)") from None


def from_sample(sample, video_path: str) -> VideoRow:
    """The VideoRow of a scorecard_pb2.SampleScore (`sample.metrics`, its
    `vbench_extras/<d>` diagnostics)."""
    extras = {d: dimension_lib.extras_of(d, sample.diagnostics)
              for d in metric_specs.DIMENSIONS
              if dimension_lib.EXTRAS_KEY + d in sample.diagnostics}
    return VideoRow(video_path, dict(sample.metrics), extras)


Rule = Callable[[str, Sequence[VideoRow]], float]


def _frame_pairs(d: str, rows: Sequence[VideoRow]) -> float:
    """`sim += video_sim; cnt += 1 per pair`, then `sim / cnt`."""
    sim, cnt = 0.0, 0
    for row in rows:
        sim += row.columns[f"{d}:num"]
        cnt += int(row.columns[f"{d}:den"])
    return sim / cnt


def _all_frames(d: str, rows: Sequence[VideoRow]) -> float:
    """`sim += cur_sim` over every frame of every video, then `sim / cnt`. From the frame
    values themselves (frame_results): a sum of per-video sums rounds differently."""
    sim, cnt = 0.0, 0
    for row in rows:
        for value in row.extra(d, "frame_results"):
            sim += value
            cnt += 1
    return sim / cnt


def _np_mean(d: str, rows: Sequence[VideoRow]) -> float:
    """`np.mean(sim)` of the video values (pairwise summation); bools for dynamic_degree."""
    kind = DECLARATIONS[d].video_type
    return float(np.mean([kind(row.value(d)) for row in rows]))


def _running_mean(d: str, rows: Sequence[VideoRow]) -> float:
    """A running `+=` of the video values over a count (aesthetic_quality.py:68-72,
    color.py:83-89, human_action.py:96,109: booleans count 1)."""
    total, count = 0.0, 0
    for row in rows:
        total += row.value(d)
        count += 1
    return total / count


def _builtin_mean_over_100(d: str, rows: Sequence[VideoRow]) -> float:
    """`sum([video values]) / len(...)`, then `/ 100.` (imaging_quality.py:54-55)."""
    return sum([row.value(d) for row in rows]) / len(rows) / 100.


def _pooled_frame_results(d: str, rows: Sequence[VideoRow]) -> float:
    """`np.mean` over every video's frame_results, concatenated."""
    frames: List[float] = []
    for row in rows:
        frames.extend(row.extra(d, "frame_results"))
    return float(np.mean(frames))


def _success_frames(d: str, rows: Sequence[VideoRow]) -> float:
    """Σ success_frame_count / Σ frame_count (integers)."""
    success = sum(int(row.extra(d, "success_frame_count")) for row in rows)
    frames = sum(int(row.extra(d, "frame_count")) for row in rows)
    return success / frames


@dataclasses.dataclass(frozen=True)
class Declaration:
    """One dimension's aggregation and per-video dict.

    Attributes:
      rule: the single-GPU aggregate over its rows.
      video_type: `video_results`' JSON type (float, or bool).
      extras: (key, JSON type) of the dict's other keys, in upstream's order.
      source: where upstream builds the dict and the aggregate.
    """

    rule: Rule
    video_type: type = float
    extras: Tuple[Tuple[str, str], ...] = ()
    source: str = ""


_COUNTS = (("success_frame_count", INT), ("frame_count", INT))

DECLARATIONS: Dict[str, Declaration] = {
    "subject_consistency": Declaration(_frame_pairs, source="subject_consistency.py:56-68"),
    "background_consistency": Declaration(
        _frame_pairs, extras=(("video_sim", FLOAT), ("cnt_per_video", INT)),
        source="background_consistency.py:56-64"),
    "temporal_flickering": Declaration(_np_mean, source="temporal_flickering.py:52-63"),
    "motion_smoothness": Declaration(_np_mean, source="motion_smoothness.py:171-179"),
    "dynamic_degree": Declaration(_np_mean, bool, source="dynamic_degree.py:141-149"),
    "aesthetic_quality": Declaration(_running_mean, source="aesthetic_quality.py:45-73"),
    "imaging_quality": Declaration(_builtin_mean_over_100, source="imaging_quality.py:53-56"),
    "object_class": Declaration(_success_frames, extras=_COUNTS,
                                source="object_class.py:59-69"),
    "multiple_objects": Declaration(_success_frames, extras=_COUNTS,
                                    source="multiple_objects.py:63-73"),
    "human_action": Declaration(_running_mean, bool, (("cor_num_per_video", INT),),
                                source="human_action.py:93-110"),
    "color": Declaration(_running_mean, extras=(("cur_success_frame_rate", FLOAT),),
                         source="color.py:81-90"),
    "spatial_relationship": Declaration(
        _pooled_frame_results, extras=(("frame_results", NUMBER_LIST),),
        source="spatial_relationship.py:131-137"),
    "scene": Declaration(_success_frames, extras=_COUNTS, source="scene.py:53-63"),
    "temporal_style": Declaration(_np_mean, source="temporal_style.py:62-65"),
    "appearance_style": Declaration(
        _all_frames, extras=(("frame_results", FLOAT_LIST), ("cur_sim", FLOAT)),
        source="appearance_style.py:62-73"),
    "overall_consistency": Declaration(_np_mean, source="overall_consistency.py:61-64"),
}


def scored(dimension: str, rows: Sequence[VideoRow]) -> List[VideoRow]:
    """The rows in `dimension`'s official list: those with its value, in the given order."""
    return [row for row in rows if dimension in row.columns]


def aggregate(dimension: str, rows: Sequence[VideoRow]) -> float:
    """`dimension`'s official single-GPU aggregate over the rows that have its value.

    Raises:
      NoVideos: no row has it.
      ValueError: a row lacks an extra the rule reads.
    """
    kept = scored(dimension, rows)
    if not kept:
        raise NoVideos(f"{dimension}: no video has a value")
    return float(DECLARATIONS[dimension].rule(dimension, kept))


# The two dimensions whose torchrun aggregate differs from the single-GPU one (spec §6).
DISTRIBUTED_DIFFERS = ("subject_consistency", "appearance_style")


def distributed_aggregate(dimension: str, rows: Sequence[VideoRow]) -> float:
    """What upstream reports under torchrun (world size > 1) for the two dimensions whose
    aggregate then changes; never a value we report (we keep the single-GPU semantics in
    every run), only to show and detect the difference:

      - subject_consistency: the mean of the video values (subject_consistency.py:79-81);
      - appearance_style: the mean of each video's `cur_sim`, its LAST frame's value
        (appearance_style.py:81-83).

    Gathered lists are ordered rank by rank; `rows` are taken in the order given.
    """
    kept = scored(dimension, rows)
    if not kept:
        raise NoVideos(f"{dimension}: no video has a value")
    if dimension == "subject_consistency":
        return sum([row.value(dimension) for row in kept]) / len(kept)
    if dimension == "appearance_style":
        return sum([row.extra(dimension, "cur_sim") for row in kept]) / len(kept)
    raise ValueError(f"{dimension}: its torchrun aggregate is the single-GPU one "
                     f"(only {', '.join(DISTRIBUTED_DIFFERS)} differ)")
