"""Per-phase PSNR/SSIM against the ground truth (spec §4.7, run_eval.py step 9).

For each phase (gen_s, gen_e, gt_s, gt_e) every generated frame in [gen_s, gen_e] is
paired with GT frame round(gt_s + i*(gt_e-gt_s)/(n-1)); the GT frame is resized to the
generated frame's size (INTER_AREA), PSNR is taken over BGR and SSIM over grayscale,
then averaged over pairs and rounded to 4 dp. Phases share boundary frames.

Each GT frame is read once (one pass over a GT video); a pair that appears in several
phases is scored once. The arithmetic is the official code's (metrics/pixel).
"""

import pathlib
from typing import Callable, Dict, List, Optional, Sequence, Tuple

import numpy as np

from benchmarks.common import sample_context
from metrics.pixel import fidelity
from metrics.video import frames as frames_lib
from metrics.video import sampling

PHASES = ("O", "H", "R", "ALL")


def phase_definitions(h: int, r: int, n: int, h_gt: int, r_gt: int,
                      gt_total: int) -> Dict[str, Tuple[int, int, int, int]]:
    """(gen_s, gen_e, gt_s, gt_e) per phase, all inclusive; O = V, H = D, R = R."""
    last = gt_total - 1
    return {"O": (0, h, 0, h_gt), "H": (h, r, h_gt, r_gt), "R": (r, n - 1, r_gt, last),
            "ALL": (0, n - 1, 0, last)}


def phase_pairs(phases: Dict[str, Tuple[int, int, int, int]]) -> Dict[str, List[Tuple[int, int]]]:
    """The (generated index, GT index) pairs of each phase."""
    pairs = {}
    for name, (gen_s, gen_e, gt_s, gt_e) in phases.items():
        gen = list(range(gen_s, gen_e + 1))
        pairs[name] = list(zip(gen, sampling.resample_gt_indices(gt_s, gt_e, len(gen))))
    return pairs


def read_gt_frames(source: pathlib.Path, indices: Sequence[int], size: Tuple[int, int],
                   workers: Optional[int] = None) -> Dict[int, np.ndarray]:
    """GT frames by index resized to `size` (w, h) as run_eval.py resizes them (INTER_AREA
    from native resolution, no crop), once per frame as it is read, so only generated-
    size frames are kept in memory (benchmarks/common/sample_context.read_reference)."""
    return sample_context.read_reference(source, indices, size, workers)


def phase_fidelity(gen_frames: np.ndarray, gt_source: pathlib.Path,
                   phases: Dict[str, Tuple[int, int, int, int]],
                   decimals: Optional[int] = 4,
                   lpips_fn: Optional[Callable] = None,
                   workers: Optional[int] = None,
                   read_gt: Callable = None) -> Dict[str, Dict[str, float]]:
    """{phase: {"PSNR": x, "SSIM": y[, "LPIPS": z]}}, as run_eval.py's GT_{phase}_* columns.

    `lpips_fn(gt_frames, gen_frames) -> distances` scores pairs of equal-size BGR frames
    (LPIPS is left out without it). Values are rounded to `decimals` (run_eval.py: 4);
    None keeps full precision. `workers` threads read the GT and score the pairs (None:
    the frames module's default); the values do not depend on it. `read_gt(source,
    indices, size)` reads the GT frames (default read_gt_frames; the engine passes its
    shared reference frames).
    """
    workers = frames_lib.default_workers() if workers is None else workers
    pairs = phase_pairs(phases)
    unique = sorted({pair for plist in pairs.values() for pair in plist})
    height, width = gen_frames.shape[1:3]
    wanted = [gt for _, gt in unique]
    gt_frames = (read_gt(gt_source, wanted, (width, height)) if read_gt is not None
                 else read_gt_frames(gt_source, wanted, (width, height), workers))
    gt_list = [gt_frames[gt] for _, gt in unique]
    gen_list = [gen_frames[gen] for gen, _ in unique]
    psnrs, ssims = fidelity.per_pair_pixel_fidelity(gt_list, gen_list, workers)
    per_pair = {"PSNR": dict(zip(unique, psnrs)), "SSIM": dict(zip(unique, ssims))}
    if lpips_fn is not None:
        per_pair["LPIPS"] = dict(zip(unique, lpips_fn(gt_list, gen_list)))
    results = {}
    for name, plist in pairs.items():
        results[name] = {}
        for metric, scored in per_pair.items():
            value = float(np.mean([scored[pair] for pair in plist]))
            results[name][metric] = round(value, decimals) if decimals is not None else value
    return results
