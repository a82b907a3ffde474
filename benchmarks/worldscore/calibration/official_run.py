"""Runs the official WorldScore `--only_calculate_mean` path on the calibration trees and
writes its numbers to official_aggregation.json. Not a Bazel target; nothing here is
official code: it only calls it.

What runs: `worldscore/run_evaluate.py::main(model, only_calculate_mean=True)` of
haoyi-duan/WorldScore@344983c1be7d515c1e4ecb167d40d622adf502bc, i.e. per movement
`Evaluator._evaluate` (the walk, `data_exists`, `renormalize_score` rewriting each
evaluation.json) and then `calculate_worldscore` (worldscore.json). Two package imports
are replaced, as they load the generation and metric stacks this path never calls:
`worldscore.benchmark.metrics` (the metric classes, which `evaluator.py` imports by
name: stand-ins that raise if used) and the `worldscore.benchmark.helpers` package's
`__init__` (its modules, evaluator.py included, still load from the official files).

Environment (2025-12-01): python3.11 -m venv /tmp/ws1-venv, whose base.pth lists the
worktree's Bazel `external/pypi__*/site` folders (torch 2.14.1, numpy 2.4.1, tqdm), plus
`pip install omegaconf fire structlog submitit` (omegaconf 2.4.0, fire 0.7.1,
structlog 26.1.0, submitit 1.5.4). Official files extracted with `git show HEAD:<path>`
from the bare mirror (`fetch github:haoyi-duan/WorldScore`): config/base_config.yaml,
worldscore/{__init__,run_evaluate}.py, worldscore/common/*, worldscore/benchmark/
__init__.py, worldscore/benchmark/utils/*, worldscore/benchmark/helpers/evaluator.py.

    bazel run //tools/fixtures:write_worldscore_calibration_tree -- --output_dir=/tmp/ws1-cal/tree
    /tmp/ws1-venv/bin/python benchmarks/worldscore/calibration/official_run.py \\
        /tmp/ws1-cal/src /tmp/ws1-cal/tree /tmp/ws1-cal/work \\
        benchmarks/worldscore/calibration/official_aggregation.json
"""

import json
import os
import pathlib
import shutil
import sys
import types

MODELS = {"cogvideox_5b_i2v": "i2v", "wonderjourney": "i2v"}
FRAMES = 4  # the trees' frames per scene (worldscore_calibration_tree / worldscore_tree default)
METRIC_CLASSES = (
    "CLIPScoreMetric", "GramMatrixMetric", "IQACLIPAestheticScoreMetric",
    "CameraErrorMetric", "OpticalFlowAverageEndPointErrorMetric", "ObjectDetectionMetric",
    "ReprojectionErrorMetric", "CLIPImageQualityAssessmentPlusMetric", "OpticalFlowMetric",
    "MotionAccuracyMetric", "MotionSmoothnessMetric")


def _stand_in(name):
    def init(self, *args, **kwargs):
        raise RuntimeError(f"{name} is not available in the aggregation-only run")
    return type(name, (), {"__init__": init})


def _install_stubs(src: pathlib.Path) -> None:
    sys.path.insert(0, str(src))
    import worldscore.benchmark  # noqa: F401  (the official, empty, package files)
    helpers = types.ModuleType("worldscore.benchmark.helpers")
    helpers.__path__ = [str(src / "worldscore/benchmark/helpers")]
    sys.modules["worldscore.benchmark.helpers"] = helpers
    metrics = types.ModuleType("worldscore.benchmark.metrics")
    for name in METRIC_CLASSES:
        setattr(metrics, name, _stand_in(name))
    sys.modules["worldscore.benchmark.metrics"] = metrics


def _normalized(tree: pathlib.Path) -> dict:
    out = {}
    for path in sorted(tree.rglob("evaluation.json")):
        key = str(path.parent.relative_to(tree))
        try:
            data = json.loads(path.read_text())
        except json.JSONDecodeError:
            out[key] = "not JSON"
            continue
        out[key] = {a: {m: v.get("score_normalized") for m, v in ms.items() if v}
                    for a, ms in data.items()}
    return out


def main(src, tree, work, output):
    src, tree, work = pathlib.Path(src), pathlib.Path(tree), pathlib.Path(work)
    _install_stubs(src)
    from worldscore import run_evaluate  # the official module
    if work.exists():
        shutil.rmtree(work)
    (work / "config/model_configs").mkdir(parents=True)
    shutil.copy(src / "config/base_config.yaml", work / "config/base_config.yaml")
    os.environ["DATA_PATH"] = str(tree / "data")
    os.environ["WORLDSCORE_PATH"] = str(work)
    results = {}
    for model, generate_type in MODELS.items():
        shutil.copytree(tree / model, work / model)
        (work / "config/model_configs" / f"{model}.yaml").write_text(
            f"model: {model}\nruns_root: {work / model}\ngenerate_type: {generate_type}\n"
            f"frames: {FRAMES}\nresolution: [64, 64]\nfps: 8\n")
        cwd = os.getcwd()
        os.chdir(work)
        try:
            run_evaluate.main(model, only_calculate_mean=True)
        finally:
            os.chdir(cwd)
        output_dir = work / model / "worldscore_output"
        results[model] = {
            "worldscore_json": (output_dir / "worldscore.json").read_text(),
            "renormalized": _normalized(output_dir)}
    pathlib.Path(output).write_text(json.dumps({
        "official": "haoyi-duan/WorldScore@344983c1be7d515c1e4ecb167d40d622adf502bc "
                    "run_evaluate.main(model, only_calculate_mean=True)",
        "produced_by": "benchmarks/worldscore/calibration/official_run.py (its docstring)",
        "input": "//tools/fixtures:write_worldscore_calibration_tree (worldscore_calibration_tree.py)",
        "models": results}, indent=2) + "\n")


if __name__ == "__main__":
    main(*sys.argv[1:5])
