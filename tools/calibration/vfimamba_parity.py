"""VFIMamba motion-smoothness parity: worldeval's metrics/interpolation (selective scan,
model, loader, padding, fast TTA) and benchmarks/worldscore/motion_smoothness (uint8
midpoints, wraparound MSE, torchmetrics-default SSIM) against the official code, via
stored numbers (vfimamba_official.csv).

The official side (official_runs/vfimamba.py, outside the repository) is MCG-NJU/VFIMamba
8df805e's model/, config.py, Trainer_finetune.py and benchmark/utils/padder.py (the code
WorldScore vendors, identical in model/), with mamba-ssm 2.3.2.post1's own PyTorch
`selective_scan_ref` (from its sdist, unchanged) standing in for the CUDA
`selective_scan_fn`, torchmetrics 1.9.0 and the locked torch 2.14.1 on CPU. It builds the
official Model at TINY's size, loads the .pkl this module writes with the official
`Model.load_model` (convert: `module.` keys only, attn_mask/HW dropped, strict), pads
each even pair with InputPadder(divisor=32), runs `Model.inference(I0, I2, True,
TTA=True, fast_TTA=True, scale=0.0)`, unpads, truncates to uint8, and scores the real odd
frame as WorldScore's MotionSmoothnessMetric does (np.mean of the uint8 square;
torchmetrics StructuralSimilarityIndexMeasure() on ToTensor). It also runs
selective_scan_ref on stored random inputs. LPIPS: torchmetrics
LearnedPerceptualImagePatchSimilarity(net_type="alex") as WorldScore builds it, fed the
[0, 1] ToTensor frames (normalize=False), its lin weights the bundled lpips v0.1 ones and
its "pretrained" AlexNet a random trunk (metrics.lpips.tiny_lpips, seed SEED)
placed where torchvision's loader looks for alexnet-owt-7be5be79.pth (TORCH_HOME).
"""

import pathlib
import tempfile
from typing import List

import lpips as lpips_pkg
import numpy as np
import torch

from benchmarks.worldscore import motion_smoothness
from metrics.interpolation import selective_scan
from metrics.interpolation import vfimamba
from metrics.lpips import lpips
from metrics.lpips import tiny_lpips
from tools.calibration import official_numbers
from tools.calibration import parity_table
from tools.fixtures import scene

BACKEND = motion_smoothness.BACKEND
TEST = "//tools/calibration:vfimamba_parity_test"
OFFICIAL = "tools/calibration/vfimamba_official.csv"
CHECKPOINT = "VFIMamba.pkl"
CLIPS = "vfimamba_clips.npz"
SCAN = "vfimamba_scan.npz"
SEED = 0
NOISE = 0.05
# (frames, height, width, texture seed): 45 x 70 pads to 64 x 96; 64 x 64 needs none.
CLIP_SPECS = ((5, 45, 70, 31), (3, 64, 64, 32))
LPIPS_DIR = "lpips"
REFERENCE = ("MCG-NJU/VFIMamba 8df805e model/ + Trainer_finetune.Model (load_model, "
             "inference local/TTA/fast_TTA, scale 0) + benchmark/utils/padder.InputPadder(32), "
             "mamba-ssm 2.3.2.post1 selective_scan_ref, WorldScore 344983c's uint8 MSE, "
             "torchmetrics 1.9.0 SSIM and LPIPS (alex), torch 2.14.1 CPU, run outside the "
             "repository; numbers in " + OFFICIAL)


def clips_bgr() -> List[np.ndarray]:
    """The clips both sides see, (T, H, W, 3) uint8 BGR."""
    return [scene.render_clip(n, h, w, seed)[0] for n, h, w, seed in CLIP_SPECS]


def describe_inputs() -> str:
    return ("clips of the //tools/fixtures room: " + ", ".join(
        f"{n} frames {w}x{h} (seed {s})" for n, h, w, s in CLIP_SPECS) +
        "; their even-frame pairs")


def tiny_model() -> torch.nn.Module:
    """vfimamba.build(TINY) after torch.manual_seed(SEED), plus Gaussian noise (std NOISE)
    on every tensor, so that no layer sits at its initial constant."""
    torch.manual_seed(SEED)
    model = vfimamba.build(vfimamba.TINY)
    generator = torch.Generator().manual_seed(SEED + 1)
    with torch.no_grad():
        for value in model.state_dict().values():
            value.add_(torch.randn(value.shape, generator=generator) * NOISE)
    return model


def official_file_state(model) -> dict:
    """The released files' layout: DDP keys (`module.`), plus entries the official convert
    drops (a key without `module.`, attn_mask and HW buffers)."""
    state = {"module." + k: v.clone() for k, v in model.state_dict().items()}
    state["module.feature_bone.block3.blocks.0.attn_mask"] = torch.zeros(4, 4)
    state["module.feature_bone.HW"] = torch.tensor([8, 8])
    state["step"] = torch.tensor(1000)
    return state


def scan_inputs() -> dict:
    g = torch.Generator().manual_seed(SEED + 2)
    r = lambda *s: torch.randn(*s, generator=g)  # noqa: E731
    return dict(u=r(2, 16, 100), delta=r(2, 16, 100), A=-torch.exp(r(16, 8)),
                B=r(2, 4, 8, 100), C=r(2, 4, 8, 100), D=r(16), delta_bias=r(16) * 0.5)


def write_inputs(folder) -> pathlib.Path:
    """The checkpoint in the official layout, the BGR clips and the scan inputs."""
    folder = pathlib.Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    torch.save(official_file_state(tiny_model()), folder / CHECKPOINT)
    np.savez(folder / CLIPS, **{f"clip_{i}": c for i, c in enumerate(clips_bgr())})
    np.savez(folder / SCAN, **{k: v.numpy() for k, v in scan_inputs().items()})
    tiny_lpips.write_random_checkpoints(folder / LPIPS_DIR, seed=SEED)
    return folder / CHECKPOINT


def lin_weights() -> pathlib.Path:
    """lpips v0.1 alex.pth as the lpips package ships it (torchmetrics bundles the same)."""
    return pathlib.Path(lpips_pkg.__file__).parent / "weights" / "v0.1" / "alex.pth"


def ours() -> dict:
    """Our tensors, keyed (pair index over all clips, name)."""
    with tempfile.TemporaryDirectory() as tmp:
        model = vfimamba.load(write_inputs(tmp), vfimamba.TINY)
        trunk = pathlib.Path(tmp) / LPIPS_DIR / lpips.ALEXNET_SPEC.name / lpips.ALEXNET_SPEC.filename
        lpips_model = lpips.load_lpips_alex(trunk, lin_weights())
    out, k = {}, 0
    for clip in clips_bgr():
        for a, m, b in motion_smoothness.pairs(clip):
            f0, f1 = vfimamba.frame_to_tensor(clip[a]), vfimamba.frame_to_tensor(clip[b])
            out[(k, "padded_pair")] = vfimamba.pad_pair(f0, f1)[0]
            pred = vfimamba.interpolate(model, f0, f1)
            mid = vfimamba.tensor_to_frame(pred)
            out[(k, "prediction")] = pred
            out[(k, "scores")] = np.array(motion_smoothness.midpoint_scores(
                mid, clip[m], lpips_model))
            k += 1
    out[(0, "scan")] = selective_scan.selective_scan(**scan_inputs(), delta_softplus=True)
    return out


def run() -> List[parity_table.Row]:
    """The rows, computed on one CPU thread (float32 sums then do not depend on the
    machine's core count, and the tiny model runs faster than with many threads)."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        return _rows()
    finally:
        torch.set_num_threads(threads)


def _rows() -> List[parity_table.Row]:
    official = official_numbers.read(OFFICIAL)
    mine = ours()
    pairs = sorted(k for k, name in mine if name == "prediction")
    common = dict(reference=REFERENCE, test=TEST, inputs=describe_inputs(),
                  weights=f"random (seed {SEED}): vfimamba.build(TINY) + noise std {NOISE}")

    def stats(name, keys):
        return ([official_numbers.stats_like(mine[(k, name)], official[(k, name)]) for k in keys],
                [np.array([v for _, _, v in official[(k, name)]]) for k in keys])

    a, b = stats("padded_pair", pairs)
    rows = [parity_table.compare(
        BACKEND, "preprocess", a, b, compared="InputPadder(32) replicate padding of each "
        "even pair: shape, mean, RMS and 64 values", **common)]
    # One features row (the table has one per check): the midpoints and the scan.
    a, b = stats("prediction", pairs)
    a_scan, b_scan = stats("scan", [0])
    rows.append(parity_table.compare(
        BACKEND, "features", a + a_scan, b + b_scan, compared="the float midpoint after fast "
        "TTA and the crop (Model.inference): shape, mean, RMS and 256 values; and "
        "selective_scan vs mamba-ssm's selective_scan_ref (delta_bias, softplus, D, 4 groups): "
        "every value", **common))
    a, b = stats("scores", pairs)
    rows.append(parity_table.compare(
        BACKEND, "score", a, b, compared="per pair: the uint8-wraparound MSE, the "
        "torchmetrics-default SSIM and torchmetrics LPIPS (alex, [0, 1] input) of the uint8 "
        "midpoint vs the real odd frame", **common))
    return rows
