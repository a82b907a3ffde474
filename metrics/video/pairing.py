"""Pairing a generated clip with a reference clip of possibly different length.

Equal lengths pair frame i with frame i; otherwise the reference is resampled to the
generated length as the official whole-clip ('ALL') comparison does:
`sampling.resample_gt_indices(0, n_ref - 1, n_gen)`. Shared by the metric binaries.
"""

from metrics.video import sampling

SAME_LENGTH = "same_length"
RESAMPLED = "resampled_reference"


def pair_reference(reference, num_generated: int):
    """(reference frames aligned with `num_generated` generated frames, pairing name)."""
    if len(reference) == num_generated:
        return reference, SAME_LENGTH
    indices = sampling.resample_gt_indices(0, len(reference) - 1, num_generated)
    return reference[indices], RESAMPLED


def describe(pairing: str, num_reference: int, num_generated: int) -> str:
    """One line saying how the frames were paired."""
    if pairing == SAME_LENGTH:
        return f"frame i with frame i ({num_generated} frames each)"
    return (f"reference resampled from {num_reference} to {num_generated} frames (whole clip "
            f"'ALL' as the official code: resample_gt_indices(0, {num_reference - 1}, "
            f"{num_generated}))")
