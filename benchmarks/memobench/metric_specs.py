"""MemoBench's metric table: the 14 leaderboard columns (spec §1) and the Step 1 diagnostics.

Each metric is declared once here: id, display name, unit, direction, the official
column, the step and family that compute it, its backends (the official one first) and
the official files that carry it. The runner, the gate and the output writers read it;
//benchmarks/memobench:metric_table_test checks every other list against it.
"""

from benchmarks.common.metric_table import MetricGroup
from benchmarks.common.metric_table import MetricTable
from benchmarks.common.scorecard import MetricSpec

_CLIP_MEAN = "mean over clips, synthetic and real pooled (leaderboard.py)"
STEP1, ORS, VQA = "step1", "ors", "vqa"
EVAL_CSV, ORS_CSV, VQA_CSV = "eval_<mode>.csv", "ors_scores.csv", "vqa_results/<model>/*.csv"
LEADERBOARD_CSV = "leaderboard.csv"

_PIXEL = "opencv-numpy (run_eval.py reference_fidelity transcription)"
_LPIPS = ("lpips-package-v0.1-alex",)  # the lpips package (metrics/lpips loads it)
_VISUAL = ("laion-aesthetic-clip-vit-l14 + clipiqa+-rn50",)
_JUDGES = ("gemini-files-api", "openai-compatible")


# Each metric's range on its per-clip file's scale (the leaderboard.csv value of ORS and
# the VQA dimensions is x100), from run_eval.py's arithmetic (spec §4, §5):
_PCT = (0.0, 100.0)  # the composites and _pct columns: clip(x, 0, 100) (§4.1-§4.6, §5)
# PSNR: 10 log10(255^2 / MSE) >= 0 as MSE <= 255^2; below MSE 1e-10 the code writes 99.0,
# so never inf, and at most 10 log10(255^2 / 1e-10) = 148.13 (§4.7).
_PSNR = (0.0, 148.14)
# SSIM: the mean of the SSIM map num / (den + 1e-8), in [-1, 1]; the docs' 0-1 is
# nominal: a negatively correlated frame is below 0 (§4.7).
_SSIM, _UNIT = (-1.0, 1.0), (0.0, 1.0)
# LPIPS (AlexNet, non-negative learned weights on squared feature differences): >= 0;
# the docs' 0-1 is nominal, no bound in the arithmetic (§4.7).
_LPIPS_RANGE = (0.0, None)
_FIDELITY = {"PSNR": (_PSNR, None), "SSIM": (_SSIM, _UNIT), "LPIPS": (_LPIPS_RANGE, _UNIT)}


def _step1(metric_id, name, unit, higher, family, backends, column=None, leaderboard=True,
           aggregation=_CLIP_MEAN, official_range=_PCT, nominal_range=None):
    files = (EVAL_CSV, LEADERBOARD_CSV) if leaderboard else (EVAL_CSV,)
    return MetricSpec(metric_id, name, unit, higher, leaderboard, aggregation,
                      official_column=column or metric_id, step=STEP1, family=family,
                      backends=tuple(backends), output_files=files,
                      official_range=official_range, nominal_range=nominal_range)


def _vqa(metric_id, name, column):
    # score[dimension] = passes / questions, 0-1 in the per-clip CSV (§7).
    return MetricSpec(metric_id, name, "0-100", True, True, _CLIP_MEAN + ", x100",
                      official_column=column, step=VQA, family="vqa_judge", backends=_JUDGES,
                      output_files=(VQA_CSV, LEADERBOARD_CSV), official_range=_UNIT)


LEADERBOARD = (
    _step1("VisualQuality", "Visual Quality", "0-100", True, "visual_quality", _VISUAL),
    _step1("MotionSmoothness", "Motion Smoothness", "0-100", True, "motion_smoothness",
           ("raft-large", "opencv-dis")),
    _step1("ObjIdentityConsistency", "Object Identity Consistency", "0-100", True,
           "object_identity", ("dinov2-vitb14",)),
    _step1("Geo3DConsistency", "Geo3D Consistency", "0-100", True, "geo3d",
           ("depth-anything-v2-small",)),
    _step1("CameraControllability", "Camera Controllability", "0-100", True,
           "camera_controllability", ("mapanything", "classical-two-view-rotation")),
    _step1("ImageRewardScore", "ImageReward", "0-100", True, "image_reward",
           ("image-reward-v1.0",), column="ImageRewardScore_pct"),
    # ors = detection_rate x mean SAM-3 confidence, each 0-1, in ors_scores.csv (§6).
    MetricSpec("ORS", "Object Revisit Score", "0-100", True, True, _CLIP_MEAN + ", x100",
               official_column="ors", step=ORS, family="ors", backends=("sam3-transformers",),
               output_files=(ORS_CSV, LEADERBOARD_CSV), official_range=_UNIT),
    _step1("GT_ALL_PSNR", "PSNR vs GT (all frames)", "dB", True, "pixel_fidelity", (_PIXEL,),
           official_range=_PSNR),
    _step1("GT_ALL_SSIM", "SSIM vs GT (all frames)", "0-1", True, "pixel_fidelity", (_PIXEL,),
           official_range=_SSIM, nominal_range=_UNIT),
    _step1("GT_ALL_LPIPS", "LPIPS vs GT (all frames)", "0-1", False, "pixel_fidelity",
           _LPIPS, official_range=_LPIPS_RANGE, nominal_range=_UNIT),
    _vqa("InstructionFollowing", "VQA Instruction Following", "Instruction Following"),
    _vqa("ObjectBackground", "VQA Object and Background", "Object and Background"),
    _vqa("ContinuityOfMemory", "VQA Continuity of Memory", "Continuity of Memory"),
    _vqa("PhysicsAdherence", "VQA Physics Adherence", "Physics Adherence"),
)

_PHASE_NAMES = {"O": "Visible", "H": "Disappeared", "R": "Reappear"}
DIAGNOSTICS = tuple(
    _step1(f"GT_{p}_{m}", f"{m} vs GT ({name} phase)", unit, m != "LPIPS", "pixel_fidelity",
           _LPIPS if m == "LPIPS" else (_PIXEL,), leaderboard=False,
           aggregation="mean over clips", official_range=_FIDELITY[m][0],
           nominal_range=_FIDELITY[m][1])
    for p, name in _PHASE_NAMES.items()
    for m, unit in (("PSNR", "dB"), ("SSIM", "0-1"), ("LPIPS", "0-1"))
) + (_step1("GTRevisitSim", "CLIP similarity to GT, Reappear phase", "0-100", True,
            "gt_revisit", ("clip-vit-b32",), leaderboard=False, aggregation="mean over clips"),
     # The raw LAION head's output (a linear layer: no bound, "~0-10"), rounded (§4.2).
     _step1("AestheticScore", "LAION aesthetic score (half of VisualQuality)", "0-10", True,
            "visual_quality", ("laion-aesthetic-clip-vit-l14",),
            leaderboard=False, aggregation="mean over clips", official_range=None))

# The per-phase fidelity diagnostics as one figure: each measure across the three phases.
PHASE_FIDELITY = MetricGroup(
    "fidelity_by_phase", "Fidelity to GT by phase (Visible / Disappeared / Reappear)",
    columns=tuple(_PHASE_NAMES.values()),
    rows=tuple((m, tuple(f"GT_{p}_{m}" for p in _PHASE_NAMES))
               for m in ("PSNR", "SSIM", "LPIPS")))

TABLE = MetricTable("MemoBench", LEADERBOARD + DIAGNOSTICS, groups=(PHASE_FIDELITY,))
ALL = TABLE.specs
BY_ID = TABLE.by_id


# Metrics this version cannot compute, with the reason (none today: every metric has a
# backend; one that cannot be loaded is reported unavailable with its own reason).
PENDING = {}
