"""The optical-flow metrics' arithmetic, on any `flow(frame_a, frame_b) -> (H, W, 2)`.

The flow callable takes two native-resolution RGB uint8 frames and returns the flow
from a to b in native pixels (x, y): the SEA-RAFT backend owns the official x0.5
downsample, x2 upsample and value scaling (spec §4.5). Per consecutive pair (t, t+1)
of all the instance's frames (the arithmetic is metrics/flow/consistency.py and
motion_stats.py, checked against the official flow metrics in the SEA-RAFT parity rows):

* photometric_consistency.optical_flow_aepe (third_party/flow_aepe_metrics.py
  compute_epe, crop=30): forward f12 and backward f21 cropped to the centre
  (H-30) x (W-30); for each pixel p of the crop, q = p + f12(p), f21 read at
  round(q) clipped to the crop, epe = |q + f21(round q) - p|; the pair's value is
  the mean epe; the score the mean over pairs.
* motion_magnitude.optical_flow (flow_metrics.py): per pair the median of |f12|
  taken as torch.median does (the LOWER middle value for an even count, not the
  mean of the two); the score the mean over pairs.
"""

from typing import Callable, Sequence

import numpy as np

from benchmarks.common import calibration
from benchmarks.common import checkpoint_refs
from benchmarks.common import family
from benchmarks.common import model_recipe
from benchmarks.worldscore import metric_specs
from metrics.checkpoints import resolver
from metrics.flow import consistency
from metrics.flow import motion_stats
from metrics.flow import pins as flow_pins

AEPE = metric_specs.metric_id("photometric_consistency", "optical_flow_aepe")
MAGNITUDE = metric_specs.metric_id("motion_magnitude", "optical_flow")
CROP = 30
Flow = Callable[[np.ndarray, np.ndarray], np.ndarray]

# The official code loads Tartan-C-T-TSKH-spring540x960-M.pth (SEA-RAFT's Google Drive
# release); the pin (a hub snapshot of the same model) is metrics.flow.pins'.
SEA_RAFT_SPRING_M = flow_pins.SEA_RAFT_SPRING_M
_WEIGHT_FILES = ("model.safetensors", "pytorch_model.bin")


def sea_raft_backend():
    from proto import scorecard_pb2  # pylint: disable=import-outside-toplevel
    return scorecard_pb2.Backend(
        name="sea-raft", official=True, checkpoint_id=SEA_RAFT_SPRING_M.hf_repo,
        implementation="metrics/flow/sea_raft + metrics/flow/consistency.py, motion_stats.py",
        note="SEA-RAFT spring-M (iters 4, scale -1) at native resolution with the official "
             "x0.5 / x2 scaling, worldeval's module on the official weights; the hub "
             "snapshot of SEA-RAFT's README, where the official code reads the Drive .pth",
        parity=calibration.parity("sea-raft", otherwise="no calibration row yet"))

_LOADED: dict = {}  # (weights, size, mtime, device, arch) -> the loaded SeaRaftFlow


def load_sea_raft_flow(config, metric_id):
    """(flow callable, checkpoint ref) from the resolved snapshot. The model is a
    benchmarks/common/model_recipe, loaded once per process where the flow is called
    (here in a local run; by each Ray actor otherwise)."""
    from metrics.flow.sea_raft import flow as flow_lib  # pylint: disable=import-outside-toplevel
    from metrics.flow.sea_raft import loader  # pylint: disable=import-outside-toplevel
    found, ref = checkpoint_refs.resolve(SEA_RAFT_SPRING_M, config.common, metric_id)
    weights = next((found.path / f for f in _WEIGHT_FILES if (found.path / f).is_file()), None)
    if weights is None:
        raise resolver.CheckpointUnavailable(
            f"{found.path}: expected one of {', '.join(_WEIGHT_FILES)} beside config.json; "
            f"fetch it with: {SEA_RAFT_SPRING_M.fetch_command(config.common.checkpoint_dir)}")
    device = config.common.device
    arch = (config.architectures or {}).get("sea_raft")
    stat = weights.stat()
    key = (str(weights), stat.st_size, stat.st_mtime_ns, str(device), repr(arch))
    if key not in _LOADED:  # the flow family and motion_accuracy share one model
        _LOADED.clear()     # (one entry: a run loads one SEA-RAFT)
        _LOADED[key] = model_recipe.method(model_recipe.prepared(
            lambda d: flow_lib.SeaRaftFlow(loader.load_sea_raft(weights, d, arch),
                                           channels="rgb"), device, "sea_raft"))
    return _LOADED[key], ref


def aepe_score(frames_rgb: Sequence[np.ndarray], flow: Flow) -> float:
    return consistency.clip_forward_backward_epe(frames_rgb, flow, crop=CROP)


def magnitude_score(frames_rgb: Sequence[np.ndarray], flow: Flow) -> float:
    return motion_stats.clip_motion_magnitude(frames_rgb, flow)


def build(config, metric_ids) -> family.Family:
    """A family over config.flow and config.flow_backend when given (tests, other
    backends), else SEA-RAFT from its checkpoint (CheckpointUnavailable when missing)."""
    ids, refs = tuple(metric_ids), ()
    flow, backend = config.flow, config.flow_backend
    if flow is None:
        flow, ref = load_sea_raft_flow(config, ids[0])
        backend, refs = sea_raft_backend(), (ref,)

    def compute(ctx) -> family.FamilyResult:
        frames = [ctx.rgb(i) for i in range(len(ctx.frame_files))]
        columns = {}
        if AEPE in ids and ctx.movement == "static":
            columns[AEPE] = aepe_score(frames, flow)
        if MAGNITUDE in ids and ctx.movement == "dynamic":
            columns[MAGNITUDE] = magnitude_score(frames, flow)
        return family.FamilyResult(columns)

    return family.FunctionFamily("optical_flow", ids, compute, backend, refs)
