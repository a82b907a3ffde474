"""Our decoder (OpenCV, metrics/video/frames.py) against decord, the decoder VMBench's CAS
and MSS read videos with: identical RGB pixels on generated clips in the codecs and pixel
formats video models write (MPEG-4 part 2 from OpenCV; H.264 in yuv420p, full-range
yuvj420p, yuv444p and BT.709-tagged; HEVC; VP9 in Matroska), odd sizes included. So decoding
each video once with OpenCV gives those metrics the official frames."""

import pathlib
import subprocess

import decord
import imageio_ffmpeg
import numpy as np
import pytest

from metrics.video import frames as frames_lib
from tools.fixtures import vmbench_clips

ENCODINGS = {
    "h264": ["-c:v", "libx264", "-pix_fmt", "yuv420p"],
    "h264_bt709": ["-c:v", "libx264", "-pix_fmt", "yuv420p", "-colorspace", "bt709",
                   "-color_primaries", "bt709", "-color_trc", "bt709"],
    "h264_full_range": ["-c:v", "libx264", "-pix_fmt", "yuvj420p"],
    "h264_444": ["-c:v", "libx264", "-pix_fmt", "yuv444p"],
    "hevc": ["-c:v", "libx265", "-pix_fmt", "yuv420p"],
    "vp9": ["-c:v", "libvpx-vp9", "-pix_fmt", "yuv420p"],
}


@pytest.fixture(scope="module")
def source(tmp_path_factory):
    """An OpenCV mp4v clip of a moving textured square at an odd size."""
    frames, _ = vmbench_clips.square_clip(3, frames=10, size=(241, 317))
    return vmbench_clips.write_mp4(tmp_path_factory.mktemp("clips") / "mp4v.mp4", frames)


def _encode(src: pathlib.Path, name: str) -> pathlib.Path:
    out = src.with_name(f"{name}.{'mkv' if name == 'vp9' else 'mp4'}")
    subprocess.run([imageio_ffmpeg.get_ffmpeg_exe(), "-y", "-loglevel", "error", "-i",
                    str(src), *ENCODINGS[name], str(out)], check=True)
    return out


def _decord_rgb(path: pathlib.Path) -> np.ndarray:
    reader = decord.VideoReader(str(path))
    return reader.get_batch(list(range(len(reader)))).asnumpy()


@pytest.mark.parametrize("name", ["mp4v", *ENCODINGS])
def test_opencv_frames_equal_decords(source, name):
    path = source if name == "mp4v" else _encode(source, name)
    ours = frames_lib.load_frames(path)[..., ::-1]  # BGR -> RGB
    theirs = _decord_rgb(path)
    assert ours.shape == theirs.shape and ours.shape[0] == 10
    assert np.array_equal(ours, theirs), np.abs(ours.astype(int) - theirs).max()
