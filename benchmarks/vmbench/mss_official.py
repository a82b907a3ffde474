"""MSS (spec §4.5) with the official model: Q-Align one-align (metrics/qalign).

Per video, as motion_smoothness_score.py does it:
  1. the frames in RGB (the official script decodes with decord, RGB; ours arrive BGR);
  2. frame t's window of 3 frames (mss_rules.windows, the official special cases);
  3. each window scored by QAlignVideoScorer's prompt, preprocessing and level tokens
     (metrics/qalign/scorer.py); the official code sends all T windows in one batch,
     here they go in chunks of at most --mss_batch_frames frames (the same scores);
  4. the threshold from the raw PAS of the same video (ctx.earlier: PAS runs before MSS),
     the artifact frames and MSS = 1 - |artifact frames| / T (mss_rules.score).
A video without a PAS value makes MSS unavailable for it (the official script reads the
key from its meta-info file and stops with a KeyError). A PAS of None in ctx.earlier takes
the official None threshold (0.01), but the engine (sample_loop.run_families) copies only
non-None columns into ctx.earlier, so in a run such a video arrives without PAS.

`load_mss(path_of, device, arch=None, batch_frames=...)` builds the family from the
resolved snapshot path (`path_of(spec) -> str`); `arch` (tests only) replaces the
snapshot's config.json architecture.
"""

import numpy as np

from benchmarks.common import calibration
from benchmarks.common import family as family_lib
from benchmarks.vmbench import checkpoints as specs
from benchmarks.vmbench import metric_specs
from benchmarks.vmbench import mss_rules
from benchmarks.vmbench import official_scores

BATCH_FRAMES = 48  # --mss_batch_frames default: 16 windows of 3 frames per model call
NO_PAS = "MSS needs PAS of the same video"


def backend():
    """The official MSS backend with its parity facts from the parity table."""
    from proto import scorecard_pb2  # pylint: disable=import-outside-toplevel
    name = metric_specs.BY_ID[official_scores.MSS].backends[0]  # "q-align-one-align"
    return scorecard_pb2.Backend(
        name=name, official=True,
        parity=calibration.parity(name, otherwise="no calibration row for every part yet"),
        note="Q-Align one-align (mPLUG-Owl2) in-tree on the published weights; windows of "
             "3 frames scored in chunks",
        implementation="benchmarks/vmbench/mss_official.py + metrics/qalign")


class MssOfficial(family_lib.Family):
    """MSS with Q-Align (see module). `scorer` has score_windows(windows, batch_frames)."""

    name = "mss"
    metric_ids = (official_scores.MSS,)

    def __init__(self, backend, checkpoints, scorer, batch_frames: int = BATCH_FRAMES):
        super().__init__(backend, checkpoints)
        if batch_frames < 1:
            raise ValueError(f"--mss_batch_frames must be positive, found {batch_frames}")
        self.scorer, self.batch_frames = scorer, batch_frames

    def window_scores(self, frames_bgr: np.ndarray) -> np.ndarray:
        rgb = np.ascontiguousarray(np.asarray(frames_bgr)[..., ::-1])
        windows = [[rgb[i] for i in window] for window in mss_rules.windows(len(rgb))]
        return self.scorer.score_windows(windows, self.batch_frames)

    def compute(self, ctx) -> family_lib.FamilyResult:
        if official_scores.PAS not in ctx.earlier:
            raise family_lib.FamilyUnavailable(
                f"{NO_PAS} (no {official_scores.PAS} for {ctx.sample_id}: PAS did not "
                f"run or could not score it)")
        pas = ctx.earlier[official_scores.PAS]
        scores = self.window_scores(ctx.frames)
        return family_lib.FamilyResult({official_scores.MSS: mss_rules.score(scores, pas)})


def load_mss(path_of, device, arch=None, batch_frames: int = BATCH_FRAMES, dtype=None,
             checkpoints=()) -> MssOfficial:
    """The MSS family on the Q-Align snapshot `path_of(specs.Q_ALIGN_ONE_ALIGN)`; dtype
    float16 on CUDA and float32 on CPU unless named ("bfloat16", ...: metrics/qalign)."""
    from metrics.qalign import scorer as scorer_lib  # pylint: disable=import-outside-toplevel
    scorer = scorer_lib.load_video_scorer(path_of(specs.Q_ALIGN_ONE_ALIGN), device,
                                          dtype=dtype, config=arch)
    return MssOfficial(backend(), checkpoints, scorer, batch_frames)
