"""metrics.tracking.online_history against a numpy transcription of the call schedule and
of the concatenated-history reduction (each history built frame by frame here)."""

import numpy as np
import pytest

from metrics.tracking import online_history


def _histories(num_frames, window, positions):
    """What an online tracker returns per call: positions[:L_k] with L_k by the model's rule,
    written here as a loop over calls with the padding the model applies."""
    step = window // 2
    out, length = [], 0
    for ind in range(0, num_frames - step, step):
        chunk = len(range(ind, min(ind + window, num_frames)))
        length = chunk if ind == 0 else length + min(step, chunk - step)
        out.append(positions[:length])
    return out


@pytest.mark.parametrize("num_frames, lengths", [
    (5, [5]), (8, [8]), (9, [8, 9]), (12, [8, 12]), (13, [8, 12, 13]), (21, [8, 12, 16, 20, 21]),
    (4, []),
])
def test_history_lengths_window_8(num_frames, lengths):
    assert online_history.history_lengths(num_frames, 8) == lengths
    assert [len(h) for h in _histories(num_frames, 8, np.zeros((num_frames, 1, 2)))] == lengths


def test_concatenated_history_counts_early_frames_once_per_call():
    rng = np.random.default_rng(0)
    positions = rng.normal(size=(21, 100, 2)).astype(np.float32) * 10
    histories = _histories(21, 8, positions)
    rows, total = 0, 0.0
    for h in histories:
        for frame in h:
            total += np.sqrt(((frame.astype(np.float64) - positions[0]) ** 2).sum(-1)).sum()
            rows += len(frame)
    assert rows == (8 + 12 + 16 + 20 + 21) * 100
    assert online_history.concatenated_history_displacement(histories) == pytest.approx(
        total / rows, rel=1e-5)
    final = np.sqrt(((positions.astype(np.float64) - positions[0]) ** 2).sum(-1)).mean()
    assert online_history.final_history_displacement(histories) == pytest.approx(final, rel=1e-5)


def test_uniform_motion_weights_early_frames_more_than_the_corrected_variant():
    positions = np.zeros((13, 4, 2), np.float32)
    positions[:, :, 0] = np.arange(13)[:, None]  # one pixel per frame along x
    histories = _histories(13, 8, positions)
    # Rows: 0..7, 0..11, 0..12 -> (28 + 66 + 78) / 33; the final history alone: 78 / 13.
    assert online_history.concatenated_history_displacement(histories) == pytest.approx(172 / 33)
    assert online_history.final_history_displacement(histories) == pytest.approx(6.0)
    static = [np.ones_like(h) for h in histories]
    assert online_history.concatenated_history_displacement(static) == 0.0


def test_bad_input_is_a_clear_error():
    with pytest.raises(ValueError, match="at least one tracker output"):
        online_history.concatenated_history_displacement([])
    with pytest.raises(ValueError, match=r"\[L, N, 2\]"):
        online_history.final_history_displacement([np.zeros((3, 2)), np.zeros((4, 3, 2))])
    with pytest.raises(ValueError, match="step"):
        online_history.chunk_starts(10, 0)
