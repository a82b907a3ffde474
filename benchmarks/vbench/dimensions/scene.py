"""scene: does Tag2Text's caption of each frame contain every word of the scene key (spec
§5.2; Vchitect/VBench@45e79ec vbench/scene.py:27-34).

A frame succeeds when every piece of the key split on single spaces is a substring of
the caption (so "bar" is found in "a barn", and a double space gives an empty piece that
is always found). The video value is successes / frames with both counts kept; the
aggregate is Σ successes / Σ frames. The model side (Tag2Text on the 16 middle frames
decoded at 384x384) is VBench part 2's; `value` takes its captions.

`compute(video, model)` runs that model side: the 16 middle frames decoded at 384x384 as
decord scales them, tag2text_transform, metrics/tag2text's captioner, then `value`.
"""

import subprocess
from typing import Mapping, Sequence

import imageio_ffmpeg
import numpy as np
import torch

from benchmarks.vbench import dimension
from metrics.tag2text import captioner
from metrics.tag2text import loader
from metrics.viclip import inputs as middle_frames


def frame_success(caption: str, key: str) -> bool:
    return all(piece in caption for piece in key.split(" "))


def value(captions: Sequence[str], key: str) -> dimension.Value:
    if not captions:
        raise ValueError("no caption: upstream divides by zero (len(cur_video_pred) == 0)")
    hits = sum(frame_success(c, key) for c in captions)
    return dimension.Value(video_results=hits / len(captions),
                           extras={"success_frame_count": hits, "frame_count": len(captions)})


# --- The model side: Tag2Text captions of the 16 middle frames (spec §5.2 scene;
# vbench/scene.py:39-60). ---
#
# Frames. Upstream reads `load_video(path, num_frames=16, return_tensor=False, width=384,
# height=384)`: decord decodes at 384x384, the resize done by FFmpeg's scaler on the
# decoded YUV picture together with the RGB conversion (vf_scale's default flags,
# bilinear). No resize of our native RGB frames gives those pixels (cv2.resize differs by
# up to 97-156 levels, mean 2-3, on H.264/MPEG-4 clips of 512x288 to 1280x720); the ffmpeg
# binary imageio-ffmpeg ships, asked for `-sws_flags bilinear -vf scale=384:384 -pix_fmt
# rgb24`, gave decord 0.6.0's 384x384 frames bit for bit on every clip tried (2026-12-08,
# scratch run; decode_384's docstring). So the video is decoded a second time here, at
# 384x384; its frame count must equal the runner's OpenCV decode, else the frames are
# not upstream's and the video gets no value.
#
# Transform. tag2text_transform(384) (utils.py:63-66): ToPILImage, Resize((384, 384),
# antialias=False) (the identity on a 384x384 PIL image: PIL returns a copy), ToTensor
# (/ 255), Normalize(ImageNet mean/std).

NUM_FRAMES = 16
SIZE = 384
MEAN = (0.485, 0.456, 0.406)
STD = (0.229, 0.224, 0.225)


def decode_384(path) -> np.ndarray:
    """Every frame of `path` as uint8 (T, 384, 384, 3) RGB, scaled by FFmpeg as decord's
    VideoReader(width=384, height=384) scales (bilinear swscale in the YUV->RGB step);
    every decoded frame once (-fps_mode passthrough: no frame dropped or repeated)."""
    cmd = [imageio_ffmpeg.get_ffmpeg_exe(), "-nostdin", "-hide_banner", "-v", "error",
           "-i", str(path), "-sws_flags", "bilinear", "-vf", f"scale={SIZE}:{SIZE}",
           "-fps_mode", "passthrough", "-pix_fmt", "rgb24", "-f", "rawvideo", "-"]
    done = subprocess.run(cmd, capture_output=True, check=False)
    frame_bytes = SIZE * SIZE * 3
    if done.returncode != 0 or len(done.stdout) % frame_bytes:
        raise ValueError(f"{path}: ffmpeg could not decode it at {SIZE}x{SIZE}: "
                         f"{done.stderr.decode(errors='replace').strip()[:300]}")
    return np.frombuffer(done.stdout, np.uint8).reshape(-1, SIZE, SIZE, 3)


def frames(video: dimension.Video) -> np.ndarray:
    """The 16 "middle" frames (spec §4) at 384x384, uint8 (16, 384, 384, 3)."""
    scaled = decode_384(video.path)
    if len(scaled) != len(video.rgb):
        raise ValueError(f"{video.path}: {len(scaled)} frames at {SIZE}x{SIZE}, "
                         f"{len(video.rgb)} in the OpenCV decode: not upstream's frames")
    return scaled[middle_frames.middle_frame_indices(len(scaled), NUM_FRAMES)]


def pixel_values(rgb: np.ndarray) -> torch.Tensor:
    """(T, 3, 384, 384) float32: tag2text_transform(384) of uint8 (T, 384, 384, 3) frames."""
    if rgb.dtype != np.uint8 or rgb.shape[1:] != (SIZE, SIZE, 3):
        raise ValueError(f"expected uint8 (T, {SIZE}, {SIZE}, 3) frames, got {rgb.dtype} "
                         f"{rgb.shape}")
    x = torch.from_numpy(np.ascontiguousarray(rgb)).permute(0, 3, 1, 2).contiguous()
    x = x.to(torch.float32).div(255)
    mean = torch.tensor(MEAN)[:, None, None]
    std = torch.tensor(STD)[:, None, None]
    return x.sub(mean).div(std)


def compute(video: dimension.Video, model: loader.Loaded) -> dimension.Value:
    """Tag2Text captions of the 16 middle frames in one batch (as upstream: one
    generate call per video, so its batch quirk, metrics/tag2text/model.py, applies to
    those 16), scored by `value` against the entry's auxiliary_info["scene"]["scene"]."""
    info = (video.auxiliary or {}).get("scene")
    key = info.get("scene") if isinstance(info, Mapping) else None
    if not isinstance(key, str):
        raise ValueError(f"{video.path}: no auxiliary_info scene.scene for `scene` "
                         "(upstream raises: 'Auxiliary info is not in json')")
    device = next(model.model.parameters()).device
    images = pixel_values(frames(video)).to(device)
    out = captioner.caption(model.model, model.tokenizer, model.tag_names, images)
    return value(out.captions, key)
