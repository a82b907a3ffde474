"""Per-phase pixel fidelity (PSNR and SSIM) of generated vs. GT frames."""

import concurrent.futures

import cv2
import numpy as np

from metrics.pixel.psnr import peak_signal_noise_ratio
from metrics.pixel.ssim import structural_similarity_bgr


def _pair_scores(gt, gen):
    """(PSNR, SSIM) of one pair, the GT resized to the generated size if needed."""
    for name, frame in (("generated", gen), ("ground-truth", gt)):
        if not isinstance(frame, np.ndarray) or frame.ndim != 3 or (
                frame.size == 0):
            raise ValueError(f"{name} frames must be (H, W, 3) arrays")
    h, w = gen.shape[:2]
    if gt.shape[:2] != (h, w):
        gt = cv2.resize(gt, (w, h), interpolation=cv2.INTER_AREA)
    return peak_signal_noise_ratio(gt, gen), structural_similarity_bgr(gt, gen)


def per_pair_pixel_fidelity(gt_frames, gen_frames, workers=1):
    """PSNR and SSIM of each (ground truth, generated) frame pair.

    Each GT frame is resized to its generated frame's size with
    `cv2.INTER_AREA` (no crop) before comparing, as the official code does.

    Args:
        gt_frames: Sequence of (H, W, 3) uint8 BGR ground-truth frames.
        gen_frames: Sequence of (h, w, 3) uint8 BGR generated frames, the
            same length as gt_frames.
        workers: Threads scoring pairs (OpenCV and numpy release the GIL); each
            pair is scored alone, so the values do not depend on it.

    Returns:
        (psnrs, ssims): lists of Python floats, one entry per pair.

    Raises:
        ValueError: If the sequences are empty or of different lengths, a
            frame is not an (H, W, 3) uint8 array (the first such pair in
            order is reported), or workers is not a positive int.
    """
    if len(gt_frames) != len(gen_frames):
        raise ValueError(
            f"frame count mismatch: {len(gt_frames)} ground-truth vs "
            f"{len(gen_frames)} generated frames"
        )
    if len(gt_frames) == 0:
        raise ValueError("no frame pairs to compare")
    if isinstance(workers, bool) or not isinstance(workers, int) or workers <= 0:
        raise ValueError(f"workers must be a positive int, got {workers!r}")
    if workers == 1 or len(gt_frames) == 1:
        scores = [_pair_scores(gt, gen) for gt, gen in zip(gt_frames, gen_frames)]
    else:
        with concurrent.futures.ThreadPoolExecutor(
                min(workers, len(gt_frames)), thread_name_prefix="pixel-fidelity") as pool:
            scores = list(pool.map(_pair_scores, gt_frames, gen_frames))
    return [p for p, _ in scores], [s for _, s in scores]


def phase_pixel_fidelity(gt_frames, gen_frames):
    """Mean PSNR and mean SSIM over (ground truth, generated) frame pairs.

    Args:
        gt_frames: Sequence of (H, W, 3) uint8 BGR ground-truth frames.
        gen_frames: Sequence of generated frames, the same length.

    Returns:
        (mean PSNR in dB, mean SSIM) as Python floats.

    Raises:
        ValueError: As per_pair_pixel_fidelity.
    """
    psnrs, ssims = per_pair_pixel_fidelity(gt_frames, gen_frames)
    return float(np.mean(psnrs)), float(np.mean(ssims))
