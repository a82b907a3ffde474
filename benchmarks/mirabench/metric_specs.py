"""MiraBench's metric table: the paper's 17 metrics and the four extras the official
calculate_score.py also writes (spec §2), each under its code key, in the official
default --metrics order (spec §1), then the set-level fvd, kvd, fid, kid.

Values are on the official raw scales: no normalisation, no inversion and no composite
anywhere in the official code (spec §1 "How averages are computed"). `leaderboard` marks
the paper's 17; the extras (3D_consistency_num_pts, _num_inliers_F, _keep_ratio, kvd)
are written by the official code but not counted by the paper.
"""

from benchmarks.common.metric_table import MetricTable
from benchmarks.common.scorecard import MetricSpec

VIDEO_SCORE_CSV = "video_score.csv"
AVERAGE_SCORE_CSV = "average_score.csv"  # JSON despite the name (spec §1)

PER_VIDEO = "per_video"   # a column of video_score.csv, its mean in average_score.csv
SET_LEVEL = "set_level"   # one number over the generated and GT sets (average_score.csv)

_MEAN = "pandas mean over the videos that have it (None skipped; calculate_score.py)"
_AVG = (VIDEO_SCORE_CSV, AVERAGE_SCORE_CSV)

# (code key, display name, unit, higher is better, paper metric, family, spec section)
_ROWS = (
    ("temporal_dino_consistency", "DINO temporal consistency", "cosine 0-1", True, True,
     "dino_temporal", "3.1"),
    ("temporal_clip_consistency", "CLIP temporal consistency", "cosine 0-1", True, True,
     "clip_temporal", "3.1"),
    ("temporal_motion_smoothness", "Temporal motion smoothness", "0-1 ((255-vfi)/255)",
     True, True, "amt_smoothness", "3.1"),
    ("dynamic_degree", "Dynamic degree", "px (native; top-5% RAFT flow magnitude)", True,
     True, "raft_dynamic", "3.2"),
    ("tracking_strength", "Tracking strength", "px (native; CoTracker2 displacement)", True,
     True, "cotracker_strength", "3.2"),
    ("3D_consistency_num_pts", "3D consistency: ratio-test matches", "matches per pair",
     True, False, "consistency_3d", "3.3"),
    ("3D_consistency_num_inliers_F", "3D consistency: RANSAC inliers", "inliers per pair",
     True, False, "consistency_3d", "3.3"),
    ("3D_consistency_keep_ratio", "3D consistency: keep ratio", "inliers/matches 0-1",
     True, False, "consistency_3d", "3.3"),
    ("3D_consistency_mean_err", "3D consistency: mean epipolar error (MAE)",
     "px at 1280x720", False, True, "consistency_3d", "3.3"),
    ("3D_consistency_rmse", "3D consistency: epipolar RMSE", "px at 1280x720", False, True,
     "consistency_3d", "3.3"),
    ("aesthetic_quality", "Aesthetic quality", "LAION v1 raw (~1-10)", True, True,
     "laion_aesthetic", "3.4"),
    ("imaging_quality", "Imaging quality", "MUSIQ-SPAQ raw (0-100)", True, True, "musiq",
     "3.4"),
    ("camera_alignment", "Camera alignment", "ViCLIP cosine", True, True, "viclip", "3.5"),
    ("main_object_alignment", "Main object alignment", "ViCLIP cosine", True, True, "viclip",
     "3.5"),
    ("background_alignment", "Background alignment", "ViCLIP cosine", True, True, "viclip",
     "3.5"),
    ("style_alignment", "Style alignment", "ViCLIP cosine", True, True, "viclip", "3.5"),
    ("overall_consistency", "Overall alignment", "ViCLIP cosine", True, True, "viclip",
     "3.5"),
)
# Set-level: (key, display, unit, paper metric, family, section, official pseudo-flag)
_SET_ROWS = (
    ("fvd", "FVD", "Frechet distance on I3D logits", True, "i3d_fvd", "3.6", "fvd&kvd"),
    ("kvd", "KVD", "polynomial-kernel MMD^2 on I3D logits", False, "i3d_fvd", "3.6",
     "fvd&kvd"),
    ("fid", "FID", "Frechet distance on Inception pool3", True, "inception_fid", "3.7",
     "fid&kid"),
    ("kid", "KID", "kid_mean (100 subsets of 100)", True, "inception_fid", "3.7", "fid&kid"),
)

# Each per-video family's backends, the official one first (the families' Backend names;
# //benchmarks/mirabench:model_families_test holds every family to them).
_3D = "consistency_3d: OpenCV SIFT(40000) / FLANN / RANSAC(3 px) at 1280x720, seeded"
BACKENDS = {
    "dino_temporal": ("dino_vitb16",),
    "clip_temporal": ("clip_vit_b32_quick_gelu",),
    "amt_smoothness": ("amt_s",),
    "raft_dynamic": ("raft_things",),
    "cotracker_strength": ("cotracker2_online",
                           "cotracker2_online, tracking_strength_final_history"),
    "consistency_3d": (_3D,),
    "laion_aesthetic": ("clip_vit_l14_quick_gelu+laion_linear_v1",),
    "musiq": ("musiq_spaq",),
    "viclip": ("viclip_internvid_10m_flt",),
}
# Each per-video column's range in video_score.csv (its raw units), from the official
# arithmetic (spec §3); a metric not listed has none beyond being finite: the LAION linear
# head (aesthetic_quality) and MUSIQ-SPAQ's regression output (imaging_quality) are
# unbounded ("about 1-10", "0-100" are typical values), and the set-level values are
# unbiased estimates (KVD, KID can be below 0) or SVD arithmetic.
_UNIT, _NON_NEGATIVE = (0.0, 1.0), (0.0, None)
_COSINE = (-1.0, 1.0)  # ViCLIP: a raw cosine, no clamp (§3.5)
RANGES = {
    # mean over t of (max(0, cos) + max(0, cos)) / 2 (§3.1)
    "temporal_dino_consistency": _UNIT, "temporal_clip_consistency": _UNIT,
    "temporal_motion_smoothness": _UNIT,  # (255 - mean |uint8 diff|) / 255 (§3.1)
    "dynamic_degree": _NON_NEGATIVE,      # mean of top-5% flow magnitudes, px (§3.2)
    "tracking_strength": _NON_NEGATIVE,   # mean displacement norm, px (§3.2)
    # per pair: match and inlier counts, inliers / matches, point-to-line distances (§3.3)
    "3D_consistency_num_pts": _NON_NEGATIVE, "3D_consistency_num_inliers_F": _NON_NEGATIVE,
    "3D_consistency_keep_ratio": _UNIT, "3D_consistency_mean_err": _NON_NEGATIVE,
    "3D_consistency_rmse": _NON_NEGATIVE,
    "camera_alignment": _COSINE, "main_object_alignment": _COSINE,
    "background_alignment": _COSINE, "style_alignment": _COSINE,
    "overall_consistency": _COSINE,
}
PER_VIDEO_SPECS = tuple(
    MetricSpec(key, name, unit, up, paper, _MEAN, official_column=key, step=PER_VIDEO,
               family=family, backends=BACKENDS[family], output_files=_AVG,
               official_range=RANGES.get(key))
    for key, name, unit, up, paper, family, _ in _ROWS)
SET_SPECS = tuple(
    MetricSpec(key, name, unit, False, paper, "one value over the generated vs GT sets",
               official_column=key, step=SET_LEVEL, family=family, backends=(family,),
               output_files=(AVERAGE_SCORE_CSV,))
    for key, name, unit, paper, family, _, _ in _SET_ROWS)
SECTION = {row[0]: row[6] for row in _ROWS} | {row[0]: row[5] for row in _SET_ROWS}

# --metrics also takes the official pseudo-flags, each naming a set-level pair (spec §1).
TABLE = MetricTable("MiraBench", PER_VIDEO_SPECS + SET_SPECS,
                    aliases={"fvd&kvd": ("fvd", "kvd"), "fid&kid": ("fid", "kid")})
BY_ID = TABLE.by_id
PER_VIDEO_IDS = tuple(s.id for s in PER_VIDEO_SPECS)
SET_IDS = tuple(s.id for s in SET_SPECS)
PAPER_17 = tuple(s.id for s in TABLE.specs if s.leaderboard)
EXTRAS = tuple(s.id for s in TABLE.specs if not s.leaderboard)
