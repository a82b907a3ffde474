"""temporal_flickering against the official numbers and a numpy transcription.

testdata/temporal_flickering_official.json: the official functions' outputs on the clips
of synthetic_clips.py (see its "how"); here the same clips are written again, decoded as
the runner decodes them (metrics.video.frames), and must give the SAME floats.
"""

import json
import pathlib

import numpy as np
import pytest

from benchmarks.vbench import dimension
from benchmarks.vbench.motion import synthetic_clips
from benchmarks.vbench.motion import temporal_flickering
from metrics.video import frames as frames_lib

OFFICIAL = json.loads((pathlib.Path(__file__).parent / "testdata"
                       / "temporal_flickering_official.json").read_text())


def _video(tmp_path, row) -> dimension.Video:
    spec = synthetic_clips.ClipSpec(**row["clip"])
    path = synthetic_clips.write_mp4(tmp_path / f"{spec.name}.mp4", spec)
    bgr = frames_lib.load_frames(path)
    return dimension.Video(rgb=np.ascontiguousarray(bgr[..., ::-1]), fps=spec.fps, path=path)


def _transcribed(bgr: np.ndarray) -> float:
    """(255 - mean_k mean|f_k+1 - f_k|) / 255 from integer sums: exact while the float32
    sums are (under 2**24), each mean rounded to float32 as numpy's float32 mean is."""
    diffs = np.abs(np.diff(bgr.astype(np.int64), axis=0)).reshape(len(bgr) - 1, -1)
    pair = [np.float32(np.float32(d.sum()) / np.float32(d.size)) for d in diffs]
    assert all(d.sum() < 2 ** 24 for d in diffs)
    total = np.float32(0)
    for value in pair:  # a handful of float32 values: numpy's pairwise sum is sequential
        total = np.float32(total + value)
    return (255.0 - float(np.float32(total / np.float32(len(pair))))) / 255.0


@pytest.mark.parametrize("row", [r for r in OFFICIAL["rows"] if r["decoded_frames"] > 1],
                         ids=lambda r: r["clip"]["name"])
def test_equals_the_official_value_exactly(tmp_path, row):
    video = _video(tmp_path, row)
    assert len(video.rgb) == row["decoded_frames"]
    got_pairs = temporal_flickering.pair_maes(video.bgr())
    assert [float(v) for v in got_pairs] == row["pair_mae"]
    assert temporal_flickering.compute(video).video_results == row["video_results"]


@pytest.mark.parametrize("row", [r for r in OFFICIAL["rows"] if r["clip"]["height"] <= 72
                                 and r["decoded_frames"] > 1], ids=lambda r: r["clip"]["name"])
def test_equals_the_numpy_transcription(tmp_path, row):
    video = _video(tmp_path, row)
    assert temporal_flickering.compute(video).video_results == _transcribed(video.bgr())


def test_one_frame_is_an_error_where_upstream_gives_nan(tmp_path):
    row = next(r for r in OFFICIAL["rows"] if r["decoded_frames"] == 1)
    assert row["video_results"] is None and row["video_results_is_nan"]
    with pytest.raises(ValueError, match="1 frame"):
        temporal_flickering.compute(_video(tmp_path, row))


def test_no_frame_is_an_error_where_upstream_skips_the_video():
    assert OFFICIAL["undecodable"]["video_results_paths"] == ["still_48x64.mp4"]
    empty = dimension.Video(rgb=np.zeros((0, 8, 8, 3), np.uint8), fps=8.0,
                            path=pathlib.Path("x.mp4"))
    with pytest.raises(ValueError, match="no decodable frame"):
        temporal_flickering.compute(empty)


def test_value_has_no_extras_and_no_pooling():
    rgb = np.random.default_rng(0).integers(0, 256, (3, 6, 5, 3), dtype=np.uint8)
    value = temporal_flickering.compute(dimension.Video(rgb=rgb, fps=8.0, path=pathlib.Path("v")))
    assert value.extras == {} and value.pooled is None
    assert value.video_results == _transcribed(rgb[..., ::-1])
