"""The shape of a MemoBench Step 1 metric family: loaded once per run, run once per clip.

A family owns one backend (a model, or weight-free code), the eval-CSV columns it
fills (run_eval.py's raw values) and the scorecard metric ids it makes available.
"""

import abc
import dataclasses
from typing import Dict, Optional, Tuple

import numpy as np

from benchmarks.memobench.dataset import GroundTruth
from proto import scorecard_pb2


@dataclasses.dataclass(frozen=True)
class ClipContext:
    """What every family sees of one clip: frames decoded and resized once."""

    frames: np.ndarray   # (N, H, W, 3) BGR uint8, after the --max_side resize
    h: int               # first frame of the Disappeared phase (generated space)
    r: int               # first frame of the Reappear phase
    gt: GroundTruth
    sample_step: int


@dataclasses.dataclass(frozen=True)
class FamilyResult:
    """Raw eval-CSV values (None where run_eval.py leaves None) and per-metric reasons
    for anything the family could not compute on this clip."""

    columns: Dict[str, Optional[float]]
    unavailable: Dict[str, str] = dataclasses.field(default_factory=dict)


class Family(abc.ABC):
    """One Step 1 metric family."""

    name: str = ""
    metric_ids: Tuple[str, ...] = ()

    def __init__(self, backend: scorecard_pb2.Backend,
                 checkpoints: Tuple[scorecard_pb2.CheckpointRef, ...] = ()):
        self.backend = backend
        self.checkpoints = checkpoints

    def backend_for(self, metric_id: str) -> scorecard_pb2.Backend:
        """The backend behind one of this family's metrics (one for all by default)."""
        del metric_id
        return self.backend

    @abc.abstractmethod
    def compute(self, ctx: ClipContext) -> FamilyResult:
        """Scores one clip; raising means the whole family failed on this clip."""


class FunctionFamily(Family):
    """A family whose per-clip work is one function of the clip context."""

    def __init__(self, name: str, metric_ids: Tuple[str, ...], compute_fn,
                 backend: scorecard_pb2.Backend,
                 checkpoints: Tuple[scorecard_pb2.CheckpointRef, ...] = ()):
        super().__init__(backend, checkpoints)
        self.name = name
        self.metric_ids = metric_ids
        self._compute_fn = compute_fn

    def compute(self, ctx: ClipContext) -> FamilyResult:
        return self._compute_fn(ctx)
