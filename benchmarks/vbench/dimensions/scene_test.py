"""scene's model side: the 384x384 frames against decord's scaled decode (upstream's
load_video(width=384, height=384)), tag2text_transform against torchvision's own, and
compute() end to end on the tiny Tag2Text. The caption rule is semantic_rules_test's."""

import subprocess

import cv2
import decord
import imageio_ffmpeg
import numpy as np
import pytest
import torch
from torchvision import transforms as T

from benchmarks.vbench import dimension
from benchmarks.vbench.dimensions import scene
from metrics.tag2text import captioner
from metrics.tag2text import loader
from metrics.tag2text import tiny_tag2text as tiny
from metrics.video import frames as frames_lib

KNOBS = tiny.Knobs(tag_bias=-1.5, forced_tags=(5,), decoder_std=0.5, eos_bias=3.0)


def _clip(path, width, height, count=20, seed=0):
    """An H.264 yuv420p clip of a moving noisy block on a sine texture."""
    rng = np.random.default_rng(seed)
    yy, xx = np.mgrid[0:height, 0:width] / max(width, height)
    base = np.stack([127 + 60 * np.sin(2 * np.pi * (rng.uniform(-8, 8) * xx
                                                     + rng.uniform(-8, 8) * yy))
                     for _ in range(3)], -1)
    frames = []
    for t in range(count):
        f = base.copy()
        y0, x0 = height // 5 + 2 * t, width // 10 + 3 * t
        f[y0:y0 + height // 4, x0:x0 + width // 5] = rng.uniform(0, 255, 3)
        frames.append(np.clip(f + rng.normal(0, 8, f.shape), 0, 255).astype(np.uint8))
    cmd = [imageio_ffmpeg.get_ffmpeg_exe(), "-y", "-loglevel", "error", "-f", "rawvideo",
           "-pix_fmt", "rgb24", "-s", f"{width}x{height}", "-r", "8", "-i", "-",
           "-c:v", "libx264", "-pix_fmt", "yuv420p", str(path)]
    subprocess.run(cmd, input=np.stack(frames).tobytes(), check=True)
    return path


def _video(path, auxiliary=None):
    rgb = np.ascontiguousarray(frames_lib.load_frames(path)[..., ::-1])
    return dimension.Video(rgb=rgb, fps=8.0, path=path, auxiliary=auxiliary)


@pytest.mark.parametrize("size", [(512, 288), (242, 318)])
def test_frames_are_decords_384_decode(tmp_path, size):
    path = _clip(tmp_path / "clip.mp4", *size)
    reader = decord.VideoReader(str(path), width=384, height=384, num_threads=1)
    theirs = reader.get_batch(list(range(len(reader)))).asnumpy()
    ours = scene.decode_384(path)
    assert np.array_equal(ours, theirs)
    # why a second decode: resizing the native frames does not give decord's pixels
    native = _video(path).rgb
    resized = np.stack([cv2.resize(f, (384, 384), interpolation=cv2.INTER_LINEAR)
                        for f in native])
    assert np.abs(resized.astype(int) - theirs).max() > 10
    picked = scene.frames(_video(path))
    # get_frame_indices(16, 20, "middle"): edges 0,1,2,3,5,6,7,8,10,...,18,20
    assert np.array_equal(picked, theirs[[0, 1, 2, 3, 5, 6, 7, 8, 10, 11, 12, 13, 15, 16,
                                          17, 18]])


def test_frames_refuse_a_frame_count_that_differs_from_opencvs(tmp_path):
    path = _clip(tmp_path / "clip.mp4", 320, 240, count=18)
    video = _video(path)
    with pytest.raises(ValueError, match="not upstream's frames"):
        scene.frames(dimension.Video(rgb=video.rgb[:-1], fps=8.0, path=path))


def test_pixel_values_are_tag2text_transform():
    rgb = np.random.default_rng(3).integers(0, 256, (2, 384, 384, 3), dtype=np.uint8)
    reference = T.Compose([T.ToPILImage(), T.Resize((384, 384), antialias=False),
                           T.ToTensor(), T.Normalize(mean=[0.485, 0.456, 0.406],
                                                     std=[0.229, 0.224, 0.225])])
    expected = torch.stack([reference(f) for f in rgb])
    assert torch.equal(scene.pixel_values(rgb), expected)
    with pytest.raises(ValueError, match="expected uint8"):
        scene.pixel_values(rgb[:, :200])


def test_compute_end_to_end_on_the_tiny_model(tmp_path):
    model = loader.load(tiny.write_checkpoint(tmp_path / "t2t.pth", knobs=KNOBS),
                        tiny.write_vocab(tmp_path / "vocab.txt"), torch.device("cpu"),
                        arch=tiny.TINY)
    path = _clip(tmp_path / "clip.mp4", 320, 240, count=20)
    images = scene.pixel_values(scene.frames(_video(path)))
    captions = captioner.caption(model.model, model.tokenizer, model.tag_names,
                                 images).captions
    key = captions[0].split(" ")[0]
    got = scene.compute(_video(path, {"scene": {"scene": key}}), model)
    assert got == scene.value(captions, key)
    assert got.extras["frame_count"] == 16 and got.extras["success_frame_count"] >= 1
    with pytest.raises(ValueError, match="auxiliary_info scene.scene"):
        scene.compute(_video(path, {"scene": "kitchen"}), model)
