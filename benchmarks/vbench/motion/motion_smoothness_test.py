"""motion_smoothness: frame selection, padding, truncation and the scale-1 quirk exactly
(spec §5.2, §9 quirk 5) against this file's numpy transcription of upstream's
`motion_score` / `vfi_score`; and the AMT-S part on random full-size weights
(tiny_amt, read by the real loader) against the network called directly."""

import pathlib

import cv2
import numpy as np
import pytest
import torch

from benchmarks.vbench import dimension
from benchmarks.vbench.motion import motion_smoothness
from metrics.frame_interpolation import amt
from metrics.frame_interpolation import amt_smoothness
from metrics.frame_interpolation import smoothness
from metrics.frame_interpolation import tiny_amt


class _Recorder(torch.nn.Module):
    """AMT's call; the middle frame is (in_0 + in_1) / 2 + 0.4 / 255 (so x * 255 has a
    fractional part that truncation drops); records every call."""

    def __init__(self):
        super().__init__()
        self.anchor = torch.nn.Parameter(torch.zeros(1))
        self.calls = []

    def forward(self, in_0, in_1, embt, scale_factor, eval):  # pylint: disable=redefined-builtin
        self.calls.append((tuple(in_0.shape), float(embt.flatten()[0]), scale_factor, eval))
        return {"imgt_pred": torch.clamp((in_0 + in_1) / 2 + 0.4 / 255, 0, 1)}


def _video(rgb) -> dimension.Video:
    return dimension.Video(rgb=rgb, fps=8.0, path=pathlib.Path("v.mp4"))


def _transcribed(rgb, middle_fn, truncate=True):
    """Upstream's arithmetic: evens / 255 -> centred edge pad to 16 -> middle_fn ->
    unpad -> x * 255 clipped, to uint8 -> odd frames vs midpoints -> (255 - vfi) / 255."""
    evens = [f.astype(np.float32) / np.float32(255.0) for f in rgb[0::2]]
    height, width = rgb.shape[1:3]
    pad_h, pad_w = -height % 16, -width % 16
    top, left = pad_h // 2, pad_w // 2
    widths = ((top, pad_h - top), (left, pad_w - left), (0, 0))
    padded = [np.pad(e, widths, mode="edge") for e in evens]
    middles = []
    for first, second in zip(padded[:-1], padded[1:]):
        image = middle_fn(first, second)[top:top + height, left:left + width] * np.float32(255.0)
        image = np.clip(image, 0, 255)
        middles.append(image.astype(np.uint8) if truncate else np.rint(image).astype(np.uint8))
    odds = rgb[1::2]
    diffs = [np.mean(np.abs(odds[k].astype(np.int16) - middles[k].astype(np.int16)))
             for k in range(len(middles))]
    return (255.0 - np.mean(diffs)) / 255.0


def _recorder_middle(first, second):
    return np.clip((first + second) / np.float32(2) + np.float32(0.4) / np.float32(255), 0, 1)


@pytest.mark.parametrize("count, height, width", [(5, 21, 30), (6, 16, 32), (3, 17, 17)])
def test_arithmetic_equals_the_transcription(count, height, width):
    rgb = np.random.default_rng(count).integers(0, 256, (count, height, width, 3), np.uint8)
    model = _Recorder()
    got = motion_smoothness.compute(_video(rgb), model).video_results
    assert got == _transcribed(rgb, _recorder_middle)
    padded = (1, 3, -(-height // 16) * 16, -(-width // 16) * 16)
    assert model.calls == [(padded, 0.5, 1.0, True)] * (len(rgb[0::2]) - 1)


def test_truncation_not_rounding():
    rgb = np.random.default_rng(9).integers(0, 256, (5, 16, 16, 3), np.uint8)
    got = motion_smoothness.compute(_video(rgb), _Recorder()).video_results
    assert got != _transcribed(rgb, _recorder_middle, truncate=False)


def test_with_an_even_count_the_last_odd_frame_is_unused():
    rgb = np.random.default_rng(1).integers(0, 256, (6, 16, 16, 3), np.uint8)
    changed = rgb.copy()
    changed[5] = 255 - changed[5]
    assert (motion_smoothness.compute(_video(rgb), _Recorder()).video_results
            == motion_smoothness.compute(_video(changed), _Recorder()).video_results)
    changed[3] = 255 - changed[3]
    assert (motion_smoothness.compute(_video(rgb), _Recorder()).video_results
            != motion_smoothness.compute(_video(changed), _Recorder()).video_results)


def test_scale_is_one_whatever_the_device_memory_rule_says(monkeypatch):
    # Upstream compares a torch.device with the string 'cuda' (never equal): the CPU
    # anchors, scale 1, on every device. A memory rule consulted here would show.
    assert motion_smoothness.SCALE == 1.0
    monkeypatch.setattr(smoothness, "memory_scale", lambda *a, **k: 0.25)
    monkeypatch.setattr(amt_smoothness, "device_scale", lambda *a, **k: 0.25)
    model = _Recorder()
    rgb = np.zeros((3, 1080 // 8, 1920 // 8, 3), np.uint8)
    motion_smoothness.compute(_video(rgb), model)
    assert [call[2] for call in model.calls] == [1.0]
    assert model.calls[0][0][-2:] == (144, 240)  # multiples of int(16 / 1)


@pytest.mark.parametrize("count", [1, 2])
def test_fewer_than_three_frames_is_an_error(count):
    with pytest.raises(ValueError, match="AMT needs 2"):
        motion_smoothness.compute(_video(np.zeros((count, 16, 16, 3), np.uint8)), _Recorder())


@pytest.fixture(scope="module")
def amt_model(tmp_path_factory):
    path = tmp_path_factory.mktemp("amt") / "amt-s.pth"
    tiny_amt.write_official_file(path, seed=7)
    return amt.load_amt_s(path, "cpu")


def test_amt_s_on_random_weights_equals_the_network_called_directly(amt_model):
    base = np.random.default_rng(2).integers(0, 256, (120, 130, 3))
    blurred = cv2.GaussianBlur(base.astype(np.uint8), (9, 9), 3)
    rgb = np.stack([np.roll(blurred, 2 * t, axis=1) for t in range(5)])
    embt = torch.full((1, 1, 1, 1), 0.5)

    def network(first, second):
        def tensor(image):
            return torch.from_numpy(np.ascontiguousarray(image)).permute(2, 0, 1)[None]
        with torch.no_grad():
            out = amt_model(tensor(first), tensor(second), embt, scale_factor=1.0, eval=True)
        return out["imgt_pred"][0].permute(1, 2, 0).numpy()

    want = _transcribed(rgb, network)
    got = motion_smoothness.compute(_video(rgb), amt_model).video_results
    assert got == pytest.approx(want, abs=1e-9)
    assert 0.5 < got < 1.0
