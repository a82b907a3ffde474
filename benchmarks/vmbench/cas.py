"""CAS (spec §4.4) on the engine: VideoMAE v2 ViT-g/14 with its 5-way head.

Per video: the 30 test views of metrics/videomae/views.py (16 frames at stride 4, 10
temporal x 3 spatial, short side 224) of the RGB frames, the classifier's logits per view
(batched), each view's softmax in float64 and their mean, then the expected rating with
weights 0, 0.25, 0.5, 0.75, 1 (class 0 worst).

Deviations from the official run, named in the backend: frames come from OpenCV (the
official dataset decodes with decord; the two give identical pixels on our test clips:
tools/calibration/decode_parity_test.py); one process instead of torchrun/NCCL/DeepSpeed.
Modes: `official-intent` loads vit_g_vmbench.pt as run_class_finetuning.py would (the
leaderboard's numbers imply it); `as-shipped` scores with the random initialisation the
official commonsense_adherence_score.py actually runs (it never loads the checkpoint),
only to show that behaviour: never leaderboard-eligible.
"""

from benchmarks.common import calibration
from benchmarks.common import family as family_lib
from benchmarks.vmbench import metric_specs
from benchmarks.vmbench import official_scores
from metrics.videomae import views
from proto import scorecard_pb2

BACKEND_NAME = metric_specs.CAS_OFFICIAL

WEIGHTS = (0.0, 0.25, 0.5, 0.75, 1.0)
OFFICIAL_INTENT, AS_SHIPPED = "official-intent", "as-shipped"
VIEWS = "cas_views"
MODES = (OFFICIAL_INTENT, AS_SHIPPED)
_DEVIATIONS = ("frames decoded with OpenCV (the official dataset uses decord: identical "
               "pixels on H.264/HEVC/VP9/MPEG-4 test clips, tools/calibration:"
               "decode_parity_test); one process, views batched, no torchrun/NCCL/DeepSpeed")


def backend(mode: str, seed: int = 0) -> scorecard_pb2.Backend:
    """official-intent: the official backend (vit_g_vmbench.pt loaded as
    run_class_finetuning.py loads it). as-shipped: named, NOT official, never eligible."""
    parity = calibration.parity(BACKEND_NAME, otherwise="no calibration row yet")
    if mode == OFFICIAL_INTENT:
        return scorecard_pb2.Backend(
            name=BACKEND_NAME, official=True, parity=parity,
            implementation="benchmarks/vmbench/cas.py + metrics/videomae",
            note="vit_g_vmbench.pt loaded as run_class_finetuning.py loads a --finetune "
                 "file (the leaderboard's numbers imply it); the shipped "
                 "commonsense_adherence_score.py never loads it (spec §4.4); "
                 + _DEVIATIONS)
    if mode != AS_SHIPPED:
        raise ValueError(f"expected a CAS mode in {MODES}, found {mode!r}")
    return scorecard_pb2.Backend(
        name=metric_specs.CAS_AS_SHIPPED, official=False, parity=parity,
        implementation="benchmarks/vmbench/cas.py + metrics/videomae (vit.random_init)",
        note=f"--cas_faithful_random_init: the shipped script's behaviour, the model's "
             f"random initialisation (torch seed {seed}; upstream's is unseeded), no "
             "checkpoint: meaningless as a score, NOT official, never leaderboard-eligible")


class Cas(family_lib.Family):
    """CAS with a classifier whose `logits(views, batch_size)` gives (V, 5)."""

    name = "cas"
    metric_ids = (official_scores.CAS,)

    def __init__(self, backend, checkpoints, classifier, batch_size: int = 10):
        super().__init__(backend, checkpoints)
        self.classifier, self.batch_size = classifier, batch_size

    def compute(self, ctx) -> family_lib.FamilyResult:
        clips = views.views(ctx.frames[..., ::-1])
        logits = self.classifier.logits(clips, batch_size=self.batch_size)
        value = views.expected_rating(views.mean_softmax(logits), WEIGHTS)
        return family_lib.FamilyResult({official_scores.CAS: value, VIEWS: float(len(clips))})
