"""MSS with Q-Align: the family on a tiny random snapshot through the real loader."""

import numpy as np
import pytest

from benchmarks.common import family as family_lib
from benchmarks.common import sample_context
from benchmarks.common import sample_loop
from benchmarks.vmbench import checkpoints as specs
from benchmarks.vmbench import metric_specs
from benchmarks.vmbench import mss_official
from benchmarks.vmbench import mss_rules
from benchmarks.vmbench import official_scores
from metrics.qalign import config as config_lib
from metrics.qalign import tiny_snapshot
from proto import scorecard_pb2

T = 6


@pytest.fixture(scope="module", name="snapshot")
def _snapshot(tmp_path_factory):
    root = tmp_path_factory.mktemp("one_align")
    tiny_snapshot.write(root, seed=1)
    return root


@pytest.fixture(scope="module", name="family")
def _family(snapshot):
    asked = []

    def path_of(spec):
        asked.append(spec)
        return str(snapshot)
    fam = mss_official.load_mss(path_of, "cpu", arch=None, batch_frames=6)
    assert asked == [specs.Q_ALIGN_ONE_ALIGN] and specs.MSS == (specs.Q_ALIGN_ONE_ALIGN,)
    assert fam.scorer.loaded.model.config.vision == config_lib.TINY.vision
    return fam


def _frames(seed=0):
    """(T, H, W, 3) BGR frames whose content jumps at frame 3, so scores move."""
    rng = np.random.default_rng(seed)
    frames = rng.integers(0, 256, (T, 20, 32, 3), dtype=np.uint8)
    frames[3:] = 255 - frames[3:]
    return frames


def _ctx(frames, earlier):
    return sample_context.SampleContext(sample_id="v0", frames=frames, earlier=dict(earlier))


def _artifact_mss(scores, pas):
    """Spec §4.5 steps 3-5 transcribed independently."""
    thr = 0.01 if pas is None or pas < 0.1 else 0.015 if pas < 0.3 else \
        0.025 if pas < 0.5 else 0.03
    bad = set()
    for i in range(len(scores) - 1):
        if abs(scores[i + 1] - scores[i]) > thr:
            bad |= {i, i + 1}
    return 1 - len(bad) / len(scores)


def test_windows_are_the_spec_windows_of_rgb_frames():
    seen = []

    class Recorder:
        def score_windows(self, windows, batch_frames):
            seen.append((windows, batch_frames))
            return np.zeros(len(windows))
    fam = mss_official.MssOfficial(scorecard_pb2.Backend(), (), Recorder(), batch_frames=9)
    frames = _frames()
    fam.compute(_ctx(frames, {official_scores.PAS: 0.2}))
    windows, batch = seen[0]
    assert batch == 9 and len(windows) == T
    expected = [[0, 0, 0], [0, 1, 2], [1, 2, 3], [2, 3, 4], [3, 4, 5], [4, 4, 5]]
    assert mss_rules.windows(T) == expected
    for window, indices in zip(windows, expected):
        for got, i in zip(window, indices):
            np.testing.assert_array_equal(got, frames[i][..., ::-1])


@pytest.mark.parametrize("pas", [0.05, 0.2, 0.4, 0.9, None])
def test_mss_from_the_tiny_model_and_the_pas_threshold(family, pas):
    frames = _frames()
    rgb = frames[..., ::-1]
    scores = family.scorer.score_windows([[rgb[i] for i in w] for w in mss_rules.windows(T)])
    assert np.ptp(scores) > 0.01  # the tiny model's scores do move across the cut
    got = family.compute(_ctx(frames, {official_scores.PAS: pas})).columns
    assert got == {official_scores.MSS: _artifact_mss(list(scores), pas)}


def test_chunking_does_not_change_the_window_scores(family, snapshot):
    frames = _frames(seed=2)
    one = mss_official.load_mss(lambda _: str(snapshot), "cpu", batch_frames=3 * T)
    np.testing.assert_allclose(family.window_scores(frames), one.window_scores(frames),
                               rtol=0, atol=1e-6)


def test_without_pas_the_family_is_unavailable_through_the_engine(family):
    class Pas(family_lib.Family):
        name, metric_ids = "pas", (official_scores.PAS,)

        def compute(self, ctx):
            raise family_lib.FamilyUnavailable("no subject found")
    sample = scorecard_pb2.SampleScore()
    columns = sample_loop.run_families(_ctx(_frames(), {}), [Pas(None), family], sample)
    assert columns == {}
    reason = sample.unavailable[official_scores.MSS]
    assert reason.startswith("mss: FamilyUnavailable: " + mss_official.NO_PAS)


def test_backend_is_the_spec_name_and_batch_frames_must_be_positive():
    assert mss_official.backend().name == "q-align-one-align"
    assert metric_specs.BY_ID[official_scores.MSS].backends == ("q-align-one-align",)
    with pytest.raises(ValueError, match="mss_batch_frames"):
        mss_official.MssOfficial(scorecard_pb2.Backend(), (), None, batch_frames=0)
