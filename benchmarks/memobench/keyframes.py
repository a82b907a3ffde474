"""MemoBench's keyframes: the phase sheet's H/R frames mapped onto a generated clip, and
the phases they bound (run_eval.py, spec §3).

Rounding uses Python's `round` (halves to the even neighbour), as the official code does.
"""

MIN_GENERATED_FRAMES = 6


def map_keyframes(h_gt, r_gt, gt_total, gen_total):
    """Maps ground-truth keyframes (H, R) onto a generated video.

    Args:
        h_gt: Index of the H keyframe in the ground-truth video.
        r_gt: Index of the R keyframe in the ground-truth video.
        gt_total: Number of frames in the ground-truth video.
        gen_total: Number of frames in the generated video.

    Returns:
        (h, r) in the generated video, with 2 <= h <= gen_total - 4 and
        h + 2 <= r <= gen_total - 1 (the lower bound wins on conflict).

    Raises:
        ValueError: If gt_total <= 0 or gen_total < 6.
    """
    if gt_total <= 0:
        raise ValueError(f"gt_total must be positive, got {gt_total}")
    if gen_total < MIN_GENERATED_FRAMES:
        raise ValueError(
            f"generated video has {gen_total} frames, fewer than the "
            f"{MIN_GENERATED_FRAMES} the V-D-R phases need"
        )
    h = round(h_gt / gt_total * gen_total)
    r = round(r_gt / gt_total * gen_total)
    h = max(2, min(h, gen_total - 4))
    r = max(h + 2, min(r, gen_total - 1))
    return int(h), int(r)


def phase_ranges(h, r, num_frames):
    """Inclusive index ranges of the phases; neighbours share boundary frames.

    Args:
        h: H keyframe index.
        r: R keyframe index.
        num_frames: Number of frames in the video.

    Returns:
        {"O": (0, h), "H": (h, r), "R": (r, num_frames - 1),
         "ALL": (0, num_frames - 1)}.

    Raises:
        ValueError: Unless 0 <= h <= r <= num_frames - 1.
    """
    if not 0 <= h <= r <= num_frames - 1:
        raise ValueError(
            f"need 0 <= h <= r <= num_frames - 1, got h={h}, r={r}, "
            f"num_frames={num_frames}"
        )
    last = num_frames - 1
    return {"O": (0, h), "H": (h, r), "R": (r, last), "ALL": (0, last)}

