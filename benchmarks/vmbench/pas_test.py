"""The PAS family on the engine (weight-free backend): the family contract, and the known
motion of a textured square through a real sample context."""

import numpy as np
import pytest

from benchmarks.common import family_contract as contract
from benchmarks.vmbench import metric_specs
from benchmarks.vmbench import pas
from benchmarks.vmbench import prompt_suite
from benchmarks.vmbench import sample as sample_lib
from metrics.tracking import grid
from metrics.tracking import lk_tracker
from tools.fixtures import vmbench_clips

PROMPT = prompt_suite.Prompt("0001", "square", {"index": "0001", "subject_noun": "square"})


def _ctx(frames):
    return sample_lib.VideoContext(sample_id="0001", frames=frames, prompt=PROMPT, fps=8.0,
                                   path=None)


def test_contract():
    frames, _ = vmbench_clips.square_clip(4, frames=9)
    contract.check_all([pas.PasLucasKanade()], _ctx(frames), metric_specs.TABLE,
                       known_columns=(*metric_specs.PER_VIDEO_IDS, pas.BACKGROUND, pas.POINTS))


def test_backend_is_named_and_not_official():
    fam = pas.PasLucasKanade()
    assert fam.backend.name == metric_specs.PAS_LK == metric_specs.BY_ID[
        "perceptible_amplitude_score"].backends[1]
    assert not fam.backend.official and not fam.backend.parity.verified
    assert fam.backend.digest_pinned  # weight-free


def test_no_detection_branch_whole_frame_motion():
    """No detector: PAS is the whole-frame grid's motion degree (the official
    no-detection branch); the square's share of the grid moves 4 px per frame."""
    frames, mask = vmbench_clips.square_clip(4)
    result = pas.PasLucasKanade().compute(_ctx(frames))
    value = result.columns["perceptible_amplitude_score"]
    assert value == result.columns[pas.BACKGROUND]
    assert result.columns[pas.POINTS] == 900
    full = 4 * (len(frames) - 1) / np.hypot(512, 384)
    assert value > len(grid.masked_grid(30, mask)) / 900 * full * 0.9
    static, _ = vmbench_clips.square_clip(0)
    assert pas.PasLucasKanade().compute(_ctx(static)).columns[
        "perceptible_amplitude_score"] == pytest.approx(0, abs=1e-4)


def _lk(frames, mask):
    return lk_tracker.track_grid(frames, 30, mask)[0]


def test_with_a_subject_mask_the_background_is_subtracted():
    """The square's own mask as the detection: subject motion minus the background's
    (outside the square, dragged a little where the square passes) is the square's
    N px per frame path, within LK's error at the square's border."""
    frames, mask = vmbench_clips.square_clip(4)
    value, background, subject = pas.perceptible_amplitude(frames, mask[None], _lk)
    full = 4 * (len(frames) - 1) / np.hypot(512, 384)
    assert subject == pytest.approx(full, rel=0.05)
    assert 0 < background < 0.2 * full
    assert value == pytest.approx(subject - background)


def test_two_disjoint_detections_make_the_whole_frame_background():
    frames, mask = vmbench_clips.square_clip(4)
    other = np.zeros_like(mask)
    other[:40, -40:] = True
    value, background, subject = pas.perceptible_amplitude(
        frames, np.stack([mask, other]), _lk)
    whole, _, _ = pas.perceptible_amplitude(frames, np.zeros((0,) + mask.shape, bool), _lk)
    assert background == pytest.approx(whole)   # the official any(~masks) rule
