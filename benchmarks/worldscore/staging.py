"""Bounded staging: one video (or frame folder) laid out as a WorldScore dynamic instance.

`stage(source, data_root, staged_dir, target_frames)` takes the FIRST dynamic entry of
the dataset's dynamic.json and writes, under staged_dir/worldscore_output/, its instance
folder as the official generation helper would: frames/000.png ... (the source's first
`target_frames` frames, native size, PNG), input_image.png (frame 0), image_data.json
(the entry plus num_scenes 1 and total_frames = target_frames). A run on it is a
bounded check of the pipeline on one clip, NEVER a benchmark result: the scorecard
carries a NOT_OFFICIAL_DATA blocker saying what was staged. An existing staged folder
is replaced. Each file is written whole or not at all (sample_store.atomic_file, not
fsync'ed: the folder is rebuilt by every run): a full disk names the file and leaves no
part of it.
"""

import dataclasses
import io
import json
import pathlib
import shutil
from typing import Tuple

from PIL import Image

from benchmarks.common import sample_store
from benchmarks.common.errors import InputError
from benchmarks.worldscore import aspects
from benchmarks.worldscore import dataset
from benchmarks.worldscore import layout
from metrics.video import frames as frames_lib


@dataclasses.dataclass(frozen=True)
class Staged:
    generated_root: pathlib.Path
    keys: Tuple[str, ...]
    description: str


def stage(source: pathlib.Path, data_root: pathlib.Path, staged_dir: pathlib.Path,
          target_frames: int) -> Staged:
    entries = dataset.load(data_root, aspects.DYNAMIC)
    if not entries:
        raise InputError(dataset.json_path(data_root, aspects.DYNAMIC),
                         "at least one dynamic entry to stage the clip as", "none")
    entry = entries[0]
    frames = frames_lib.load_frames(source)  # BGR; FrameInputError names the source
    if len(frames) < target_frames:
        raise InputError(source, f"at least {target_frames} frames (--stage_target_frames)",
                         str(len(frames)))
    root = pathlib.Path(staged_dir) / "worldscore_output"
    folder = root / entry.key
    if folder.exists():
        shutil.rmtree(folder)
    (folder / layout.FRAMES).mkdir(parents=True)
    for i, bgr in enumerate(frames[:target_frames]):
        _write_png(folder / layout.FRAMES / f"{i:03d}.png", bgr)
    _write_png(folder / layout.INPUT_IMAGE, frames[0])
    image_data = dict(entry.data, num_scenes=entry.num_scenes, total_frames=target_frames)
    with sample_store.atomic_file(folder / layout.IMAGE_DATA, fsync=False) as f:
        f.write(json.dumps(image_data, indent=4))
    return Staged(root, (entry.key,), f"the first {target_frames} frames of {source} laid out "
                  f"as dynamic instance {entry.key} (entry 0 of "
                  f"{dataset.json_path(data_root, aspects.DYNAMIC)})")


def _write_png(path: pathlib.Path, bgr) -> None:
    """The PNG bytes Image.save(path) writes, whole or not at all."""
    png = io.BytesIO()
    Image.fromarray(bgr[..., ::-1]).save(png, format="PNG")
    with sample_store.atomic_file(path, binary=True, fsync=False) as f:
        f.write(png.getvalue())
