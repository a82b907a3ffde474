"""WorldScore's runtime profile against the code: the metric ids, what the runner
computes, and the checkpoints its loaders resolve."""

from benchmarks.common import runtime_profiles
from benchmarks.worldscore import aspects
from benchmarks.worldscore import droid_slam
from benchmarks.worldscore import families
from benchmarks.worldscore import flow_metrics
from benchmarks.worldscore import motion_accuracy
from benchmarks.worldscore import motion_smoothness
from benchmarks.worldscore import object_control
from benchmarks.worldscore import style_consistency
from metrics.clip import aesthetic
from metrics.clip import clip_score
from metrics.clip import clipiqa
from metrics.lpips import lpips

COMPUTED = {"object_detection": (object_control.GROUNDING_DINO_SWINT_OGC,
                                 object_control.BERT_BASE_UNCASED),
            "clip_score": (clip_score.CLIP_VIT_B16,),
            "gram_matrix": (style_consistency.VGG19,),
            "clip_iqa+": (clipiqa.CLIP_RN50, clipiqa.CLIPIQA_PLUS_PROMPTS),
            "clip_aesthetic": (aesthetic.CLIP_VIT_L14, aesthetic.AESTHETIC_HEAD),
            "optical_flow_aepe": (flow_metrics.SEA_RAFT_SPRING_M,),
            "optical_flow": (flow_metrics.SEA_RAFT_SPRING_M,),
            "motion_smoothness": (motion_smoothness.VFIMAMBA, lpips.ALEXNET_SPEC,
                                  lpips.LPIPS_ALEX_SPEC),
            "motion_accuracy": (motion_accuracy.SAM2_1_HIERA_B_PLUS,
                                flow_metrics.SEA_RAFT_SPRING_M),
            "camera_error": (droid_slam.DROID_PTH,),
            "reprojection_error": (droid_slam.DROID_PTH,)}


def test_profile_metrics_are_the_table_and_only_the_computed_are_not_pending():
    profile = runtime_profiles.load_profile("worldscore")
    assert [m.metric_id for m in profile.metrics] == [m.name for a in aspects.ASPECTS
                                                      for m in a.metrics]
    assert {m.metric_id for m in profile.metrics if not m.pending} == set(COMPUTED)
    not_built = {k.split(".", 1)[1] for k in families.NOT_IN_THIS_VERSION}
    assert not_built == {m.metric_id for m in profile.metrics if m.pending}


def test_profile_checkpoints_are_the_loaders_pins():
    """Each metric lists the checkpoints its loaders resolve, in order (each block's
    fields are the spec's: //tests:runtime_profiles_test, over every benchmark)."""
    by_id = {m.metric_id: m for m in runtime_profiles.load_profile("worldscore").metrics}
    for metric_id, specs in COMPUTED.items():
        got = [(c.name, c.file) for c in by_id[metric_id].checkpoints]
        assert got == [(s.name, s.filename) for s in specs], metric_id
