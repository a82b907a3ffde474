"""dynamic_degree and motion_smoothness against the OFFICIAL code's outputs on the same
seeded random full-size weights (testdata/models_official.json, see its "how"): the
weights are rebuilt here from their seeds, saved in the official file format, read by
our loaders (metrics.flow.raft_things, metrics.frame_interpolation.amt), and run on the
same clips decoded as the runner decodes them.

Tolerance: 1e-5 relative on RAFT pair scores, 1e-6 absolute on AMT values (the scratch
run observed bit-identical numbers on CPU with the locked torch); decisions and
thresholds exactly.
"""

import json
import pathlib

import cv2
import numpy as np
import pytest

from benchmarks.vbench import dimension
from benchmarks.vbench.motion import dynamic_degree
from benchmarks.vbench.motion import motion_smoothness
from benchmarks.vbench.motion import synthetic_clips
from metrics.flow import raft_things
from metrics.flow import tiny_raft_things
from metrics.frame_interpolation import amt
from metrics.frame_interpolation import amt_smoothness
from metrics.frame_interpolation import smoothness
from metrics.frame_interpolation import tiny_amt
from metrics.video import frames as frames_lib

OFFICIAL = json.loads((pathlib.Path(__file__).parent / "testdata"
                       / "models_official.json").read_text())


@pytest.fixture(scope="module")
def models(tmp_path_factory):
    folder = tmp_path_factory.mktemp("weights")
    tiny_raft_things.write_official_file(folder / "raft-things.pth", seed=OFFICIAL["raft_seed"])
    tiny_amt.write_official_file(folder / "amt-s.pth", seed=OFFICIAL["amt_seed"])
    return (raft_things.load_raft_things(folder / "raft-things.pth", "cpu"),
            amt.load_amt_s(folder / "amt-s.pth", "cpu"))


def _video(tmp_path, spec) -> dimension.Video:
    path = synthetic_clips.write_mp4(tmp_path / f"{spec.name}.mp4", spec)
    capture = cv2.VideoCapture(str(path))
    fps = capture.get(cv2.CAP_PROP_FPS)
    capture.release()
    rgb = np.ascontiguousarray(frames_lib.load_frames(path)[..., ::-1])
    return dimension.Video(rgb=rgb, fps=fps, path=path)


@pytest.mark.parametrize("row", OFFICIAL["rows"], ids=lambda r: r["clip"]["name"])
def test_equals_the_official_outputs(tmp_path, models, row):
    raft, amt_model = models
    spec = synthetic_clips.ClipSpec(**row["clip"])
    video = _video(tmp_path, spec)
    assert video.fps == spec.fps

    official = row["dynamic_degree"]
    kept = dynamic_degree.kept_frames(video.rgb, video.fps)
    assert dynamic_degree.thresholds(*kept.shape[1:3], len(kept)) == (
        official["thres"], official["count_num"])
    assert dynamic_degree.pair_scores(kept, raft) == pytest.approx(official["pair_scores"],
                                                                   rel=1e-5)
    assert dynamic_degree.compute(video, raft).video_results == float(official["video_results"])

    official = row["motion_smoothness"]
    middles = smoothness.interpolated_midpoints(
        video.rgb, amt_smoothness.interpolator(amt_model, "cpu"), motion_smoothness.SCALE)
    diffs = [float(np.mean(cv2.absdiff(odd, middle)))
             for odd, middle in zip(video.rgb[1::2], middles)]
    assert diffs == pytest.approx(official["pair_absdiff_means"], abs=1e-6)
    assert motion_smoothness.compute(video, amt_model).video_results == pytest.approx(
        official["video_results"], abs=1e-6)
