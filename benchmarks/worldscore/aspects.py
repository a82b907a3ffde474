"""WorldScore's aspects, their metrics and every normalisation constant: the one table.

Transcribed from the official `worldscore/benchmark/utils/utils.py::aspect_info` and
`run_evaluate.py::worldscore_list` (haoyi-duan/WorldScore@344983c; unchanged since the
first public commit b963805) as ../shared/specs/worldscore.md §5 and §6 give them. The
order of `STATIC_ASPECTS + DYNAMIC_ASPECTS` is the order of worldscore.json's keys.
Nothing else in worldeval may restate one of these numbers.
"""

import dataclasses
from typing import Dict, Optional, Tuple

STATIC, DYNAMIC = "static", "dynamic"
VISUAL_MOVEMENTS = (STATIC, DYNAMIC)


@dataclasses.dataclass(frozen=True)
class MinMax:
    """`n = (clip(s, min, max) - min) / (max - min)`, `1 - n` where lower is better.
    Tuples for the composite metrics (camera_error, motion_smoothness)."""

    empirical_min: object
    empirical_max: object
    higher_is_better: object


@dataclasses.dataclass(frozen=True)
class ZScore:
    """`x' = ((s - avg) / std - z_min) / (z_max - z_min)`, then
    `n = clip(range[0] + (range[1] - range[0]) * x', 0, 1)`."""

    avg: float
    std: float
    z_max: float
    z_min: float
    range: Tuple[float, float] = (0.25, 0.75)
    higher_is_better: bool = True


@dataclasses.dataclass(frozen=True)
class Metric:
    name: str            # the key in evaluation.json
    aspect: str
    norm: object         # MinMax or ZScore
    combine: Optional[str] = None  # composite metrics: "geometric" or "arithmetic" mean


@dataclasses.dataclass(frozen=True)
class Aspect:
    name: str
    movement: str        # the visual movement whose instances carry it
    kind: str            # aspect_info type: "camera", "prompt" or "base"
    metrics: Tuple[Metric, ...]


def _aspect(name, movement, kind, *metrics):
    return Aspect(name, movement, kind, tuple(Metric(m[0], name, *m[1:]) for m in metrics))


ASPECTS: Tuple[Aspect, ...] = (
    _aspect("camera_control", STATIC, "camera",
            ("camera_error", MinMax((0, 0), (15, 0.5), (False, False)), "geometric")),
    _aspect("object_control", STATIC, "prompt", ("object_detection", MinMax(0, 1, True))),
    _aspect("content_alignment", STATIC, "prompt",
            ("clip_score", ZScore(26.67, 0.8875, 1.2741, -1.5950))),
    _aspect("3d_consistency", STATIC, "base", ("reprojection_error", MinMax(0, 1.0719, False))),
    _aspect("photometric_consistency", STATIC, "base",
            ("optical_flow_aepe", MinMax(0, 1.1920, False))),
    _aspect("style_consistency", STATIC, "base", ("gram_matrix", MinMax(0, 0.0070, False))),
    _aspect("subjective_quality", STATIC, "base",
            ("clip_iqa+", ZScore(0.5842, 0.0441, 1.8703, -1.8342)),
            ("clip_aesthetic", ZScore(5.5952, 0.2561, 1.9741, -2.9342))),
    _aspect("motion_accuracy", DYNAMIC, "base",
            ("motion_accuracy", ZScore(-0.1965, 2.3687, 1.5180, -1.6147))),
    _aspect("motion_magnitude", DYNAMIC, "base",
            ("optical_flow", ZScore(3.2425, 3.4505, 2.7498, -0.8638))),
    _aspect("motion_smoothness", DYNAMIC, "base",
            ("motion_smoothness", MinMax((0, 0.9224, 0), (82.4014, 1, 0.0228),
                                         (False, True, False)), "arithmetic")),
)

BY_NAME: Dict[str, Aspect] = {a.name: a for a in ASPECTS}
STATIC_ASPECTS = tuple(a.name for a in ASPECTS if a.movement == STATIC)
DYNAMIC_ASPECTS = tuple(a.name for a in ASPECTS if a.movement == DYNAMIC)
ASPECTS_OF = {STATIC: STATIC_ASPECTS, DYNAMIC: DYNAMIC_ASPECTS}
METRICS: Dict[Tuple[str, str], Metric] = {(m.aspect, m.name): m for a in ASPECTS
                                          for m in a.metrics}
# The components of the composite raw scores, in their order in evaluation.json.
COMPONENTS = {"camera_error": ("rotation_error_deg", "translation_error"),
              "motion_smoothness": ("mse", "ssim", "lpips")}

HEADLINE_STATIC = "WorldScore-Static"    # mean of the 7 static aspects
HEADLINE_DYNAMIC = "WorldScore-Dynamic"  # mean of all 10 aspects (static ones included)
ROUND_DIGITS = 2                         # per aspect (after x100) and per headline

# Camera layouts (utils.py::layout_info): content_alignment is skipped when
# camera_path[0] is intra.
LAYOUT_TYPES = {"push_in": "intra", "orbit_left": "intra", "orbit_right": "intra",
                "pull_out": "inter", "move_left": "inter", "move_right": "inter",
                "pan_left": "inter", "pan_right": "inter", "pull_left": "inter",
                "pull_right": "inter", "fixed": "camera fix"}
SKIPPED_FOR_INTRA = ("content_alignment",)

# modeltype.py::type2model: these run static only (dynamic aspects stay 0).
THREED_MODELS = ("wonderjourney", "wonderworld", "scenescape", "text2room", "luciddreamer",
                 "invisible_stitch")

# The dataset's sizes (run_analysis.py's expected totals, the HF card's splits).
EXPECTED_INSTANCES = {STATIC: 2000, DYNAMIC: 1000}
