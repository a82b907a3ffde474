"""Tests for metrics.clip.image_transform against open_clip's transform written out here.

Two references: a PIL/numpy transcription (metrics.clip.reference_transform) and
the torchvision Compose that open_clip's `image_transform(224, is_train=False)`
builds for the OpenAI tags.
"""

import numpy as np
from PIL import Image
import pytest
import torch
from torchvision import transforms

from metrics.clip import image_transform
from metrics.clip import reference_transform

# (height, width): landscape 16:9, portrait, odd sizes, an upscale, the identity
# size, and 224 x 227 whose crop offset is round(1.5) = 2 (floor would give 1).
_SIZES = [(360, 640), (500, 300), (123, 457), (97, 131), (224, 224), (224, 227), (231, 224)]


def _open_clip_compose():
    """What open_clip composes for image_size 224, resize_mode 'shortest', bicubic."""
    return transforms.Compose([
        transforms.Resize(224, interpolation=transforms.InterpolationMode.BICUBIC),
        transforms.CenterCrop(224),
        transforms.ToTensor(),
        transforms.Normalize((0.48145466, 0.4578275, 0.40821073),
                             (0.26862954, 0.26130258, 0.27577711)),
    ])


@pytest.mark.parametrize("height,width", _SIZES)
def test_matches_pil_numpy_transcription(height, width):
    frame = reference_transform.smooth_frame(height, width, seed=height * 1000 + width)
    got = image_transform.frames_to_pixel_values([frame])[0]
    assert got.shape == (3, 224, 224) and got.dtype == torch.float32
    expected = reference_transform.reference_pixels(frame)
    np.testing.assert_allclose(got.numpy(), expected, rtol=0, atol=1e-6)


@pytest.mark.parametrize("height,width", _SIZES)
def test_matches_open_clip_torchvision_compose(height, width):
    frame = reference_transform.smooth_frame(height, width, seed=7)
    rgb = Image.fromarray(np.ascontiguousarray(frame[:, :, ::-1]))
    expected = _open_clip_compose()(rgb)
    got = image_transform.open_clip_transform(image_transform.bgr_to_pil(frame))
    assert torch.equal(got, expected)


def test_crop_rounds_half_to_even_unlike_transformers():
    # 224 x 227: open_clip crops columns 2..225, transformers' floor rule 1..224.
    assert reference_transform.crop_offset(227) == 2
    assert reference_transform.crop_offset(227, floor=True) == 1
    frame = reference_transform.smooth_frame(224, 227, seed=3)
    got = image_transform.frames_to_pixel_values([frame])[0].numpy()
    floor = reference_transform.reference_pixels(frame, floor_crop=True)
    assert np.abs(got - floor).max() > 1e-3


def test_longer_side_is_truncated():
    # 640 x 359: 224 * 640 / 359 = 399.33 -> 399 (int), then a centred 224 crop.
    assert reference_transform.resized_size(640, 359) == (399, 224)
    frame = reference_transform.smooth_frame(359, 640, seed=4)
    got = image_transform.frames_to_pixel_values([frame])[0].numpy()
    np.testing.assert_allclose(got, reference_transform.reference_pixels(frame), atol=1e-6)


def test_bgr_is_flipped_to_rgb_and_normalised():
    frame = np.zeros((224, 224, 3), np.uint8)
    frame[:, :, 2] = 255  # Pure red in BGR.
    got = image_transform.frames_to_pixel_values([frame])[0]
    expected = torch.tensor([(1 - 0.48145466) / 0.26862954, (0 - 0.4578275) / 0.26130258,
                             (0 - 0.40821073) / 0.27577711])
    torch.testing.assert_close(got[:, 100, 100], expected, rtol=0, atol=1e-6)


def test_batch_stacks_frames_of_different_sizes():
    frames = [reference_transform.smooth_frame(h, w, seed=i) for i, (h, w) in enumerate(_SIZES[:3])]
    batch = image_transform.frames_to_pixel_values(frames)
    assert batch.shape == (3, 3, 224, 224)
    for i, frame in enumerate(frames):
        np.testing.assert_allclose(batch[i].numpy(), reference_transform.reference_pixels(frame),
                                   atol=1e-6)


def test_other_sizes():
    frame = reference_transform.smooth_frame(50, 70, seed=1)
    got = image_transform.frames_to_pixel_values([frame], size=32)[0]
    np.testing.assert_allclose(got.numpy(), reference_transform.reference_pixels(frame, 32),
                               atol=1e-6)


@pytest.mark.parametrize("frame", [
    np.zeros((8, 8), np.uint8),
    np.zeros((8, 8, 4), np.uint8),
    np.zeros((8, 8, 3), np.float32),
])
def test_rejects_bad_frames(frame):
    with pytest.raises(ValueError, match="uint8 BGR frame"):
        image_transform.frames_to_pixel_values([frame])


def test_rejects_empty_input_and_bad_size():
    with pytest.raises(ValueError, match="at least one frame"):
        image_transform.frames_to_pixel_values([])
    with pytest.raises(ValueError, match="size must be positive"):
        image_transform.open_clip_transform(Image.new("RGB", (4, 4)), size=0)


if __name__ == "__main__":
    raise SystemExit(pytest.main([__file__, "-q"]))


@pytest.mark.parametrize("height,width", [(512, 512), (30, 20), (21, 40)])
def test_tensor_preprocess_is_pyiqas_clip_preprocess_tensor(height, width):
    """pyiqa clip_preprocess_tensor written out: interpolate the shorter side to 8
    (bicubic, antialias, the longer one int(8 * long / short)), crop
    round((len - 8) / 2) from the top/left, OpenAI mean/std."""
    images = torch.rand(2, 3, height, width, generator=torch.Generator().manual_seed(1))
    short, long_ = sorted((height, width))
    size = (8, int(8 * long_ / short)) if height <= width else (int(8 * long_ / short), 8)
    resized = torch.nn.functional.interpolate(images, size=size, mode="bicubic",
                                              align_corners=False, antialias=True)
    top, left = (int(round((s - 8) / 2.0)) for s in size)
    cropped = resized[:, :, top:top + 8, left:left + 8]
    mean = torch.tensor(image_transform.OPENAI_CLIP_MEAN)[:, None, None]
    std = torch.tensor(image_transform.OPENAI_CLIP_STD)[:, None, None]
    got = image_transform.clip_preprocess_tensor(images, 8)
    torch.testing.assert_close(got, (cropped - mean) / std, rtol=0, atol=1e-6)
    with pytest.raises(ValueError, match=r"\(N, 3, H, W\) float"):
        image_transform.clip_preprocess_tensor(images[0], 8)


def test_tensor_preprocess_differs_from_the_pil_transform():
    """The official laion_aes numbers are not open_clip's PIL path (the reason it exists)."""
    frame = np.random.default_rng(2).integers(0, 256, (512, 512, 3), dtype=np.uint8)
    pil = image_transform.open_clip_transform(Image.fromarray(frame))
    tensor = image_transform.clip_preprocess_tensor(
        torch.from_numpy(frame).permute(2, 0, 1)[None].float() / 255)[0]
    assert pil.shape == tensor.shape and (pil - tensor).abs().max() > 1e-3
