"""Tests for the //metrics/lpips:lpips binary: its main called in-process
(binary_runner.run_in_process) and, for a missing required flag, run as a subprocess.

The weights are random files of the real layout (see tiny_lpips), so
the pinned AlexNet sha256 never matches them: the default run must refuse
them, and --allow_unverified_checkpoints must use them and say so. Expected
values are computed here with metrics.lpips.lpips on the same files.
"""

import hashlib
import json

import cv2
import numpy as np
import pytest
import torch

from metrics.lpips import lpips
from metrics.lpips import tiny_lpips
from metrics.testing import binary_runner

_ALEXNET_URL = "https://download.pytorch.org/models/alexnet-owt-7be5be79.pth"


_BINARY = binary_runner.Binary("metrics/lpips", "lpips", "metrics.lpips.cli")


@pytest.fixture(name="env")
def _env(tmp_path):
    """No cache of the user's is seen: binary_runner points HOME and the torch/hub caches
    inside this folder."""
    return tmp_path


def _run(env, *args):
    return _BINARY.run(env, *args)


@pytest.fixture(scope="module", name="checkpoints")
def _checkpoints(tmp_path_factory):
    root = tmp_path_factory.mktemp("checkpoints")
    alexnet, lin = tiny_lpips.write_random_checkpoints(root, seed=1)
    return root, alexnet, lin


def _frames(count, height, width, seed):
    rng = np.random.default_rng(seed)
    ramp = np.linspace(0, 180, width)[None, :, None] + np.array([0, 30, 60])
    return np.stack([np.clip(ramp + 6 * i + rng.integers(0, 50, (height, width, 3)), 0, 255)
                     .astype(np.uint8) for i in range(count)])


def _write_folder(folder, frames):
    folder.mkdir()
    for i, frame in enumerate(frames):
        assert cv2.imwrite(str(folder / f"frame_{i:04d}.png"), frame)
    return folder


def _expected(alexnet, lin, reference, generated):
    model = lpips.load_lpips_alex(alexnet, lin, "cpu")
    return float(np.mean(lpips.lpips_distance_pairs(model, list(reference), list(generated))))


def _one_error_line(done):
    assert done.returncode == 2, done.stderr
    assert done.stdout == ""
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), done.stderr
    return lines[0]


def _clips(tmp_path):
    reference = _frames(3, 48, 64, seed=2)
    generated = _frames(3, 48, 64, seed=3)
    return (reference, generated, _write_folder(tmp_path / "ref", reference),
            _write_folder(tmp_path / "gen", generated))


def test_random_alexnet_is_refused_with_fetch_command(tmp_path, env, checkpoints):
    root, _, _ = checkpoints
    _, _, ref_dir, gen_dir = _clips(tmp_path)
    line = _one_error_line(_run(env, f"--generated={gen_dir}", f"--reference={ref_dir}",
                                f"--checkpoint_dir={root}", "--offline", "--device=cpu"))
    assert "expected sha256 7be5be79" in line
    assert f"curl -L {_ALEXNET_URL}" in line


def test_explicit_path_is_verified_too(tmp_path, env, checkpoints):
    _, alexnet, lin = checkpoints
    _, _, ref_dir, gen_dir = _clips(tmp_path)
    line = _one_error_line(_run(env, f"--generated={gen_dir}", f"--reference={ref_dir}",
                                f"--alexnet_checkpoint={alexnet}", f"--lpips_checkpoint={lin}",
                                "--offline", "--device=cpu"))
    assert str(alexnet) in line and "expected sha256 7be5be79" in line


def test_missing_checkpoint_offline_says_how_to_fetch(tmp_path, env):
    _, _, ref_dir, gen_dir = _clips(tmp_path)
    empty = tmp_path / "empty"
    empty.mkdir()
    line = _one_error_line(_run(env, f"--generated={gen_dir}", f"--reference={ref_dir}",
                                f"--checkpoint_dir={empty}", "--offline", "--device=cpu"))
    assert "--offline" in line
    assert f"mkdir -p {empty}/alexnet && curl -L {_ALEXNET_URL}" in line


def test_unverified_weights_are_used_and_recorded(tmp_path, env, checkpoints):
    root, alexnet, lin = checkpoints
    reference, generated, ref_dir, gen_dir = _clips(tmp_path)
    done = _run(env, "--json", f"--generated={gen_dir}", f"--reference={ref_dir}",
                f"--checkpoint_dir={root}", "--offline", "--device=cpu",
                "--allow_unverified_checkpoints")
    assert done.returncode == 0, done.stderr
    assert "warning:" in done.stderr and "alexnet" in done.stderr
    lines = done.stdout.splitlines()
    assert len(lines) == 1, done.stdout
    record = json.loads(lines[0])
    expected = _expected(alexnet, lin, reference, generated)
    assert record.pop("lpips") == pytest.approx(expected, rel=1e-6, abs=1e-7)
    assert expected > 1e-4
    checkpoints_record = record.pop("checkpoints")
    assert record == {"pairs": 3, "pairing": "same_length", "generated": str(gen_dir),
                      "reference": str(ref_dir), "device": "cpu"}
    assert checkpoints_record == {
        "alexnet": {"path": str(alexnet), "sha256": hashlib.sha256(alexnet.read_bytes())
                    .hexdigest(), "source": "checkpoint_dir", "verification": "unverified"},
        "lpips_alex_v0.1": {"path": str(lin), "sha256": hashlib.sha256(lin.read_bytes())
                            .hexdigest(), "source": "checkpoint_dir",
                            "verification": "unverified"},
    }


def test_explicit_paths_resampling_and_resize(tmp_path, env, checkpoints):
    _, alexnet, lin = checkpoints
    reference = _frames(6, 96, 128, seed=4)
    generated = _frames(4, 48, 64, seed=5)
    ref_dir = _write_folder(tmp_path / "ref", reference)
    gen_dir = _write_folder(tmp_path / "gen", generated)
    done = _run(env, "--json", f"--generated={gen_dir}", f"--reference={ref_dir}",
                f"--alexnet_checkpoint={alexnet}", f"--lpips_checkpoint={lin}",
                "--offline", "--device=cpu", "--allow_unverified_checkpoints")
    assert done.returncode == 0, done.stderr
    record = json.loads(done.stdout)
    # round(i * 5 / 3) for i in 0..3; each reference frame is resized to 64x48.
    expected = _expected(alexnet, lin, reference[[0, 2, 3, 5]], generated)
    assert record["lpips"] == pytest.approx(expected, rel=1e-6, abs=1e-7)
    assert (record["pairs"], record["pairing"]) == (4, "resampled_reference")
    assert {c["source"] for c in record["checkpoints"].values()} == {"flag"}


def test_text_output_and_max_side(tmp_path, env, checkpoints):
    root, alexnet, lin = checkpoints
    reference = _frames(2, 80, 120, seed=6)
    generated = _frames(2, 80, 120, seed=7)
    ref_dir = _write_folder(tmp_path / "ref", reference)
    gen_dir = _write_folder(tmp_path / "gen", generated)
    done = _run(env, f"--generated={gen_dir}", f"--reference={ref_dir}", "--max_side=60",
                f"--checkpoint_dir={root}", "--offline", "--device=cpu",
                "--allow_unverified_checkpoints")
    assert done.returncode == 0, done.stderr
    small = np.stack([cv2.resize(f, (60, 40), interpolation=cv2.INTER_AREA)
                      for f in generated])
    expected = _expected(alexnet, lin, reference, small)
    lines = done.stdout.splitlines()
    assert f"generated: {gen_dir} (2 frames, 60x40)" in lines
    assert "device:    cpu" in lines
    assert any(l.startswith("weights:   alexnet:") and "unverified" in l for l in lines)
    value = [l for l in lines if l.startswith("LPIPS:")]
    assert len(value) == 1
    assert float(value[0].split()[1]) == pytest.approx(expected, rel=1e-6, abs=1e-7)


def test_bad_lin_file_exits_2_naming_it(tmp_path, env, checkpoints):
    _, alexnet, lin = checkpoints
    state = torch.load(lin)
    state["lin9.model.1.weight"] = state.pop("lin4.model.1.weight")
    bad = tmp_path / "alex.pth"
    torch.save(state, bad)
    _, _, ref_dir, gen_dir = _clips(tmp_path)
    line = _one_error_line(_run(env, f"--generated={gen_dir}", f"--reference={ref_dir}",
                                f"--alexnet_checkpoint={alexnet}", f"--lpips_checkpoint={bad}",
                                "--offline", "--device=cpu", "--allow_unverified_checkpoints"))
    assert str(bad) in line and "lin9.model.1.weight" in line


def test_too_small_frames_exit_2(tmp_path, env, checkpoints):
    root, _, _ = checkpoints
    clip = _write_folder(tmp_path / "clip", _frames(2, 20, 40, seed=8))
    line = _one_error_line(_run(env, f"--generated={clip}", f"--reference={clip}",
                                f"--checkpoint_dir={root}", "--offline", "--device=cpu",
                                "--allow_unverified_checkpoints"))
    assert "at least 31x31" in line


def test_missing_clip_exits_2(tmp_path, env, checkpoints):
    root, _, _ = checkpoints
    clip = _write_folder(tmp_path / "clip", _frames(1, 40, 40, seed=9))
    line = _one_error_line(_run(env, f"--generated={clip}", f"--reference={tmp_path / 'nope'}",
                                f"--checkpoint_dir={root}", "--offline", "--device=cpu"))
    assert str(tmp_path / "nope") in line


@pytest.mark.skipif(torch.cuda.is_available(), reason="needs a machine without CUDA")
def test_cuda_without_cuda_exits_2(tmp_path, env):
    clip = _write_folder(tmp_path / "clip", _frames(1, 40, 40, seed=10))
    line = _one_error_line(_run(env, f"--generated={clip}", f"--reference={clip}",
                                "--device=cuda"))
    assert "no CUDA device" in line


def test_missing_flag_exits_2(tmp_path, env):
    clip = _write_folder(tmp_path / "clip", _frames(1, 40, 40, seed=11))
    done = _BINARY.run_subprocess(env, f"--generated={clip}")  # required under __main__
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.startswith("error: ") and "reference" in done.stderr


if __name__ == "__main__":
    raise SystemExit(pytest.main([__file__, "-q"]))
