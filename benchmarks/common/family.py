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
import importlib
from typing import Callable, Dict, List, Optional, Sequence, Tuple

from benchmarks.common.errors import InputError
from metrics.checkpoints import resolver
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


# What a family's build may raise when its backend cannot be had (a missing checkpoint or
# package, a checkpoint file that is not one): its metrics are then unavailable, with the
# message as the reason, and the other families are built. Anything else is a bug.
BUILD_ERRORS = (FamilyUnavailable, resolver.CheckpointUnavailable, OSError, ValueError)


@dataclasses.dataclass(frozen=True)
class Wiring:
    """How a benchmark builds one family: the one form every benchmark declares.

    Attributes:
      name: the family's name (the metric table's `family` of its metrics).
      metric_ids: the metrics that call for it: it is built when one of them is selected
        and no family built before it computes that metric already (a fallback family
        declared after a fuller one is built only when the fuller one is not).
      build: (config, wanted metric ids) -> a Family, or a Prepared when it builds several
        or can offer only some of them; the benchmark's config, whatever it is. It raises
        one of BUILD_ERRORS when it cannot; `lazy` imports its module on first call.
      backend: the backend an unavailable metric names (None: the scorecard's default).
      why: the reason's text around the error's, "{error}" standing for it.
      per_metric: build one family per wanted metric (each its own checkpoints and reason).
    """

    name: str
    metric_ids: Tuple[str, ...]
    build: Callable
    backend: Optional[scorecard_pb2.Backend] = None
    why: str = "{error}"
    per_metric: bool = False


def lazy(module: str, function: str = "build") -> Callable:
    """A build function imported when first called (torch, cvxpy: only when wanted)."""
    def build(*args):
        return getattr(importlib.import_module(module), function)(*args)
    return build


def prepare(wirings: Sequence[Wiring], config, metric_ids,
            no_family: Optional[Dict[str, str]] = None) -> Prepared:
    """The families the selected `metric_ids` need, built in the wirings' order, and why
    each selected metric without one is unavailable (`no_family`'s reason, or "no family
    computes it" when no wiring names it)."""
    selected = list(metric_ids)
    families: List[Family] = []
    unavailable: Dict[str, Tuple[str, Optional[scorecard_pb2.Backend]]] = {}
    for wiring in wirings:
        covered = {m for fam in families for m in fam.metric_ids}
        wanted = tuple(m for m in wiring.metric_ids if m in selected and m not in covered)
        for group in ([(m,) for m in wanted] if wiring.per_metric else [wanted] * bool(wanted)):
            try:
                built = wiring.build(config, group)
            except BUILD_ERRORS as e:
                why = wiring.why.replace("{error}", str(e))
                unavailable.update({m: (why, wiring.backend) for m in group})
                continue
            if isinstance(built, Prepared):
                families.extend(built.families)
                unavailable.update(built.unavailable)
            else:
                families.append(built)
    covered = {m for fam in families for m in fam.metric_ids}
    for metric in selected:
        if metric not in covered and metric not in unavailable:
            unavailable[metric] = ((no_family or {}).get(metric, "no family computes it"), None)
    return Prepared(families, unavailable)
