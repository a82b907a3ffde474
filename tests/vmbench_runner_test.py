"""//benchmarks/vmbench:run end to end, as a user runs it (a subprocess): the bundled
sample's known motion, bad videos as error rows, strays listed, resume, exit codes."""

import json
import os
import pathlib
import subprocess

import numpy as np
import pytest

from metrics.tracking import grid
from tools.fixtures import vmbench_clips

RUN = pathlib.Path(os.environ.get("TEST_SRCDIR", "")) / "worldeval" / "benchmarks" / "vmbench" / "run"
PAS = "perceptible_amplitude_score"


def _run(*args, env=None):
    return subprocess.run([str(RUN), *args], capture_output=True, text=True, timeout=300,
                          check=False, env=env)


def _results(out):
    return {e["index"]: e for e in json.loads((out / "results.json").read_text())}


def _samples(out):
    rows = [json.loads(l) for l in (out / "per_sample_scores.jsonl").read_text().splitlines()]
    return {r["sample_id"]: r for r in rows}


def _bounds(step, frames=vmbench_clips.FRAMES, margin=12):
    """Whole-frame PAS of the square clip lies between (grid points well inside the
    square) and (grid points on its swept path, border included), times N (T-1) / diag."""
    _, mask = vmbench_clips.square_clip(step)
    rows, cols = np.nonzero(mask)
    inner = np.zeros_like(mask)
    inner[rows.min() + margin:rows.max() + 1 - margin, cols.min() + margin:cols.max() + 1 - margin] = True
    swept = np.zeros_like(mask)
    swept[rows.min() - margin:rows.max() + 1 + margin,
          cols.min() - margin:cols.max() + 1 + step * (frames - 1) + margin] = True
    full = step * (frames - 1) / np.hypot(vmbench_clips.WIDTH, vmbench_clips.HEIGHT)
    return (len(grid.masked_grid(30, inner)) / 900 * full,
            len(grid.masked_grid(30, swept)) / 900 * full)


@pytest.fixture(scope="module")
def bundled(tmp_path_factory):
    out = tmp_path_factory.mktemp("bundled")
    done = _run(f"--output_dir={out}")
    assert done.returncode == 0, done.stderr
    return out, done.stdout


def test_bundled_sample_fills_the_weight_free_metric_and_says_so(bundled):
    out, stdout = bundled
    assert "evaluating the bundled synthetic sample" in stdout
    assert "nothing is downloaded" in stdout
    card = json.loads((out / "scorecard.json").read_text())
    metrics = {m["id"]: m for m in card["metrics"]}
    assert metrics[PAS]["available"] and metrics[PAS]["backend"]["name"] == "opencv-lk-grid"
    assert not metrics[PAS]["backend"].get("official", False)
    for model_metric in ("object_integrity_score", "temporal_coherence_score",
                         "commonsense_adherence_score", "motion_smoothness_score"):
        assert not metrics[model_metric].get("available", False)
        reason = metrics[model_metric]["unavailable_reason"]
        assert "(missing; fetch: " in reason, reason
        assert "huggingface-cli download" in reason or "curl -L https://download.openmmlab" in reason
    reasons = {b["reason"] for b in card["verification"]["blocking"]}
    assert {"NOT_OFFICIAL_DATA", "NON_OFFICIAL_BACKEND", "METRIC_UNAVAILABLE"} <= reasons
    assert any("opencv-lk-grid" in d for d in card["verification"]["deviations"])
    for name in ("scorecard.json", "per_sample_scores.jsonl", "raw_metric_table.jsonl",
                 "artifact_manifest.json", "results.json", "scores.csv"):
        assert (out / name).is_file(), name


def test_bundled_sample_known_motion(bundled):
    out, _ = bundled
    samples = _samples(out)
    for index, step in vmbench_clips.BUNDLED.items():
        value = samples[index]["metrics"][PAS]
        if step == 0:
            assert value < 1e-4
        else:
            low, high = _bounds(step)
            assert low < value < high, (index, value, low, high)
    results = _results(out)
    entry = results["0001"]
    assert list(entry) == ["prompt", "subject", "subject_noun", "place", "action", "index",
                           "filepath"]
    # The weight-free PAS is not official: it stays out of the official files.
    assert all(PAS not in e for e in results.values())
    card = json.loads((out / "scorecard.json").read_text())
    assert any("hold only values from official backends" in n for n in card["notes"])
    # No official metric: the official Total has nothing to average (int 0, as it writes).
    assert (out / "scores.csv").read_bytes() == b"Metric,Average Score\r\nTotal Score,0\r\n"


def _broken_dir(root: pathlib.Path):
    videos = root / "videos"
    frames, _ = vmbench_clips.square_clip(3, frames=9)
    vmbench_clips.write_mp4(videos / "0001.mp4", frames)
    (videos / "0002.mp4").write_bytes(b"")
    good = (videos / "0001.mp4").read_bytes()
    (videos / "0003.mp4").write_bytes(good[:len(good) // 3])
    vmbench_clips.write_mp4(videos / "0004.mp4", frames[:1])
    portrait, _ = vmbench_clips.square_clip(2, frames=9, size=(512, 384), square=96)
    vmbench_clips.write_mp4(videos / "0005.mp4", portrait)
    odd, _ = vmbench_clips.square_clip(2, frames=9, size=(241, 333), square=64)
    vmbench_clips.write_mp4(videos / "0006.mp4", odd)
    (videos / "notes.txt").write_text("x")
    (videos / "0007.avi").write_bytes(good)
    prompts = [{"prompt": "p", "subject": "a square", "subject_noun": "square", "place": "x",
                "action": "slides", "index": f"{i:04d}"} for i in range(1, 9)]
    manifest = root / "prompts.json"
    manifest.write_text(json.dumps(prompts))
    return videos, manifest


def test_bad_videos_are_error_rows_and_the_run_goes_on(tmp_path):
    videos, manifest = _broken_dir(tmp_path)
    out = tmp_path / "out"
    done = _run(f"--video_dir={videos}", f"--prompt_manifest={manifest}",
                f"--output_dir={out}", "--metrics=pas", "--pas_backend=lk")
    assert done.returncode == 0, done.stderr
    samples = _samples(out)
    assert "zero-length" in samples["0002"]["error"] and "0002.mp4" in samples["0002"]["error"]
    assert "0003.mp4" in samples["0003"]["error"]
    assert "at least 2 frames" in samples["0004"]["error"]
    for ok in ("0001", "0005", "0006"):
        assert not samples[ok].get("error") and PAS in samples[ok]["metrics"], ok
    card = json.loads((out / "scorecard.json").read_text())
    assert card["coverage"]["missing_sample_ids"] == ["0007", "0008"]
    assert sorted(card["coverage"]["failed_sample_ids"]) == ["0002", "0003", "0004"]
    notes = " ".join(card["notes"])
    assert "notes.txt" in notes and "0007.avi" in notes
    assert sorted(_results(out)) == ["0001", "0002", "0003", "0004", "0005", "0006"]
    assert all(PAS not in e for e in _results(out).values())  # opencv-lk-grid: not official


def test_resume_keeps_scored_videos(tmp_path):
    videos, manifest = _broken_dir(tmp_path)
    out = tmp_path / "out"
    args = [f"--video_dir={videos}", f"--prompt_manifest={manifest}", f"--output_dir={out}",
            "--metrics=pas", "--pas_backend=lk"]
    assert _run(*args).returncode == 0
    first = _samples(out)["0001"]
    done = _run(*args, "--resume")
    assert done.returncode == 0, done.stderr
    card = json.loads((out / "scorecard.json").read_text())
    assert any("resumed: 3 videos" in n for n in card["notes"])
    assert _samples(out)["0001"]["metrics"] == first["metrics"]


def test_an_empty_folder_and_a_manifest_gap(tmp_path):
    videos, manifest = _broken_dir(tmp_path)
    empty = tmp_path / "empty"
    empty.mkdir()
    done = _run(f"--video_dir={empty}", f"--prompt_manifest={manifest}",
                f"--output_dir={tmp_path}/o1")
    assert done.returncode == 2 and "at least one <index>.mp4" in done.stderr
    prompts = [p for p in json.loads(manifest.read_text()) if p["index"] != "0005"]
    manifest.write_text(json.dumps(prompts))
    done = _run(f"--video_dir={videos}", f"--prompt_manifest={manifest}",
                f"--output_dir={tmp_path}/o2", "--metrics=pas", "--pas_backend=lk")
    assert done.returncode == 0, done.stderr
    notes = " ".join(json.loads((tmp_path / "o2" / "scorecard.json").read_text())["notes"])
    assert "1 indices missing from the manifest: 0005" in notes
    assert "0005.mp4 (index 0005 is not in the prompt suite)" in notes


@pytest.mark.parametrize("args, message", [
    (["--video_dir=/nonexistent"], "--prompt_manifest: expected VMBench's prompts.json"),
    (["--metrics=pass"], "did you mean"),
])
def test_configuration_errors_exit_2(tmp_path, args, message):
    done = _run(f"--output_dir={tmp_path}/o", *args)
    assert done.returncode == 2, done.stdout + done.stderr
    assert message in done.stderr


def test_env_vars_are_flag_defaults(tmp_path):
    videos, manifest = _broken_dir(tmp_path)
    env = dict(os.environ, WORLDFOUNDRY_VMBENCH_VIDEO_DIR=str(videos),
               WORLDFOUNDRY_VMBENCH_PROMPT_MANIFEST=str(manifest),
               WORLDFOUNDRY_VMBENCH_MODEL_NAME="EnvModel")
    done = _run(f"--output_dir={tmp_path}/o", "--metrics=pas", "--limit=1",
                "--pas_backend=lk", env=env)
    assert done.returncode == 0, done.stderr
    card = json.loads((tmp_path / "o" / "scorecard.json").read_text())
    assert card["model_name"] == "EnvModel"


def test_a_real_folder_defaults_to_the_official_backends(tmp_path):
    """Without --pas_backend a folder of videos gets the official PAS and TCS; with no
    checkpoints they are unavailable with every fetch command, and the run still ends 0."""
    videos, manifest = _broken_dir(tmp_path)
    done = _run(f"--video_dir={videos}", f"--prompt_manifest={manifest}", "--offline",
                f"--output_dir={tmp_path}/o", f"--checkpoint_dir={tmp_path}/ckpt",
                "--metrics=pas,tcs", "--limit=1")
    assert done.returncode == 0, done.stderr
    card = json.loads((tmp_path / "o" / "scorecard.json").read_text())
    metrics = {m["id"]: m for m in card["metrics"]}
    for metric_id, model in ((PAS, "sam_vit_h_4b8939.pth"),
                             ("temporal_coherence_score", "sam2.1_hiera_large.pt")):
        reason = metrics[metric_id]["unavailable_reason"]
        assert not metrics[metric_id].get("available", False)
        assert "--offline forbids downloading" in reason and f"{model} (missing" in reason
        assert f"--local-dir {tmp_path}/ckpt/vmbench_cotracker3_offline" in reason


def test_max_side_shrinks_every_frame_and_is_recorded_as_a_deviation(tmp_path):
    videos = tmp_path / "videos"
    portrait, _ = vmbench_clips.square_clip(2, frames=9, size=(512, 384), square=96)
    vmbench_clips.write_mp4(videos / "0001.mp4", portrait)
    manifest = tmp_path / "prompts.json"
    manifest.write_text(json.dumps([{"prompt": "p", "subject": "a square",
                                     "subject_noun": "square", "place": "x",
                                     "action": "slides", "index": "0001"}]))
    out = tmp_path / "out"
    args = [f"--video_dir={videos}", f"--prompt_manifest={manifest}", f"--output_dir={out}",
            "--metrics=pas", "--pas_backend=lk"]
    done = _run(*args, "--max_side=128")
    assert done.returncode == 0, done.stderr
    sample = _samples(out)["0001"]
    # square_clip's size is (height, width): a 384x512 portrait clip, capped to 96x128.
    assert (sample["diagnostics"]["width"], sample["diagnostics"]["height"]) == ("96", "128")
    card = json.loads((out / "scorecard.json").read_text())
    assert card["run"]["flags"]["max_side"] == "128"
    ver = card["verification"]
    assert not ver.get("official_protocol", False)
    assert any(b["reason"] == "PROTOCOL_DEVIATION" and b["detail"].startswith("--max_side=128")
               for b in ver["blocking"])
    assert any(d.startswith("--max_side=128: ") for d in ver["deviations"])
    # Another config digest: a resumed run without the cap recomputes at native size.
    done = _run(*args, "--resume")
    assert done.returncode == 0, done.stderr
    card = json.loads((out / "scorecard.json").read_text())
    assert not any(n.startswith("resumed:") for n in card["notes"])
    assert _samples(out)["0001"]["diagnostics"]["width"] == "384"
