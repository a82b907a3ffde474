"""MemoBench's metrics: the 14 leaderboard columns (spec §1) and the Step 1 diagnostics.

`PENDING` says why a metric is not computed by this version of worldeval; the runner
reports those as unavailable with that reason, never as a number.
"""

from benchmarks.common.scorecard import MetricSpec

_CLIP_MEAN = "mean over clips, synthetic and real pooled (leaderboard.py)"

LEADERBOARD = (
    MetricSpec("VisualQuality", "Visual Quality", "0-100", True, True, _CLIP_MEAN),
    MetricSpec("MotionSmoothness", "Motion Smoothness", "0-100", True, True, _CLIP_MEAN),
    MetricSpec("ObjIdentityConsistency", "Object Identity Consistency", "0-100", True, True,
               _CLIP_MEAN),
    MetricSpec("Geo3DConsistency", "Geo3D Consistency", "0-100", True, True, _CLIP_MEAN),
    MetricSpec("CameraControllability", "Camera Controllability", "0-100", True, True,
               _CLIP_MEAN),
    MetricSpec("ImageRewardScore", "ImageReward", "0-100", True, True, _CLIP_MEAN),
    MetricSpec("ORS", "Object Revisit Score", "0-100", True, True, _CLIP_MEAN + ", x100"),
    MetricSpec("GT_ALL_PSNR", "PSNR vs GT (all frames)", "dB", True, True, _CLIP_MEAN),
    MetricSpec("GT_ALL_SSIM", "SSIM vs GT (all frames)", "0-1", True, True, _CLIP_MEAN),
    MetricSpec("GT_ALL_LPIPS", "LPIPS vs GT (all frames)", "0-1", False, True, _CLIP_MEAN),
    MetricSpec("InstructionFollowing", "VQA Instruction Following", "0-100", True, True,
               _CLIP_MEAN + ", x100"),
    MetricSpec("ObjectBackground", "VQA Object and Background", "0-100", True, True,
               _CLIP_MEAN + ", x100"),
    MetricSpec("ContinuityOfMemory", "VQA Continuity of Memory", "0-100", True, True,
               _CLIP_MEAN + ", x100"),
    MetricSpec("PhysicsAdherence", "VQA Physics Adherence", "0-100", True, True,
               _CLIP_MEAN + ", x100"),
)

_PHASE_NAMES = {"O": "Visible", "H": "Disappeared", "R": "Reappear"}
DIAGNOSTICS = tuple(
    MetricSpec(f"GT_{p}_{m}", f"{m} vs GT ({name} phase)", unit, m != "LPIPS", False,
               "mean over clips")
    for p, name in _PHASE_NAMES.items()
    for m, unit in (("PSNR", "dB"), ("SSIM", "0-1"), ("LPIPS", "0-1"))
) + (MetricSpec("GTRevisitSim", "CLIP similarity to GT, Reappear phase", "0-100", True, False,
                "mean over clips"),
       MetricSpec("AestheticScore", "LAION aesthetic score (half of VisualQuality)", "0-10",
                  True, False, "mean over clips"))

ALL = LEADERBOARD + DIAGNOSTICS
BY_ID = {spec.id: spec for spec in ALL}


# Metrics this version cannot compute, with the reason (none today: every metric has a
# backend; one that cannot be loaded is reported unavailable with its own reason).
PENDING = {}
