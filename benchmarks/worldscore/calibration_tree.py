"""The hand-built worldscore_output trees the aggregation is calibrated on.

Two models: a video model (static and dynamic) and a 3D model (static only: the same
static instances). Each instance exercises one rule of the official
`--only_calculate_mean` path: renormalisation of every formula (inside and outside the
clip ranges, the -100/+100 failure fallback), an intra layout (no content_alignment),
an empty metric object, aspects of the other movement, an instance data_exists rejects
(too few frames: its stored score_normalized is pooled), no evaluation.json, and an
evaluation.json that is not JSON. Stored `score_normalized` values are deliberately
not the renormalised ones. The official numbers on these trees are in
calibration/official_aggregation.json (calibration/official_run.py made them).

    bazel run //benchmarks/worldscore:write_calibration_tree -- --output_dir=/tmp/ws_tree
"""

import pathlib

from tools.fixtures import worldscore_tree as tree

VIDEO_MODEL, THREED_MODEL = "cogvideox_5b_i2v", "wonderjourney"
STORED = 0.123  # the score_normalized stored in every file (renormalisation replaces it)


def _eval(scores, stored=STORED):
    """{aspect: {metric: raw}} -> the official evaluation.json shape."""
    return {a: {m: ({"score": s, "score_normalized": stored} if s is not None else {})
                for m, s in metrics.items()} for a, metrics in scores.items()}


def _static(ca=26.0, iqa=0.58, aes=5.6, cam=(3.0, 0.1), obj=0.75, rep=0.3, aepe=0.4,
            gram=0.002):
    scores = {"camera_control": {"camera_error": list(cam)},
              "object_control": {"object_detection": obj},
              "content_alignment": {"clip_score": ca},
              "3d_consistency": {"reprojection_error": rep},
              "photometric_consistency": {"optical_flow_aepe": aepe},
              "style_consistency": {"gram_matrix": gram},
              "subjective_quality": {"clip_iqa+": iqa, "clip_aesthetic": aes}}
    return scores


STATIC = (
    # (style, scene_type, category, name, camera_path, scores, options)
    ("photorealistic", "indoor", "bedroom", "b01", ["move_left"], _static(), {}),
    ("photorealistic", "indoor", "bedroom", "b02", ["push_in"],
     {k: v for k, v in _static(cam=(14.9, 0.49), obj=1.0).items()
      if k != "content_alignment"}, {}),
    ("photorealistic", "outdoor", "beach", "o01", ["pan_left", "pull_out"],
     _static(ca=40.0, iqa=0.2, aes=9.0, cam=(30.0, 0.0), obj=0.0, rep=2.0, aepe=-1.0,
             gram=0.02), {}),
    ("stylized", "indoor", "castle", "s01", ["orbit_left"],
     dict(_static(cam=(0.0, 0.0)), object_control={"object_detection": -100},
          **{"3d_consistency": {"reprojection_error": 100},
             "subjective_quality": {"clip_iqa+": -100, "clip_aesthetic": 4.9}}), {}),
    ("stylized", "outdoor", "forest", "s02", ["move_right"], _static(ca=27.5),
     {"frame_count": 2, "stored": 0.9}),
    ("stylized", "outdoor", "forest", "s03", ["pan_right"], None, {}),
    ("stylized", "outdoor", "forest", "s04", ["pull_out"],
     dict(_static(), content_alignment={"clip_score": None}), {}),
    ("photorealistic", "indoor", "bedroom", "b03", ["move_left"], None, {"broken": True}),
)
DYNAMIC = (
    ("photorealistic", "rigid", "r01",
     {"motion_accuracy": {"motion_accuracy": 1.5}, "motion_magnitude": {"optical_flow": 4.0},
      "motion_smoothness": {"motion_smoothness": [10.0, 0.95, 0.01]},
      "object_control": {"object_detection": 1.0}}),
    ("stylized", "fluid", "f01",
     {"motion_accuracy": {"motion_accuracy": 20.0}, "motion_magnitude": {"optical_flow": 0.0},
      "motion_smoothness": {"motion_smoothness": [100.0, 0.9, 0.05]}}),
    ("photorealistic", "articulated", "a01", {"motion_magnitude": {"optical_flow": 12.5}}),
)


def static_entries():
    return [tree.static_entry(s, t, c, n, path) for s, t, c, n, path, _, _ in STATIC]


def dynamic_entries():
    return [tree.dynamic_entry(s, t, n) for s, t, n, _ in DYNAMIC]


def write(output_root, with_dynamic: bool = True) -> pathlib.Path:
    """One model's worldscore_output under `output_root`."""
    root = pathlib.Path(output_root)
    for entry, (_, _, _, _, _, scores, opts) in zip(static_entries(), STATIC):
        evaluation = _eval(scores, opts.get("stored", STORED)) if scores else None
        path = tree.write_instance(root, entry, evaluation=evaluation,
                                   frame_count=opts.get("frame_count"))
        if opts.get("broken"):
            (path / "evaluation.json").write_text('{"camera_control": {"camera_error": ')
    if with_dynamic:
        for entry, (_, _, _, scores) in zip(dynamic_entries(), DYNAMIC):
            tree.write_instance(root, entry, evaluation=_eval(scores))
    return root


def write_all(base) -> pathlib.Path:
    """<base>/<model>/worldscore_output for both models, and <base>/data (the dataset)."""
    base = pathlib.Path(base)
    write(base / VIDEO_MODEL / "worldscore_output")
    write(base / THREED_MODEL / "worldscore_output", with_dynamic=False)
    tree.write_dataset(base / "data", static_entries(), dynamic_entries())
    return base
