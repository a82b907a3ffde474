"""motion_smoothness (spec §4.10): how well VFIMamba recovers each odd frame from its two
even neighbours (WorldScore third_party/motion_smoothness_metrics.py, @344983c).

All the instance's frames, as cv2 reads them (BGR uint8): the even frames 0, 2, 4, ... are
paired (2k, 2k+2), VFIMamba (F=32, depth 2,2,2,3,3; `inference(I0, I2, local=True,
TTA=True, fast_TTA=True, scale=0.0)`, timestep 0.5, padding to multiples of 32) predicts
the middle of each pair from the BGR frames / 255, and the prediction, truncated to uint8
((x * 255).astype(uint8)), is compared with the real frame 2k+1: MSE with the uint8
wraparound, SSIM and LPIPS as in motion_smoothness_metrics.py. The raw score is
(mean MSE, mean SSIM, mean LPIPS) over the pairs; normalize.py maps each by its min-max
range and averages the three (spec §5.1).

`--motion_smoothness_mse=float` (MSE_FLOAT) computes the MSE without the wraparound: a
named backend marked NOT official, since the spec's range was calibrated with the bug.
"""

from typing import Callable, List, Sequence, Tuple

import numpy as np

from benchmarks.common import calibration
from benchmarks.common import checkpoint_refs
from benchmarks.common import family
from benchmarks.common import model_recipe
from benchmarks.worldscore import metric_specs
from metrics.interpolation import pins as interpolation_pins

METRIC_IDS = (metric_specs.metric_id("motion_smoothness", "motion_smoothness"),)
MSE_OFFICIAL, MSE_FLOAT = "uint8_wraparound", "float"
MSE_CHOICES = (MSE_OFFICIAL, MSE_FLOAT)
BACKEND = "vfimamba-f32-local-tta"
BACKEND_FLOAT_MSE = BACKEND + "-float-mse"

# The checkpoint WorldScore reads as checkpoints/VFIMamba.pkl (spec §9: hub
# MCG-NJU/VFIMamba_ckpts, folder ckpt/), pinned in metrics.interpolation.pins.
VFIMAMBA = interpolation_pins.VFIMAMBA

Interpolator = Callable[[np.ndarray, np.ndarray], np.ndarray]


def pairs(frames: Sequence[np.ndarray]) -> List[Tuple[int, int, int]]:
    """(first, real middle, second) frame indices, as the official zip of frames[::2]
    without its last and with its first, against frames[1::2]."""
    even = list(range(0, len(frames), 2))
    return [(a, a + 1, b) for a, b in zip(even[:-1], even[1:])]


def midpoint_scores(mid: np.ndarray, gt: np.ndarray, lpips_model, mse: str = MSE_OFFICIAL):
    """(MSE, SSIM, LPIPS) of one interpolated frame against the real one (BGR uint8)."""
    # pylint: disable=import-outside-toplevel  (torch only when the family runs)
    from benchmarks.worldscore import motion_smoothness_metrics as msm
    msm.check_pair(mid, gt)
    error = msm.mse_uint8_wraparound(mid, gt) if mse == MSE_OFFICIAL else msm.mse_float(mid, gt)
    preds, target = msm.to_tensor(mid), msm.to_tensor(gt)
    return error, msm.ssim_torchmetrics(preds, target), msm.lpips_torchmetrics(
        lpips_model, preds, target)


def score(frames: Sequence[np.ndarray], interpolate: Interpolator, lpips_model,
          mse: str = MSE_OFFICIAL) -> Tuple[float, float, float]:
    """The raw (mean MSE, mean SSIM, mean LPIPS) of an instance's BGR uint8 frames.

    Raises:
        family.FamilyUnavailable: fewer than 3 frames (the official code divides by 0).
    """
    triples = pairs(frames)
    if not triples:
        raise family.FamilyUnavailable(f"motion smoothness needs at least 3 frames, the "
                                       f"instance has {len(frames)} (the official code "
                                       f"would divide by zero)")
    per_pair = [midpoint_scores(interpolate(frames[a], frames[b]), frames[m], lpips_model, mse)
                for a, m, b in triples]
    return tuple(sum(values) / len(values) for values in zip(*per_pair))


def vfimamba_interpolator(model, device) -> Interpolator:
    """BGR uint8 (I0, I2) -> the uint8 middle frame, the official way."""
    from metrics.interpolation import vfimamba  # pylint: disable=import-outside-toplevel

    def interpolate(frame0, frame1):
        pred = vfimamba.interpolate(model, vfimamba.frame_to_tensor(frame0, device),
                                    vfimamba.frame_to_tensor(frame1, device))
        return vfimamba.tensor_to_frame(pred)
    return interpolate


def backend(mse: str = MSE_OFFICIAL):
    from proto import scorecard_pb2  # pylint: disable=import-outside-toplevel
    official = mse == MSE_OFFICIAL
    name = BACKEND if official else BACKEND_FLOAT_MSE
    return scorecard_pb2.Backend(
        name=name, official=official, checkpoint_id=VFIMAMBA.hf_repo + "/" + VFIMAMBA.filename,
        implementation="metrics/interpolation (VFIMamba, PyTorch selective scan) + "
        "benchmarks/worldscore/motion_smoothness*.py",
        note="VFIMamba F=32 local + fast TTA, uint8 midpoints; MSE " + (
            "with the official uint8 wraparound" if official else
            "WITHOUT the uint8 wraparound: not the official number") +
        "; SSIM and LPIPS (AlexNet) as torchmetrics' defaults on [0, 1] BGR input",
        parity=calibration.parity(BACKEND, otherwise="tiny random models through the real "
                                  "loaders; no calibration row yet"))


def build(config, metric_ids) -> family.Family:
    """The family from the resolved checkpoints (CheckpointUnavailable when missing);
    config.architectures["vfimamba"] (a VfimambaConfig) replaces the full size in tests."""
    del metric_ids
    # pylint: disable=import-outside-toplevel  (torch)
    from metrics.interpolation import vfimamba
    from metrics.lpips import lpips
    mse = getattr(config, "motion_smoothness_mse", MSE_OFFICIAL) or MSE_OFFICIAL
    if mse not in MSE_CHOICES:
        raise ValueError(f"motion_smoothness_mse must be one of {MSE_CHOICES}, got {mse!r}")
    refs = []
    found, ref = checkpoint_refs.resolve(VFIMAMBA, config.common, METRIC_IDS[0])
    refs.append(ref)
    arch = (config.architectures or {}).get("vfimamba", vfimamba.FULL)
    model = model_recipe.prepared(lambda device: vfimamba.load(found.path, arch, device),
                                  config.common.device, "vfimamba")
    alex, alex_ref = checkpoint_refs.resolve(lpips.ALEXNET_SPEC, config.common, METRIC_IDS[0])
    lin, lin_ref = checkpoint_refs.resolve(lpips.LPIPS_ALEX_SPEC, config.common, METRIC_IDS[0])
    refs += [alex_ref, lin_ref]
    lpips_model = model_recipe.prepared(
        lambda device: lpips.load_lpips_alex(alex.path, lin.path, device),
        config.common.device, "lpips")

    def compute(ctx) -> family.FamilyResult:
        frames = [ctx.frames[ctx.frame_ids.index(i)] for i in range(len(ctx.frame_files))]
        if ctx.movement != "dynamic":
            return family.FamilyResult({})
        interpolate = vfimamba_interpolator(model.get(), model.device())
        return family.FamilyResult({METRIC_IDS[0]: list(score(frames, interpolate,
                                                              lpips_model.get(), mse))})

    return family.FunctionFamily("motion_smoothness", METRIC_IDS, compute, backend(mse),
                                 tuple(refs))
