"""One WorldScore instance on the shared engine: its inputs, its context, its row.

An item is a generated instance folder (layout.Instance) with its dataset entry (None
when no entry asks for it), or a dataset entry with no folder (Instance None). `load`
runs the official completeness rules (layout.check: problems and crashes both make the
instance an error row naming the file) and decodes, once, every frame the run's
metrics read (prompts.needed_frames), with PIL as the official evaluator opens them
(`open_image`: PIL, RGB). `score` runs the families and turns their raw scores into the
official evaluation.json entries (instance_eval.entries): sample.metrics holds
`<aspect>.<metric>` = score_normalized and the raw score(s) under metric_specs.raw_ids.
"""

import dataclasses
import hashlib
import pathlib
import time
from typing import Dict, List, Optional, Sequence, Tuple

import numpy as np
from PIL import Image

from benchmarks.common import sample_context
from benchmarks.common import sample_loop
from benchmarks.common.errors import InputError
from benchmarks.worldscore import aspects
from benchmarks.worldscore import dataset
from benchmarks.worldscore import instance_eval
from benchmarks.worldscore import layout
from benchmarks.worldscore import metric_specs
from benchmarks.worldscore import prompts
from metrics.video import frames as frames_lib
from proto import scorecard_pb2

EVALUATION = "evaluation_json"  # diagnostics: the evaluation.json written for the instance


@dataclasses.dataclass(frozen=True)
class Item:
    key: str                                  # static/<style>/<scene>/<cat>/<name> | dynamic/...
    movement: str
    instance: Optional[layout.Instance]       # None: a dataset entry with no folder
    entry: Optional[dataset.Entry]            # None: a folder no dataset entry asks for
    expected_folder: str = ""                 # where the folder should be (entry only)


@dataclasses.dataclass(frozen=True, kw_only=True)
class InstanceContext(sample_context.SampleContext):
    """What a WorldScore family sees. `frames` holds the decoded frames (BGR, native
    size) at the indices `frame_ids`; `image_data` is the instance's image_data.json."""

    frame_ids: Tuple[int, ...]
    frame_files: Tuple[pathlib.Path, ...]     # every frame file, in the evaluator's order
    image_data: dict
    path: pathlib.Path                        # the instance folder
    movement: str
    data_root: Optional[pathlib.Path] = None

    def rgb(self, index: int) -> np.ndarray:
        return _rgb_at(self.frames, self.frame_ids, index)

    def image(self, index: int) -> Image.Image:
        """Frame `index` as the PIL RGB image the official evaluator opens."""
        return Image.fromarray(self.rgb(index))

    @property
    def input_image(self) -> pathlib.Path:
        return self.path / layout.INPUT_IMAGE


@dataclasses.dataclass(frozen=True)
class Loaded:
    instance: layout.Instance
    frame_ids: Tuple[int, ...]
    frames: np.ndarray
    digest: str
    shared: dict = dataclasses.field(default_factory=dict)  # see SampleContext.shared

    def rgb(self, index: int) -> np.ndarray:
        """Decoded frame `index` (in frame_ids; ValueError otherwise) as RGB."""
        return _rgb_at(self.frames, self.frame_ids, index)


def _rgb_at(frames: np.ndarray, frame_ids: Sequence[int], index: int) -> np.ndarray:
    return np.ascontiguousarray(frames[list(frame_ids).index(index)][..., ::-1])


def ref(item: Item) -> sample_loop.SampleRef:
    return sample_loop.SampleRef(item.key, item.movement, "/".join(item.key.split("/")[1:3]))


def _folder_digest(path: pathlib.Path) -> str:
    """sha256 over the files the evaluation reads: image_data.json, camera_data.json,
    input_image.png and every frame (name + bytes, in order)."""
    digest = hashlib.sha256()
    for name in (layout.IMAGE_DATA, layout.CAMERA_DATA, layout.INPUT_IMAGE):
        if (path / name).is_file():
            frames_lib.file_digest_update(digest, path / name)
    folder = path / layout.FRAMES
    if folder.is_dir():
        for name in sorted(p.name for p in folder.iterdir()):
            frames_lib.file_digest_update(digest, folder / name)
    return digest.hexdigest()


def digest(item: Item) -> str:
    if item.instance is None:
        return "absent"
    return _folder_digest(item.instance.path)


def _read_rgb(path: pathlib.Path) -> np.ndarray:
    try:
        with Image.open(path) as image:
            return np.asarray(image.convert("RGB"))
    except (OSError, SyntaxError) as e:
        raise InputError(path, "a readable .png/.jpg frame", f"{type(e).__name__}: {e}") from e


def load_for(metric_ids: Sequence[str]):
    """`load(item)` decoding the frames that the metrics (`<aspect>.<metric>` ids) of
    the item's movement read."""

    def load(item: Item) -> Loaded:
        if item.instance is None:
            raise InputError(item.expected_folder, "the generated folder of dataset entry "
                             f"{item.entry.position} ({item.key})", "no such folder")
        if item.entry is None:
            raise InputError(item.instance.path, "a folder of an entry of the dataset's "
                             f"{item.movement}.json", f"no entry for {item.key}")
        inst = layout.check(layout.Instance(item.movement, item.instance.parts,
                                            item.instance.path))
        if inst.problems or inst.crashes:  # each names its file and what was expected
            raise ValueError("; ".join(inst.problems + inst.crashes))
        frame_files = [inst.path / layout.FRAMES / n for n in inst.frames]
        wanted = set()
        own = aspects.ASPECTS_OF[item.movement]
        for name in [m.split(".", 1)[1] for m in metric_ids if m.split(".")[0] in own]:
            wanted.update(prompts.needed_frames(inst.image_data, name, len(frame_files)))
        _check_anchors(inst, wanted, len(frame_files))
        ids = tuple(sorted(wanted))
        rgb = [_read_rgb(frame_files[i]) for i in ids]
        shapes = {f.shape for f in rgb}
        if len(shapes) > 1:
            raise InputError(inst.path / layout.FRAMES, "frames of one size",
                             ", ".join(sorted(map(str, shapes))))
        frames = (np.stack(rgb)[..., ::-1] if rgb else np.zeros((0, 1, 1, 3), np.uint8))
        return Loaded(inst, ids, np.ascontiguousarray(frames), _folder_digest(inst.path))

    return load


def _check_anchors(inst: layout.Instance, wanted, total: int) -> None:
    bad = sorted(i for i in wanted if not 0 <= i < total)
    if bad:
        raise InputError(inst.path / layout.IMAGE_DATA, f"anchor_frame_idx within the {total} "
                         "frames", f"index {bad[0]}")


def _record(sample, key, raw, normalized) -> None:
    aspect, name = key
    sample.metrics[metric_specs.metric_id(aspect, name)] = normalized
    values = raw if isinstance(raw, (list, tuple)) else [raw]
    for rid, v in zip(metric_specs.raw_ids(aspects.METRICS[key]), values):
        sample.metrics[rid] = float(v)


def score(item: Item, loaded: Loaded, families, data_root=None) -> scorecard_pb2.SampleScore:
    start = time.perf_counter()
    inst = loaded.instance
    r = ref(item)
    sample = scorecard_pb2.SampleScore(sample_id=r.sample_id, split=r.split, scene=r.scene,
                                       input_digest=loaded.digest)
    sample.diagnostics.update({"num_frames": str(len(inst.frames)), "source": str(inst.path)})
    if len(loaded.frames):
        sample.diagnostics.update({"height": str(loaded.frames.shape[1]),
                                   "width": str(loaded.frames.shape[2])})
    for warning in inst.warnings:
        sample_loop.add_warning(sample, warning)
    ctx = InstanceContext(
        sample_id=r.sample_id, split=r.split, frames=loaded.frames, frame_ids=loaded.frame_ids,
        frame_files=tuple(inst.path / layout.FRAMES / n for n in inst.frames),
        image_data=inst.image_data, path=inst.path, movement=item.movement,
        data_root=pathlib.Path(data_root) if data_root else None, shared=loaded.shared)
    columns = sample_loop.run_families(ctx, families, sample)
    outcomes = {key: columns[metric_specs.metric_id(*key)] for key in aspects.METRICS
                if metric_specs.metric_id(*key) in columns}
    camera_path = inst.image_data.get("camera_path") or []
    entries, errors = instance_eval.entries(item.movement, camera_path, outcomes)
    for key, (raw, normalized) in entries.items():
        _record(sample, key, raw, normalized)
    for message in errors:
        sample.unavailable[message.split(":")[0]] = message
    for key, why in instance_eval.skipped(item.movement, camera_path).items():
        sample.unavailable[metric_specs.metric_id(*key)] = "as in the official code: " + why
    sample.seconds = round(time.perf_counter() - start, 4)
    return sample


def entries_of(sample: scorecard_pb2.SampleScore) -> Dict[Tuple[str, str], Tuple[object, float]]:
    """The evaluation.json entries a row holds, in the official order."""
    out = {}
    for a in aspects.ASPECTS_OF.get(sample.split, ()):
        for m in aspects.BY_NAME[a].metrics:
            mid = metric_specs.metric_id(a, m.name)
            if mid not in sample.metrics:
                continue
            raw: List[float] = [sample.metrics[r] for r in metric_specs.raw_ids(m)]
            out[(a, m.name)] = (raw if m.combine else raw[0], sample.metrics[mid])
    return out
