"""//benchmarks/memobench:run end to end, as a user runs it, plus resume.

The bundled-sample default runs as a subprocess (exactly what a user types); the other
runs call the binary's main in-process through the same flag parser and exit-code guard
(metrics/testing/binary_runner), which spares an interpreter and a torch import each.

Covers the bundled default, a model whose clips are broken in every way the issue
lists (the run goes on and records each error with its path), exit codes, and a run
interrupted half way then finished by --resume without recomputing.
"""

import json
import os
import pathlib
import shutil
import subprocess

import numpy as np
import pandas as pd
import pytest

from benchmarks.common import app_main
from benchmarks.common.flags import CommonConfig
from benchmarks.memobench import clip_eval
from benchmarks.memobench import runner
from benchmarks.memobench.step1.prepare import Step1Settings
from metrics.testing import binary_runner
from tools.fixtures import memobench_fixture

RUN = pathlib.Path(os.environ.get("TEST_SRCDIR", "")) / "worldeval" / "benchmarks" / "memobench" / "run"
_UNSET = ("WORLDEVAL_OFFLINE", "HF_HUB_OFFLINE")


def _run_subprocess(args, cwd):
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("WORLDFOUNDRY_") and k not in _UNSET}
    # Never reach for checkpoints outside the test: no downloads, no user caches.
    env.update(HOME=str(cwd), TORCH_HOME=str(cwd / "torch"), HF_HOME=str(cwd / "hf"),
               XDG_CACHE_HOME=str(cwd / "cache"), WORLDEVAL_OFFLINE="1")
    return subprocess.run([str(RUN)] + args, cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=300, check=False)


def _run(args, cwd, offline_env=True):
    """In-process; offline_env: as WORLDEVAL_OFFLINE=1 in a user's shell (the flag's
    default then reads on, so --offline is passed)."""
    env = {k: None for k in os.environ if k.startswith("WORLDFOUNDRY_")}
    env.update({k: None for k in _UNSET})
    if offline_env:
        env["WORLDEVAL_OFFLINE"] = "1"
        args = ["--offline", *args]
    return binary_runner.run_in_process("benchmarks.memobench.run", cwd, *args,
                                        wrap=app_main.guard, cwd=cwd, env=env)


def _jsonl(path):
    return [json.loads(line) for line in path.read_text().splitlines()]


@pytest.fixture(scope="module")
def fixture_root(tmp_path_factory):
    root = tmp_path_factory.mktemp("fixture")
    memobench_fixture.build_memobench_fixture(root)
    memobench_fixture.build_broken_inputs(root)
    return root


def test_no_flags_evaluates_the_bundled_sample(tmp_path):
    done = _run_subprocess([], cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "bundled sample" in done.stdout
    out = tmp_path / "worldeval_outputs" / "memobench" / "ReferenceModel"
    for name in ("scorecard.json", "per_sample_scores.jsonl", "raw_metric_table.jsonl",
                 "artifact_manifest.json", "eval_both.csv"):
        assert (out / name).is_file(), name
    card = json.loads((out / "scorecard.json").read_text())
    assert card["verification"]["scope"] == "BOUNDED"
    assert not card["verification"].get("leaderboard_eligible", False)
    assert "NOT_OFFICIAL_DATA" in {b["reason"] for b in card["verification"]["blocking"]}
    assert "GT_ALL_PSNR" in done.stdout and "unavailable" in done.stdout


def test_bundled_sample_downloads_nothing_unless_asked(tmp_path):
    done = _run(["--metrics=GT_ALL_LPIPS,GT_ALL_PSNR", "--steps=step1"], cwd=tmp_path,
                offline_env=False)
    assert done.returncode == 0, done.stderr
    assert "nothing is downloaded" in done.stdout
    card = json.loads((tmp_path / "worldeval_outputs" / "memobench" / "ReferenceModel" /
                       "scorecard.json").read_text())
    lpips = next(m for m in card["metrics"] if m["id"] == "GT_ALL_LPIPS")
    assert "--offline forbids downloading" in lpips["unavailable_reason"]


@pytest.mark.parametrize("fmt", ["json", "markdown"])
def test_format_prints_the_summary_as_json_or_markdown(tmp_path, fmt):
    done = _run(["--metrics=GT_ALL_PSNR,GT_ALL_LPIPS", "--steps=step1", f"--format={fmt}"],
                cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    card = json.loads((tmp_path / "worldeval_outputs" / "memobench" / "ReferenceModel" /
                       "scorecard.json").read_text())
    psnr = next(m for m in card["metrics"] if m["id"] == "GT_ALL_PSNR")
    if fmt == "json":  # stdout is one JSON object, nothing else
        summary = json.loads(done.stdout)
        got = {m["id"]: m for m in summary["metrics"]}
        assert got["GT_ALL_PSNR"]["value"] == psnr["value"]
        assert got["GT_ALL_PSNR"]["ci95"] == [psnr["ci95"]["low"], psnr["ci95"]["high"]]
        assert got["GT_ALL_LPIPS"]["value"] is None and got["GT_ALL_LPIPS"]["unavailable_reason"]
        assert summary["scope"] == "BOUNDED" and not summary["leaderboard_eligible"]
        assert "evaluating the bundled sample" in done.stderr  # stdout: the JSON only
    else:
        row = next(line for line in done.stdout.splitlines() if line.startswith("| GT_ALL_PSNR"))
        assert f"| {psnr['value']:.4f} | [{psnr['ci95']['low']:.4f}, " in row
        assert "| metric | value | 95% interval |" in done.stdout
        assert "| GT_ALL_LPIPS | — |" in done.stdout


def test_lpips_backend_flag_reaches_the_scorecard(tmp_path):
    done = _run(["--metrics=GT_ALL_LPIPS", "--steps=step1", "--lpips_backend=lpips"],
                cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    card = json.loads((tmp_path / "worldeval_outputs" / "memobench" / "ReferenceModel" /
                       "scorecard.json").read_text())
    lpips = next(m for m in card["metrics"] if m["id"] == "GT_ALL_LPIPS")
    assert lpips["backend"]["name"] == "lpips-package-v0.1-alex"  # unavailable: no weights
    assert card["run"]["flags"]["lpips_backend"] == "lpips"
    # --max_side is a common flag now; unset, MemoBench records its official 640.
    assert card["run"]["flags"]["max_side"] == "640"
    assert not any(d.startswith("--max_side") for d in card["verification"].get("deviations", []))


def test_broken_clips_are_recorded_and_the_run_goes_on(fixture_root, tmp_path):
    gen = fixture_root / "generated" / "BrokenModel"
    # One more breakage the fixture cannot hold: an empty frame folder of a sheet clip.
    shutil.copytree(fixture_root / "generated" / "ReferenceModel" / "Synthetic",
                    tmp_path / "Synthetic")
    for png in (tmp_path / "Synthetic" / "Barnyard" / "Barnyard_001" / "frames").iterdir():
        png.unlink()
    done = _run([f"--generated_dir={gen}", f"--data_root={fixture_root / 'data'}",
                 f"--output_dir={tmp_path / 'out'}"], cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    samples = {s["sample_id"]: s for s in _jsonl(tmp_path / "out" / "per_sample_scores.jsonl")}
    assert "error" not in samples["Barnyard_001"]
    assert "00016.png" in samples["Barnyard_002"]["error"]          # unreadable image
    assert "video.mp4" in samples["CityPark_001"]["error"]          # corrupt mp4
    assert "size" in samples["001"]["error"]                        # mixed frame sizes
    assert "phase sheet" in samples["Barnyard_009"]["error"]        # not in the sheet
    card = json.loads((tmp_path / "out" / "scorecard.json").read_text())
    assert card["coverage"]["failed"] >= 4 and card["coverage"]["evaluated"] == 1
    csv = pd.read_csv(tmp_path / "out" / "eval_both.csv", dtype={"id": str})
    assert csv.set_index("id").loc["Barnyard_002", "error"]

    done = _run([f"--generated_synthetic_dir={tmp_path / 'Synthetic'}", "--mode=synthetic",
                 f"--data_root={fixture_root / 'data'}", f"--output_dir={tmp_path / 'out2'}"],
                cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    samples = {s["sample_id"]: s for s in _jsonl(tmp_path / "out2" / "per_sample_scores.jsonl")}
    assert "frames" in samples["Barnyard_001"]["error"]             # empty frame folder
    assert "error" not in samples["Barnyard_002"]


@pytest.mark.parametrize("args,expected", [
    (["--data_root=/no/such/memobench"], "/no/such/memobench: expected"),
    (["--generated_dir=/no/such/model"], "--data_root: expected"),
    (["--mode=everything"], "error:"),
    (["--max_side=0"], "error:"),
    (["stray-argument"], "expected flags only"),
])
def test_unusable_input_exits_2_with_a_message(args, expected, tmp_path):
    done = _run(args, cwd=tmp_path)
    assert done.returncode == 2, (done.stdout, done.stderr)
    assert expected in done.stderr


def test_missing_generated_root_names_it(fixture_root, tmp_path):
    done = _run([f"--generated_dir={tmp_path / 'nothing'}", f"--data_root={fixture_root / 'data'}"],
                cwd=tmp_path)
    assert done.returncode == 2
    assert str(tmp_path / "nothing" / "Synthetic") in done.stderr


def _config(fixture_root, out, resume):
    gen = fixture_root / "generated" / "ReferenceModel"
    return runner.MemobenchConfig(
        common=CommonConfig(resume=resume, offline=True), data_root=fixture_root / "data",
        output_dir=out, model_name="ReferenceModel", generated_synthetic_dir=gen / "Synthetic",
        generated_real_dir=gen / "Real", step1=Step1Settings(offline=True,
                                                             checkpoint_dir=str(out / "none")))


def test_interrupted_run_resumes_without_recomputing(fixture_root, tmp_path, monkeypatch):
    real_evaluate = clip_eval.evaluate
    calls = []

    def dies_on_third_clip(clip, *args):
        calls.append(clip.clip_id)
        if len(calls) == 3:
            raise KeyboardInterrupt  # as if the run were killed here
        return real_evaluate(clip, *args)

    monkeypatch.setattr(clip_eval, "evaluate", dies_on_third_clip)
    with pytest.raises(KeyboardInterrupt):
        runner.run(_config(fixture_root, tmp_path / "out", resume=False))
    # Step 1 appends each clip as it is scored (per_sample_scores.jsonl is the merged
    # table written at the end of a run).
    assert len(_jsonl(tmp_path / "out" / "step1_per_sample_scores.jsonl")) == 2

    calls.clear()
    resumed = runner.run(_config(fixture_root, tmp_path / "out", resume=True))
    assert calls == ["CityPark_001", "001"]  # only the two clips not yet scored

    monkeypatch.setattr(clip_eval, "evaluate", real_evaluate)
    fresh = runner.run(_config(fixture_root, tmp_path / "fresh", resume=False))
    assert [(m.id, m.value) for m in resumed.metrics] == [(m.id, m.value) for m in fresh.metrics]
    assert (tmp_path / "out" / "eval_both.csv").read_text() == (
        tmp_path / "fresh" / "eval_both.csv").read_text()


def test_weight_free_backends_fill_their_metrics_and_are_marked(tmp_path):
    done = _run(["--flow_backend=dis", "--camera_backend=classical",
                 f"--output_dir={tmp_path / 'out'}"], cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    card = json.loads((tmp_path / "out" / "scorecard.json").read_text())
    metrics = {m["id"]: m for m in card["metrics"]}
    for metric_id, backend in (("MotionSmoothness", "opencv-dis"),
                               ("CameraControllability", "classical-two-view-rotation")):
        assert metrics[metric_id]["available"], metric_id
        assert metrics[metric_id]["backend"]["name"] == backend
        assert not metrics[metric_id]["backend"].get("official", False)
    blocked = {b.get("metric_id") for b in card["verification"]["blocking"]
               if b["reason"] == "NON_OFFICIAL_BACKEND"}
    assert blocked == {"MotionSmoothness", "CameraControllability"}
    assert not card["verification"].get("official_protocol", False)
    # Weight-needing metrics stay unavailable, each with the command that fetches it.
    assert "curl -L" in metrics["GT_ALL_LPIPS"]["unavailable_reason"]
    csv = pd.read_csv(tmp_path / "out" / "eval_both.csv", dtype={"id": str}).set_index("id")
    scored = {s["sample_id"]: s for s in _jsonl(tmp_path / "out" / "per_sample_scores.jsonl")}
    for clip, row in csv.iterrows():
        assert row["MotionSmoothness"] == scored[clip]["metrics"]["MotionSmoothness"]
        assert row["CameraControllability"] == scored[clip]["metrics"]["CameraControllability"]
        assert row["CameraControllability"] == round(
            min(max(scored[clip]["metrics"]["raw:CameraControllability"] * 100, 0), 100), 1)


def test_classical_camera_score_equals_the_metric_called_directly(tmp_path):
    from benchmarks.memobench import bundled_sample  # pylint: disable=import-outside-toplevel
    from metrics.camera import gt_poses, intrinsics, rotation_ate, two_view_rotation  # pylint: disable=import-outside-toplevel
    from metrics.video import frames as frames_lib  # pylint: disable=import-outside-toplevel
    done = _run(["--camera_backend=classical", "--clip=Barnyard_001", "--metrics=CameraControllability",
                 f"--output_dir={tmp_path / 'out'}"], cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    sample = _jsonl(tmp_path / "out" / "per_sample_scores.jsonl")[0]
    inputs = bundled_sample.extract()
    clip = inputs.data_root / "Synthetic_processed" / "Barnyard" / "Barnyard_001"
    frames = frames_lib.load_frames(
        inputs.generated_dir / "Synthetic" / "Barnyard" / "Barnyard_001" / "frames", max_side=640)
    gt = gt_poses.resample_poses(gt_poses.load_pose_file(clip / "1" / "poses.npy"), len(frames))
    fx, fy, cx, cy = np.load(clip / "1" / "intrinsics.npy")[0]
    first_gt = frames_lib.read_image(frames_lib.list_frame_files(clip / "RGB1")[0])
    k = intrinsics.rescale(intrinsics.camera_matrix(fx, fy, cx, cy),
                           (first_gt.shape[1], first_gt.shape[0]), (frames.shape[2], frames.shape[1]))
    direct = rotation_ate.rotation_ate_score(
        gt, two_view_rotation.estimate_rotations(frames, k).rotations)
    assert sample["metrics"]["raw:CameraControllability"] == round(direct.score, 4)
    assert sample["metrics"]["raw:ATE_RotDeg"] == round(direct.ate_rot_deg, 3)
