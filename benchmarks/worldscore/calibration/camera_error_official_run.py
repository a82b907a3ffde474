"""Runs the official WorldScore camera_error arithmetic on our calibration cases and writes
its numbers to camera_error_official.json. Not a Bazel target; nothing here is official
code: it only calls it.

What runs: `CameraErrorMetric()._compute_scores(frame_paths, torch.tensor(cameras_interp),
scale)` of worldscore/benchmark/metrics/third_party/camera_error_metrics.py, and the
DROID-SLAM arguments both CameraErrorMetric and ReprojectionErrorMetric (from
reprojection_error_metrics.py, same stand-ins) build in __init__ (their `_args`), of
(haoyi-duan/WorldScore@344983c1be7d515c1e4ecb167d40d622adf502bc), unchanged: its
image_stream (cv2.imread, the ~512^2 resize, the crop to multiples of 8, the fixed calib
scaled), the pose conversion, get_cameras_accuracy (cvxpy scale fit, compare_rotations).
Three imports are replaced, as they need DROID-SLAM's CUDA build and weights:
`droid.Droid` by a stand-in that records what track() receives and whose terminate()
returns the case's trajectory; `lietorch.SE3` by a stand-in whose matrix() is scipy's
Rotation.from_quat (x, y, z, w) in float32 (lietorch's layout); and the package module
`worldscore.benchmark.metrics.base_metrics` by an empty BaseMetric. tqdm is the real one.

Environment (2026-12-01): python3.11 -m venv /tmp/droid-venv, whose base.pth lists the
worktree's Bazel `external/pypi__*/site` folders (torch 2.14.1, numpy 2.4.1, scipy 1.17.1,
opencv-python 4.14.0.94), plus `pip install cvxpy tqdm` (cvxpy 1.9.3 with clarabel 0.11.1,
osqp 1.1.3, scs 3.3.1; tqdm). The official file extracted with
`git --git-dir=<mirror of haoyi-duan/WorldScore> show HEAD:worldscore/benchmark/metrics/
third_party/camera_error_metrics.py > /tmp/droid-cal/camera_error_metrics.py`, and the
same for reprojection_error_metrics.py.

    /tmp/droid-venv/bin/python benchmarks/worldscore/calibration/camera_error_official_run.py \\
        /tmp/droid-cal/camera_error_metrics.py /tmp/droid-cal/work \\
        benchmarks/worldscore/calibration/camera_error_official.json \\
        /tmp/droid-cal/reprojection_error_metrics.py /tmp/droid-cal/droid_slam

where /tmp/droid-cal/droid_slam holds the vendored droid_slam/droid_frontend.py and
factor_graph.py (git show of worldscore/benchmark/metrics/third_party/droid_slam/<file>):
DroidFrontend is built with FactorGraph recorded (its max_factors, max_age, iters1/2),
and the lm/ep keywords of factor_graph.py's two `video.ba(...)` calls are read by ast.
"""

import json
import pathlib
import sys
import types

_REPO = pathlib.Path(__file__).resolve().parents[3]


class _Recorder:
    trajectory = None
    calls = []

    def __init__(self, args):
        self.args = args

    def track(self, t, image, intrinsics=None):
        _Recorder.calls.append((t, list(image.shape), intrinsics.tolist(), str(intrinsics.dtype)))

    def terminate(self, stream=None):
        import numpy as np  # pylint: disable=import-outside-toplevel
        for _ in stream:  # the official code streams the frames again
            pass
        return np.asarray(_Recorder.trajectory, np.float32), None


class _SE3:
    def __init__(self, data):
        self.data = data

    def matrix(self):
        import torch  # pylint: disable=import-outside-toplevel
        from scipy.spatial.transform import Rotation  # pylint: disable=import-outside-toplevel
        d = self.data.double().numpy()
        out = torch.eye(4).repeat(len(d), 1, 1)
        out[:, :3, :3] = torch.as_tensor(Rotation.from_quat(d[:, 3:]).as_matrix(),
                                         dtype=torch.float32)
        out[:, :3, 3] = self.data[:, :3]
        return out


def _install_stubs():
    sys.modules["droid"] = types.SimpleNamespace(Droid=_Recorder)
    sys.modules["lietorch"] = types.SimpleNamespace(SE3=_SE3)
    base = types.ModuleType("worldscore.benchmark.metrics.base_metrics")
    base.BaseMetric = type("BaseMetric", (), {"__init__": lambda self: None})
    for name in ("worldscore", "worldscore.benchmark", "worldscore.benchmark.metrics"):
        sys.modules[name] = types.ModuleType(name)
    sys.modules[base.__name__] = base


def _settings(official_file, class_name):
    namespace = {"__name__": pathlib.Path(official_file).stem}
    exec(compile(pathlib.Path(official_file).read_text(), official_file, "exec"), namespace)
    return dict(vars(namespace[class_name]()._args))


def _internals(droid_dir):
    """DroidFrontend's attributes (FactorGraph replaced by a recorder of its arguments) and
    the (lm, ep) keywords of the two dense-BA calls in factor_graph.py, read by ast."""
    import ast  # pylint: disable=import-outside-toplevel
    droid_dir = pathlib.Path(droid_dir)
    graphs = []
    sys.modules["factor_graph"] = types.SimpleNamespace(
        FactorGraph=lambda *a, **kw: graphs.append(kw))
    namespace = {"__name__": "droid_frontend"}
    path = droid_dir / "droid_frontend.py"
    exec(compile(path.read_text(), str(path), "exec"), namespace)
    args = types.SimpleNamespace(upsample=True, warmup=8, beta=0.3, frontend_nms=1,
                                 keyframe_thresh=4.0, frontend_window=25,
                                 frontend_thresh=16.0, frontend_radius=2)
    frontend = namespace["DroidFrontend"](types.SimpleNamespace(update=None), None, args)
    ba_calls = []
    tree = ast.parse((droid_dir / "factor_graph.py").read_text())
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and getattr(node.func, "attr", "") == "ba":
            kw = {k.arg: ast.literal_eval(k.value) for k in node.keywords
                  if k.arg in ("lm", "ep")}
            ba_calls.append([kw["lm"], kw["ep"]])
    return {"frontend_max_factors": graphs[0]["max_factors"],
            "frontend_max_age": frontend.max_age,
            "frontend_iters": [frontend.iters1, frontend.iters2], "ba_lm_ep": ba_calls}


def main(official_file, work_dir, out_json, reprojection_file, droid_dir):
    sys.path.insert(0, str(_REPO))
    import torch  # pylint: disable=import-outside-toplevel
    from benchmarks.worldscore import camera_control_cases  # pylint: disable=import-outside-toplevel
    _install_stubs()
    namespace = {"__name__": "camera_error_metrics"}
    exec(compile(pathlib.Path(official_file).read_text(), official_file, "exec"), namespace)
    cases = json.loads(camera_control_cases.write(work_dir).read_text())
    results = []
    for case in cases:
        frames = sorted(str(p) for p in (pathlib.Path(work_dir) / case["name"] / "frames")
                        .glob("*.png"))
        _Recorder.trajectory, _Recorder.calls = case["trajectory"], []
        metric = namespace["CameraErrorMetric"]()
        cams = torch.tensor(case["camera_data"]["cameras_interp"])
        r_err, t_err = metric._compute_scores(frames, cams, case["camera_data"]["scale"])
        _, shape, intrinsics, dtype = _Recorder.calls[0]
        results.append(dict(name=case["name"], rotation_error_deg=r_err, translation_error=t_err,
                            image_shape=shape, intrinsics=intrinsics, intrinsics_dtype=dtype))
    pathlib.Path(out_json).write_text(json.dumps(
        {"source": "haoyi-duan/WorldScore@344983c camera_error_metrics.py, run by "
                   "benchmarks/worldscore/calibration/camera_error_official_run.py",
         "settings": {"camera_error": _settings(official_file, "CameraErrorMetric"),
                      "reprojection_error": _settings(reprojection_file,
                                                      "ReprojectionErrorMetric")},
         "internals": _internals(droid_dir),
         "cases": results}, indent=1) + "\n")


if __name__ == "__main__":
    main(*sys.argv[1:6])
