"""The shape of a metric family: prepared once per run, computed once per sample.

A family owns one backend (a model, or weight-free code), the raw columns it fills and
the metric ids it makes available. The engine (benchmarks/common/sample_loop.py) calls
`compute` once per sample with a SampleContext, and sorts what goes wrong:

  - an *expected* failure (the family cannot score this sample: unusable input, a model
    that says it cannot score it, weights missing) is returned as per-metric reasons, or
    raised as one of `Family.expected_errors`; the other families still run;
  - anything else (TypeError, KeyError, ... in our own code) is a bug: the sample fails
    with the traceback in its error field and the run exits 1 at the end.
"""

import abc
import dataclasses
from typing import Dict, List, Optional, Tuple

from benchmarks.common.errors import InputError
from metrics.video.frames import FrameInputError
from proto import scorecard_pb2


class FamilyUnavailable(Exception):
    """Raised by a family that cannot score this sample (an expected, per-metric reason)."""


# What a family may raise for one sample without it being a bug: the family said so, the
# sample's inputs are unusable for it (the message names the file), a file could not be
# read (OSError), or a library said the input cannot be scored (ValueError: numpy, torch
# and OpenCV's Python checks). TypeError, AttributeError, KeyError, IndexError ... are bugs.
EXPECTED_ERRORS = (FamilyUnavailable, InputError, FrameInputError, OSError, ValueError)


@dataclasses.dataclass(frozen=True)
class FamilyResult:
    """Raw column values (None where the official code leaves None), per-metric reasons
    for anything the family could not compute on this sample, diagnostics to record, and
    attachments: named blobs the store keeps beside the row (benchmarks/common/
    sample_store.py), for a later step of the run to read back instead of recomputing."""

    columns: Dict[str, Optional[float]]
    unavailable: Dict[str, str] = dataclasses.field(default_factory=dict)
    diagnostics: Dict[str, str] = dataclasses.field(default_factory=dict)
    attachments: Dict[str, bytes] = dataclasses.field(default_factory=dict)


class Family(abc.ABC):
    """One metric family of a benchmark."""

    name: str = ""
    metric_ids: Tuple[str, ...] = ()
    # Exception types that mean "cannot score this sample" for this family, on top of
    # EXPECTED_ERRORS (e.g. a model library's own "input too short" error).
    expected_errors: Tuple[type, ...] = ()

    def __init__(self, backend: scorecard_pb2.Backend,
                 checkpoints: Tuple[scorecard_pb2.CheckpointRef, ...] = ()):
        self.backend = backend
        self.checkpoints = checkpoints

    def backend_for(self, metric_id: str) -> scorecard_pb2.Backend:
        """The backend behind one of this family's metrics (one for all by default)."""
        del metric_id
        return self.backend

    def checkpoints_for(self, metric_id: str) -> Tuple[scorecard_pb2.CheckpointRef, ...]:
        """The checkpoints behind one of this family's metrics (all by default)."""
        del metric_id
        return tuple(self.checkpoints)

    @abc.abstractmethod
    def compute(self, ctx) -> FamilyResult:
        """Scores one sample; raises an expected error when it cannot, with the reason."""


class FunctionFamily(Family):
    """A family whose per-sample work is one function of the sample context.

    `frame_calls(*args) -> [sample_batch.FrameCall]`, where given: its per-frame model
    calls, which --sample_batch may share across samples (compute then reads their rows
    from ctx.shared)."""

    def __init__(self, name: str, metric_ids: Tuple[str, ...], compute_fn,
                 backend: scorecard_pb2.Backend,
                 checkpoints: Tuple[scorecard_pb2.CheckpointRef, ...] = (), frame_calls=None):
        super().__init__(backend, checkpoints)
        self.name = name
        self.metric_ids = metric_ids
        self._compute_fn = compute_fn
        self._frame_calls = frame_calls

    def frame_calls(self, *args) -> list:
        return list(self._frame_calls(*args)) if self._frame_calls else []

    @property
    def compute_fn(self):
        return self._compute_fn

    def compute(self, ctx) -> FamilyResult:
        return self._compute_fn(ctx)


@dataclasses.dataclass
class Prepared:
    """The families a run built, and why each metric that has none is unavailable."""

    families: List[Family]
    unavailable: Dict[str, Tuple[str, Optional[scorecard_pb2.Backend]]]  # metric -> why

    def family_of(self, metric_id: str) -> Optional[Family]:
        return next((f for f in self.families if metric_id in f.metric_ids), None)

    def backend_of(self, metric_id: str) -> Optional[scorecard_pb2.Backend]:
        fam = self.family_of(metric_id)
        if fam is not None:
            return fam.backend_for(metric_id)
        entry = self.unavailable.get(metric_id)
        return entry[1] if entry else None

    def checkpoints(self) -> List[scorecard_pb2.CheckpointRef]:
        return [ref for fam in self.families for ref in fam.checkpoints]
