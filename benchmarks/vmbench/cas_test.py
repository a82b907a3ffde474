"""The CAS family on a stand-in classifier: views in, the expected rating out."""

import numpy as np
import pytest

from benchmarks.vmbench import cas
from benchmarks.vmbench import prompt_suite
from benchmarks.vmbench import sample as sample_lib

PROMPT = prompt_suite.Prompt("0003", "dog", {"index": "0003", "subject_noun": "dog"})


class Certain:
    """Puts all mass on class 4 for views whose red mean is higher than blue's."""

    def __init__(self):
        self.batches = []

    def logits(self, clips, batch_size):
        self.batches.append((len(clips), batch_size))
        red, blue = clips[:, 0].mean(axis=(1, 2, 3)), clips[:, 2].mean(axis=(1, 2, 3))
        out = np.full((len(clips), 5), -50.0, np.float32)
        out[:, 4] = np.where(red > blue, 50.0, -50.0)
        out[:, 0] = np.where(red > blue, -50.0, 50.0)
        return out


def _score(frames_bgr):
    ctx = sample_lib.VideoContext(sample_id="0003", frames=frames_bgr, prompt=PROMPT, fps=8,
                                  path=None)
    classifier = Certain()
    result = cas.Cas(None, (), classifier).compute(ctx)
    return result.columns, classifier


def test_red_video_is_rated_best_blue_worst_and_views_are_30():
    red = np.zeros((20, 120, 160, 3), np.uint8)
    red[..., 2] = 200  # BGR: red channel
    cols, classifier = _score(red)
    assert cols["commonsense_adherence_score"] == pytest.approx(1.0)
    assert cols[cas.VIEWS] == 30 and classifier.batches == [(30, 10)]
    blue = red[..., ::-1].copy()
    assert _score(blue)[0]["commonsense_adherence_score"] == pytest.approx(0.0, abs=1e-12)


def test_official_intent_is_the_official_backend_and_as_shipped_is_not():
    official = cas.backend(cas.OFFICIAL_INTENT)
    assert official.official and official.name == "videomae-v2-vit-g14-5cls"
    assert "never loads it" in official.note and "decord" in official.note
    shipped = cas.backend(cas.AS_SHIPPED, seed=7)
    assert not shipped.official and "random init, as shipped" in shipped.name
    assert "seed 7" in shipped.note and "never leaderboard-eligible" in shipped.note
    with pytest.raises(ValueError, match="CAS mode"):
        cas.backend("random")
