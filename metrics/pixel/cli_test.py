"""Tests for the //metrics/pixel:psnr and :ssim binaries, run as subprocesses.

Expected values are computed here directly with metrics.pixel.psnr and
metrics.pixel.ssim on the same frames (PNG is lossless, and an mp4 is
decoded here with the same OpenCV), so they must match exactly.
"""

import json
import os
import pathlib
import subprocess

import cv2
import numpy as np
import pytest

from metrics.pixel.psnr import peak_signal_noise_ratio
from metrics.pixel.ssim import structural_similarity_bgr

_TIMEOUT_S = 120


def _binary(name):
    """Path of a metric binary in this test's runfiles."""
    srcdir = os.environ.get("TEST_SRCDIR")
    assert srcdir, "run with bazel test: the binaries come from the runfiles"
    path = pathlib.Path(srcdir) / "worldeval" / "metrics" / "pixel" / name
    assert path.is_file(), f"missing binary {path}"
    return path


def _run(name, *args, env=None):
    return subprocess.run(
        [str(_binary(name)), *args], capture_output=True, text=True,
        check=False, timeout=_TIMEOUT_S, env=env)


def _run_json(name, *args, env=None):
    done = _run(name, "--json", *args, env=env)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert len(lines) == 1, done.stdout
    return json.loads(lines[0])


def _frames(count, height, width, seed):
    """Smooth BGR frames with noise, so that PSNR/SSIM are not degenerate."""
    rng = np.random.default_rng(seed)
    ramp = np.linspace(0, 200, width)[None, :, None]
    frames = []
    for i in range(count):
        base = np.broadcast_to(ramp + 5 * i, (height, width, 3))
        noise = rng.integers(0, 40, (height, width, 3))
        frames.append(np.clip(base + noise, 0, 255).astype(np.uint8))
    return np.stack(frames)


def _perturbed(frames, seed, amount=12):
    rng = np.random.default_rng(seed)
    delta = rng.integers(-amount, amount + 1, frames.shape)
    return np.clip(frames.astype(int) + delta, 0, 255).astype(np.uint8)


def _write_folder(folder, frames):
    folder.mkdir()
    for i, frame in enumerate(frames):
        assert cv2.imwrite(str(folder / f"frame_{i:04d}.png"), frame)
    return folder


def _write_mp4(path, frames):
    height, width = frames.shape[1:3]
    writer = cv2.VideoWriter(
        str(path), cv2.VideoWriter_fourcc(*"mp4v"), 8.0, (width, height))
    assert writer.isOpened()
    for frame in frames:
        writer.write(frame)
    writer.release()
    return path


def _decode(path):
    capture = cv2.VideoCapture(str(path))
    frames = []
    while True:
        ok, frame = capture.read()
        if not ok:
            break
        frames.append(frame)
    capture.release()
    return np.stack(frames)


def _expected(reference, generated, reference_indices):
    """Mean PSNR and SSIM of reference[reference_indices[i]] vs generated i."""
    psnrs, ssims = [], []
    for index, gen in zip(reference_indices, generated, strict=True):
        ref = reference[index]
        height, width = gen.shape[:2]
        if ref.shape[:2] != (height, width):
            ref = cv2.resize(ref, (width, height),
                             interpolation=cv2.INTER_AREA)
        psnrs.append(peak_signal_noise_ratio(ref, gen))
        ssims.append(structural_similarity_bgr(ref, gen))
    return float(np.mean(psnrs)), float(np.mean(ssims))


def test_same_length_png_folders_match_direct_computation(tmp_path):
    reference = _frames(5, 36, 48, seed=1)
    generated = _perturbed(reference, seed=2)
    ref_dir = _write_folder(tmp_path / "ref", reference)
    gen_dir = _write_folder(tmp_path / "gen", generated)
    psnr, ssim = _expected(reference, generated, range(5))
    record = _run_json("psnr", "--metric=both", f"--generated={gen_dir}",
                       f"--reference={ref_dir}")
    assert record == {
        "psnr": psnr, "ssim": ssim, "pairs": 5, "pairing": "same_length",
        "generated": str(gen_dir), "reference": str(ref_dir)}
    assert 10.0 < psnr < 99.0 and 0.0 < ssim < 1.0


def test_different_lengths_resample_the_reference(tmp_path):
    reference = _frames(6, 48, 64, seed=3)
    generated = _perturbed(
        np.stack([cv2.resize(f, (32, 24), interpolation=cv2.INTER_AREA)
                  for f in reference[[0, 2, 3, 5]]]), seed=4)
    ref_dir = _write_folder(tmp_path / "ref", reference)
    gen_dir = _write_folder(tmp_path / "gen", generated)
    # round(i * 5 / 3) for i in 0..3; the 64x48 reference is resized to 32x24.
    psnr, ssim = _expected(reference, generated, [0, 2, 3, 5])
    args = [f"--generated={gen_dir}", f"--reference={ref_dir}"]
    record = _run_json("ssim", "--metric=ssim", *args)
    assert record == {
        "ssim": ssim, "pairs": 4, "pairing": "resampled_reference",
        "generated": str(gen_dir), "reference": str(ref_dir)}
    record = _run_json("psnr", "--metric=psnr", *args)
    assert record["psnr"] == psnr and "ssim" not in record
    # Pairing frame i with frame i (ignoring the resampling) scores lower.
    assert psnr > _expected(reference, generated, range(4))[0]


def test_identical_clips_give_psnr_cap(tmp_path):
    clip = _write_folder(tmp_path / "clip", _frames(3, 20, 30, seed=5))
    record = _run_json("psnr", f"--generated={clip}", f"--reference={clip}")
    assert record["psnr"] == 99.0
    assert abs(record["ssim"] - 1.0) <= 1e-6
    assert record["pairs"] == 3 and record["pairing"] == "same_length"


def test_mp4_generated_against_png_reference(tmp_path):
    reference = _frames(6, 48, 64, seed=6)
    video = _write_mp4(tmp_path / "gen.mp4", _perturbed(reference, seed=7))
    decoded = _decode(video)
    assert decoded.shape == reference.shape
    ref_dir = _write_folder(tmp_path / "ref", reference)
    psnr, ssim = _expected(reference, decoded, range(6))
    record = _run_json("ssim", "--metric=both", f"--generated={video}",
                       f"--reference={ref_dir}")
    assert (record["psnr"], record["ssim"]) == (psnr, ssim)
    assert record["pairs"] == 6 and record["pairing"] == "same_length"


def test_max_side_resizes_generated_then_reference(tmp_path):
    reference = _frames(3, 60, 80, seed=8)
    generated = _perturbed(reference, seed=9)
    ref_dir = _write_folder(tmp_path / "ref", reference)
    gen_dir = _write_folder(tmp_path / "gen", generated)
    small = np.stack([cv2.resize(f, (40, 30), interpolation=cv2.INTER_AREA)
                      for f in generated])
    psnr, ssim = _expected(reference, small, range(3))
    record = _run_json("psnr", "--max_side=40", f"--generated={gen_dir}",
                       f"--reference={ref_dir}")
    assert (record["psnr"], record["ssim"]) == (psnr, ssim)
    full = _run_json("psnr", f"--generated={gen_dir}",
                     f"--reference={ref_dir}")
    assert (full["psnr"], full["ssim"]) == _expected(
        reference, generated, range(3))


def test_text_output(tmp_path):
    reference = _frames(5, 24, 32, seed=10)
    generated = _perturbed(reference[[0, 2, 4]], seed=11)
    ref_dir = _write_folder(tmp_path / "ref", reference)
    gen_dir = _write_folder(tmp_path / "gen", generated)
    psnr, ssim = _expected(reference, generated, [0, 2, 4])
    done = _run("psnr", "--metric=both", f"--generated={gen_dir}",
                f"--reference={ref_dir}")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert any(l.startswith("pairing:") and "resampled from 5 to 3" in l
               for l in lines)
    assert "pairs:     3" in lines
    assert f"PSNR:      {psnr!r} dB (mean over pairs)" in lines
    assert f"SSIM:      {ssim!r} (mean over pairs)" in lines
    done = _run("ssim", "--metric=ssim", f"--generated={gen_dir}",
                f"--reference={ref_dir}")
    assert "SSIM:" in done.stdout and "PSNR:" not in done.stdout


def test_relative_paths_are_taken_from_bazel_run_directory(tmp_path):
    _write_folder(tmp_path / "clip", _frames(2, 16, 16, seed=14))
    env = dict(os.environ, BUILD_WORKING_DIRECTORY=str(tmp_path))
    record = _run_json("psnr", "--generated=clip", "--reference=clip",
                       env=env)
    assert record["psnr"] == 99.0
    assert (record["generated"], record["reference"]) == ("clip", "clip")


@pytest.mark.parametrize("bad_name", ["missing", "notes.txt"])
def test_bad_reference_exits_2_with_one_line(tmp_path, bad_name):
    gen_dir = _write_folder(tmp_path / "gen", _frames(2, 16, 16, seed=12))
    bad = tmp_path / bad_name
    if bad_name.endswith(".txt"):
        bad.write_text("not frames")
    done = _run("psnr", "--metric=psnr", f"--generated={gen_dir}",
                f"--reference={bad}")
    assert done.returncode == 2
    assert done.stdout == ""
    lines = done.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ")
    assert str(bad) in lines[0]


@pytest.mark.parametrize("bad_flag", ["--metric=lpips", "--max_side=0", None])
def test_bad_or_missing_flag_exits_2_with_one_line(tmp_path, bad_flag):
    clip = _write_folder(tmp_path / "clip", _frames(2, 16, 16, seed=15))
    args = [f"--generated={clip}"]  # --reference is missing.
    if bad_flag:
        args += [f"--reference={clip}", bad_flag]
    done = _run("psnr", *args)
    assert done.returncode == 2
    assert done.stdout == ""
    first, *rest = done.stderr.splitlines()
    assert first.startswith("error: ")
    assert rest == ["Pass --help to see the flags."]
    assert (bad_flag or "--reference").split("=")[0].lstrip("-") in first


def test_extra_positional_argument_exits_2(tmp_path):
    clip = _write_folder(tmp_path / "clip", _frames(2, 16, 16, seed=13))
    done = _run("ssim", "--metric=ssim", f"--generated={clip}",
                f"--reference={clip}", "extra")
    assert done.returncode == 2
    assert done.stdout == ""
    assert "unexpected arguments: extra" in done.stderr


if __name__ == "__main__":
    raise SystemExit(pytest.main([__file__, "-q"]))
