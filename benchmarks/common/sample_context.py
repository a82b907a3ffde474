"""What every family sees of one sample: frames decoded once, reference frames on demand.

`SampleContext` is generic: the generated clip's frames (decoded and resized once by the
engine) and the reference (ground-truth) frames, read lazily by index and shared by
every family that asks for them. A benchmark subclasses it to add its own payload
(MemoBench: the phase keyframes and the GroundTruth record).
"""

import dataclasses
import functools
import pathlib
import threading
from typing import Callable, Dict, List, Optional, Sequence, Tuple

import numpy as np

from metrics.video import frames as frames_lib

Size = Optional[Tuple[int, int]]  # (width, height) to INTER_AREA-resize to, or native


def read_reference(source: pathlib.Path, indices: Sequence[int], size: Size,
                   workers: Optional[int] = None,
                   warnings: Optional[List[str]] = None) -> Dict[int, np.ndarray]:
    """Reference frames by index, from a frame folder or a video, resized with INTER_AREA
    (from native resolution, no crop) to `size` as they are read, or native when `size`
    is None. A folder is decoded and resized on `workers` threads (None: the frames
    module's default); a video is decoded in one sequential pass, its kept frames resized
    on the threads. The frames do not depend on `workers`. Files read only in part are
    appended to `warnings` (if a list), named."""
    wanted = sorted(set(indices))
    if source.is_dir():
        files = frames_lib.list_frame_files(source)
        for i in wanted:
            if not 0 <= i < len(files):
                raise frames_lib.FrameInputError(
                    source, f"reference frame {i}", f"only {len(files)} frames")
        frames = frames_lib.read_frame_files([files[i] for i in wanted], size, workers,
                                             warnings)
    else:
        frames = frames_lib.read_video_frames(source, wanted, size, workers)
    return dict(zip(wanted, frames))


class ReferenceFrames:
    """A sample's reference frames, each decoded (and resized) at most once per size.

    Families ask with `at(indices, size)`; frames already read for that size are reused,
    the others are read in one pass. `warnings` lists the reference files the default
    reader could read only in part (the engine records them in the sample).
    """

    def __init__(self, source: pathlib.Path,
                 reader: Optional[Callable[[pathlib.Path, Sequence[int], Size],
                                           Dict[int, np.ndarray]]] = None):
        self.source = pathlib.Path(source)
        self.warnings: List[str] = []
        self._reader = reader or functools.partial(read_reference, warnings=self.warnings)
        self._cache: Dict[Tuple[int, Size], np.ndarray] = {}
        self._lock = threading.Lock()
        self.reads = 0  # reader calls made (tests check frames are shared)

    def at(self, indices: Sequence[int], size: Size = None) -> Dict[int, np.ndarray]:
        """{index: frame} for `indices`; raises FrameInputError as the reader does."""
        with self._lock:
            missing = sorted({i for i in indices if (i, size) not in self._cache})
            if missing:
                self.reads += 1
                for i, frame in self._reader(self.source, missing, size).items():
                    self._cache[(i, size)] = frame
            return {i: self._cache[(i, size)] for i in indices}

    def frames_at(self, indices: Sequence[int], size: Size = None):
        """The frames for `indices`, in that order (repeats allowed)."""
        found = self.at(indices, size)
        return [found[i] for i in indices]


@dataclasses.dataclass(frozen=True, kw_only=True)
class SampleContext:
    """One sample as the families see it; benchmarks add fields in a subclass."""

    sample_id: str
    split: str = ""
    frames: np.ndarray                       # (N, H, W, 3) BGR uint8, decoded once
    reference: Optional[ReferenceFrames] = None
    # The columns of the families that already ran on this sample, filled by the engine
    # as it goes (families run in the order the benchmark lists them), so that a family
    # can use another's value, e.g. VMBench's MSS threshold reads that video's PAS.
    earlier: dict = dataclasses.field(default_factory=dict)
    # Per-frame model outputs computed in calls shared with other samples (--sample_batch,
    # sample_batch.frame_stage), by call name; empty when the sample is scored alone.
    shared: dict = dataclasses.field(default_factory=dict)
