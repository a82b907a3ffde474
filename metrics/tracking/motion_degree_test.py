"""The motion degree and the background rule against a numpy transcription of the spec
(../shared/specs/vmbench.md §4.1 steps 5, 7, 8), on fixed inputs; quirks pinned."""

import math

import numpy as np
import pytest

from metrics.tracking import motion_degree as md


def _reference(tracks, width, height):
    """amp = mean_n sum_t ||P[t,n] - P[t-1,n]|| / sqrt(W^2 + H^2), in float64."""
    total = np.zeros(tracks.shape[1])
    for t in range(1, tracks.shape[0]):
        total += np.sqrt(((tracks[t] - tracks[t - 1]) ** 2).sum(axis=1))
    return float(np.mean(total / math.sqrt(width ** 2 + height ** 2)))


def test_against_the_transcription_on_random_tracks():
    rng = np.random.default_rng(0)
    tracks = rng.uniform(0, 700, size=(49, 900, 2)).astype(np.float32)
    assert md.motion_degree(tracks, 720, 480) == pytest.approx(
        _reference(tracks.astype(np.float64), 720, 480), rel=1e-5)


def test_known_answer_straight_line():
    t = np.arange(49, dtype=np.float32)
    tracks = np.stack([np.stack([3 * t, 4 * t], axis=1)] * 5, axis=1)  # 5 px per frame
    assert md.motion_degree(tracks, 300, 400) == pytest.approx(5 * 48 / 500, rel=1e-6)


def test_it_is_a_path_length_not_a_displacement_and_grows_with_length():
    back_and_forth = np.array([[[0, 0]], [[10, 0]], [[0, 0]]], np.float32)
    assert md.motion_degree(back_and_forth, 6, 8) == pytest.approx(2.0)
    one = np.array([[[0, 0]], [[1, 0]]], np.float32)
    two = np.array([[[0, 0]], [[1, 0]], [[2, 0]]], np.float32)
    assert md.motion_degree(two, 6, 8) == pytest.approx(2 * md.motion_degree(one, 6, 8))


def test_no_points_is_nan_and_bad_shapes_raise():
    assert math.isnan(md.motion_degree(np.zeros((5, 0, 2)), 10, 10))
    with pytest.raises(ValueError, match=r"\(T, N, 2\)"):
        md.motion_degree(np.zeros((5, 3)), 10, 10)
    with pytest.raises(ValueError, match="positive frame size"):
        md.motion_degree(np.zeros((5, 3, 2)), 0, 10)


def test_background_is_subtracted_only_when_the_subject_moves_more():
    assert md.net_subject_motion(0.5, 0.2) == pytest.approx(0.3)
    # Quirk (official): subject <= background keeps the subject value, unsubtracted.
    assert md.net_subject_motion(0.2, 0.5) == 0.2
    assert md.net_subject_motion(0.5, 0.5) == 0.5


def test_nan_subject_and_no_detection_give_the_background():
    assert md.net_subject_motion(math.nan, 0.4) == 0.4
    assert md.net_subject_motion(None, 0.4) == 0.4


def test_background_is_what_any_mask_leaves_uncovered():
    a = np.zeros((4, 6), bool); a[:, :3] = True
    b = np.zeros((4, 6), bool); b[:, 3:] = True
    subject, background = md.subject_and_background_masks(np.stack([a, b]), 4, 6)
    assert subject.all()
    # Quirk (official): two disjoint detections make the whole frame background.
    assert background.all()
    subject, background = md.subject_and_background_masks(a[None], 4, 6)
    assert (background == ~a).all() and (subject == a).all()
    subject, background = md.subject_and_background_masks(np.zeros((0, 4, 6)), 4, 6)
    assert subject is None and background.all()


def test_float32_as_torch_computes_it():
    """The official value is computed by torch in float32 on the tracker's float32
    tracks: a torch transcription of the formula agrees to float32 precision."""
    import torch  # pylint: disable=import-outside-toplevel
    rng = np.random.default_rng(1)
    tracks = rng.uniform(0, 480, size=(49, 792, 2)).astype(np.float32)
    t = torch.from_numpy(tracks)
    diagonal = torch.sqrt(torch.tensor(720 ** 2 + 480 ** 2, dtype=torch.float32))
    expected = (torch.linalg.norm(t[1:] - t[:-1], dim=-1) / diagonal).sum(0).mean().item()
    assert md.motion_degree(tracks, 720, 480) == pytest.approx(expected, rel=2e-6)
