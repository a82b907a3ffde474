"""VBench's metric table: the 16 dimensions under their official keys (spec §5), in the
catalog's order (quality dimensions first, as cal_final_score.py groups them), then the
three scores of `scripts/cal_final_score.py` (spec §7).

Each dimension's value is the official aggregate of `{name}_eval_results.json` (its
`[aggregate, per-video list]` first element), computed with the single-GPU semantics
(spec §6); per video, `video_results` as the official list writes it (imaging_quality on
MUSIQ's 0-100 scale there, ÷100 in the aggregate). This version computes the ten
dimensions of `COMPUTED`; the six that need GRiT, Tag2Text or UMT are declared and
unavailable ("not in this version").

The scores: `quality_score`, `semantic_score`, `total_score` need every dimension they
sum (7, 9 and 16) and are unavailable otherwise; the `cal_final_score_*` three are
cal_final_score.py's own arithmetic, which counts an absent dimension as 0 (spec §7,
quirk 15: negative where Min > 0): comparable with the official tool's printout, not a
VBench score of the dimensions that ran.
"""

from benchmarks.common.metric_table import MetricTable
from benchmarks.common.scorecard import MetricSpec

FULL_INFO_JSON = "{name}_full_info.json"
EVAL_RESULTS_JSON = "{name}_eval_results.json"
_FILES = ("<name>_eval_results.json",)

PER_VIDEO = "per_video"    # a video value in the eval results, aggregated over videos
FINAL_SCORE = "final_score"  # cal_final_score.py over the 16 aggregates

_POOLED_PAIRS = "sum over videos of the frame-pair similarities / number of frame pairs " \
                "(single-GPU; torchrun would take the mean of the videos)"
_MEAN = "mean over videos"
_FRAMES = "frames passing / frames (pooled over videos)"

# (key, display name, unit, family, aggregation, official range of a per-video value,
#  quality (True) or semantic (False))
_ROWS = (
    ("subject_consistency", "Subject consistency", "DINO cosine 0-1", "dino_subject",
     _POOLED_PAIRS, (0.0, 1.0), True),
    ("background_consistency", "Background consistency", "CLIP cosine 0-1",
     "clip_background", _POOLED_PAIRS, (0.0, 1.0), True),
    ("temporal_flickering", "Temporal flickering", "(255 - mean |diff|) / 255",
     "flickering", _MEAN, (0.0, 1.0), True),
    ("motion_smoothness", "Motion smoothness", "(255 - mean |AMT-S error|) / 255",
     "amt_smoothness", _MEAN, (0.0, 1.0), True),
    ("dynamic_degree", "Dynamic degree", "share of dynamic videos", "raft_dynamic", _MEAN,
     (0.0, 1.0), True),
    ("aesthetic_quality", "Aesthetic quality", "LAION aesthetic / 10", "laion_aesthetic",
     _MEAN, None, True),
    ("imaging_quality", "Imaging quality", "MUSIQ-SPAQ / 100 (0-100 per video)", "musiq",
     "mean over videos of the 0-100 MOS, / 100", None, True),
    ("object_class", "Object class", "frames with the object", "grit", _FRAMES, (0.0, 1.0),
     False),
    ("multiple_objects", "Multiple objects", "frames with both objects", "grit", _FRAMES,
     (0.0, 1.0), False),
    ("human_action", "Human action", "videos with the action in the top 5", "umt", _MEAN,
     (0.0, 1.0), False),
    ("color", "Color", "frames with the colour among frames with the object", "grit",
     "mean over videos that show the object", (0.0, 1.0), False),
    ("spatial_relationship", "Spatial relationship", "position score 0-1", "grit",
     "mean over frames (pooled over videos)", (0.0, 1.0), False),
    ("scene", "Scene", "frames whose caption names the scene", "tag2text", _FRAMES,
     (0.0, 1.0), False),
    ("temporal_style", "Temporal style", "ViCLIP cosine", "viclip", _MEAN, (-1.0, 1.0),
     False),
    ("appearance_style", "Appearance style", "CLIP image-text cosine", "clip_style",
     "sum over all frames / frames (single-GPU; torchrun: each video's last frame)",
     (-1.0, 1.0), False),
    ("overall_consistency", "Overall consistency", "ViCLIP cosine", "viclip", _MEAN,
     (-1.0, 1.0), False),
)

# Each family's backends, the official one first.
BACKENDS = {
    "dino_subject": ("dino_vitb16",),
    "clip_background": ("clip_vit_b32_quick_gelu",),
    "flickering": ("temporal_flickering: cv2 BGR mean absdiff (weight-free)",),
    "amt_smoothness": ("amt_s",),
    "raft_dynamic": ("raft_things",),
    "laion_aesthetic": ("clip_vit_l14_quick_gelu+laion_linear_v1",),
    "musiq": ("musiq_spaq",),
    "grit": ("grit_b_densecap_objectdet",),
    "umt": ("umt_l16_ptk710_ftk710_ftk400",),
    "tag2text": ("tag2text_swin_14m",),
    "viclip": ("viclip_internvid_10m_flt",),
    "clip_style": ("clip_vit_b32_quick_gelu image-text",),
}

DIMENSIONS = tuple(row[0] for row in _ROWS)
QUALITY = tuple(row[0] for row in _ROWS if row[6])      # 7 (cal_final_score.py)
SEMANTIC = tuple(row[0] for row in _ROWS if not row[6])  # 9
# The dimensions this version computes; the others are unavailable, "not in this version".
COMPUTED = ("subject_consistency", "background_consistency", "temporal_flickering",
            "motion_smoothness", "dynamic_degree", "aesthetic_quality", "imaging_quality",
            "appearance_style", "temporal_style", "overall_consistency")
NOT_IN_THIS_VERSION = tuple(d for d in DIMENSIONS if d not in COMPUTED)


DIMENSION_SPECS = tuple(
    MetricSpec(key, name, unit, True, True, aggregation, official_column=key,
               step=PER_VIDEO, family=family, backends=BACKENDS[family],
               output_files=_FILES, official_range=official_range)
    for key, name, unit, family, aggregation, official_range, _ in _ROWS)

_SCORE = "cal_final_score.py: (x - Min) / (Max - Min) x weight per dimension (no clip)"
_ROWS_FINAL = (
    ("quality_score", "Quality score", True,
     _SCORE + ", summed over the 7 quality dimensions / 6.5; needs all 7"),
    ("semantic_score", "Semantic score", True,
     _SCORE + ", summed over the 9 semantic dimensions / 9; needs all 9"),
    ("total_score", "Total score", True, "(4 x quality + semantic) / 5; needs all 16"),
    ("cal_final_score_quality", "Quality score as cal_final_score.py prints it", False,
     _SCORE + "; an absent dimension counts as 0"),
    ("cal_final_score_semantic", "Semantic score as cal_final_score.py prints it", False,
     _SCORE + "; an absent dimension counts as 0"),
    ("cal_final_score_total", "Total score as cal_final_score.py prints it", False,
     "(4 x quality + semantic) / 5; an absent dimension counts as 0"),
)
FINAL_SPECS = tuple(
    MetricSpec(key, name, "normalised 0-1 (may leave it)", True, leaderboard, aggregation,
               official_column=key, step=FINAL_SCORE, family="final_score",
               backends=("cal_final_score.py arithmetic",))
    for key, name, leaderboard, aggregation in _ROWS_FINAL)
FINAL_IDS = tuple(s.id for s in FINAL_SPECS)

# --dimensions names dimensions (and the group names "quality", "semantic"); the scores
# follow from what ran.
TABLE = MetricTable("VBench", DIMENSION_SPECS + FINAL_SPECS,
                    aliases={"quality": QUALITY, "semantic": SEMANTIC,
                             "computed": COMPUTED},
                    selectable=DIMENSIONS)
BY_ID = TABLE.by_id
