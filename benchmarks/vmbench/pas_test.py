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
