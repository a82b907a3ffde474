"""load_sam2 on a tiny random model saved in the official checkpoint format."""

import dataclasses

import cv2
import numpy as np
import pytest
import torch
from PIL import Image

from metrics.segmentation import sam2_image
from metrics.segmentation import sam2_loader
from metrics.segmentation import tiny_sam2
from metrics.segmentation import sam2_video
from tools.fixtures import scene


@pytest.fixture(scope="module")
def model(tmp_path_factory):
    path = tiny_sam2.save_tiny_sam2(tmp_path_factory.mktemp("sam2") / "tiny.pt")
    return sam2_loader.load_sam2(path, config=tiny_sam2.TINY)


@pytest.fixture(scope="module")
def clip():
    frames = scene.render_clip(3, 97, 131, 5)[0]
    return np.stack([cv2.cvtColor(f, cv2.COLOR_BGR2RGB) for f in frames])


def test_the_image_and_video_models_share_the_file_tensors(model):
    image = dict(model.image_model.named_parameters())
    video = dict(model.video_model.named_parameters())
    name = "mask_decoder.iou_token.weight"
    assert image[name].data_ptr() == video[name].data_ptr()
    assert not any(t.is_meta for t in model.image_model.state_dict().values())


def test_image_masks_are_the_thresholded_upsampled_logits(model, clip):
    boxes = np.array([[10, 5, 80.5, 60], [50, 30, 131, 97]], dtype=np.float32)
    masks = model.image_masks(clip[0], boxes)
    assert masks.shape == (2, 97, 131) and masks.dtype == np.bool_
    low, iou = model.image_logits(clip[0], boxes)
    assert low.shape == (2, 1, 256, 256) and iou.shape == (2, 1)
    up = torch.nn.functional.interpolate(low, size=(97, 131), mode="bilinear")
    np.testing.assert_array_equal(masks, (up > 0)[:, 0].numpy())
    assert model.image_masks(clip[0], np.zeros((0, 4))).shape == (0, 97, 131)


def test_boxes_are_scaled_to_the_model_frame():
    boxes = sam2_image.boxes_to_model(np.array([[0, 0, 131, 97], [13.1, 9.7, 65.5, 48.5]]),
                                      (97, 131), 1024)
    np.testing.assert_allclose(boxes[0].numpy(), [[0, 0, 1024, 1024], [102.4, 102.4, 512, 512]],
                               rtol=1e-6)


def test_propagate_yields_every_object_on_frames_start_to_the_end(model, clip):
    first = np.zeros((97, 131), bool)
    first[20:60, 30:90] = True
    out = model.propagate(clip, {7: first, 2: np.zeros_like(first)}, start_frame=1,
                          max_frames=5)
    assert [frame for frame, _ in out] == [1, 2]
    for _, masks in out:
        assert list(masks) == [7, 2]
        assert all(m.shape == (97, 131) and m.dtype == np.bool_ for m in masks.values())
    # frame 1 is the input mask itself (logits +-10 resampled), the empty one stays empty
    assert (out[0][1][7] == first).mean() > 0.98 and not out[0][1][2].any()
    only_start = model.propagate(clip, {7: first}, start_frame=2, max_frames=0)
    assert [frame for frame, _ in only_start] == [2]


def test_a_mask_of_another_size_is_resized_like_add_new_mask(model, clip):
    small = np.zeros((10, 13), bool)
    small[2:6, 3:9] = True
    out = model.propagate(clip, {0: small}, start_frame=0, max_frames=1)
    assert out[0][1][0].shape == (97, 131)
    upsampled = cv2.resize(small.astype(np.uint8), (131, 97), interpolation=cv2.INTER_NEAREST)
    assert (out[0][1][0] == upsampled.astype(bool)).mean() > 0.95  # frame 0: the mask itself


def test_folder_frames_resize_as_the_official_loader():
    """load_video_frames_from_jpg_images: PIL's DEFAULT resize filter, / 255.0, normalise."""
    frames = np.random.default_rng(3).integers(0, 256, (2, 9, 14, 3), dtype=np.uint8)
    got = sam2_video.frames_to_model(frames, 16, "bicubic")
    for f, g in zip(frames, got):
        img = np.array(Image.fromarray(f).convert("RGB").resize((16, 16))) / 255.0
        want = torch.from_numpy(img).permute(2, 0, 1).float()
        want -= torch.tensor(sam2_image.MEAN)[:, None, None]
        want /= torch.tensor(sam2_image.STD)[:, None, None]
        assert torch.equal(g, want)
    assert not torch.equal(got, sam2_video.frames_to_model(frames, 16, "bilinear"))


def test_fill_holes_fills_only_small_background_components():
    logits = torch.ones(1, 1, 12, 12)
    logits[0, 0, 2:4, 2:4] = -1  # 4 pixels: a hole
    logits[0, 0, 6:9, 6:9] = -1  # 9 pixels: kept
    filled = sam2_video.fill_holes(logits, 8)
    assert torch.all(filled[0, 0, 2:4, 2:4] == 0.1)
    assert torch.all(filled[0, 0, 6:9, 6:9] == -1)
    diagonal = torch.ones(1, 1, 12, 12)
    diagonal[0, 0, 1, 1] = diagonal[0, 0, 2, 2] = -1  # 8-connected: one component of 2
    assert torch.all(sam2_video.fill_holes(diagonal, 1) == diagonal)
    assert torch.equal(sam2_video.fill_holes(logits, 0), logits)


def test_add_new_mask_resize_thresholds_at_one_half():
    mask = np.zeros((4, 4), bool)
    mask[:2] = True
    resized = sam2_video.mask_to_model(mask, 8)
    assert resized.shape == (1, 1, 8, 8)
    np.testing.assert_array_equal(resized[0, 0, :, 0].numpy(), [1, 1, 1, 1, 0, 0, 0, 0])


def test_bad_inputs_name_what_was_expected(model, clip, tmp_path):
    with pytest.raises(ValueError, match="np.uint8"):
        model.image_masks(clip[0].astype(np.float32), np.zeros((1, 4)))
    with pytest.raises(ValueError, match=r"\(N, 4\)"):
        model.image_masks(clip[0], np.zeros((4,)))
    with pytest.raises(ValueError, match="masks\\[1\\]: expected a 2-D"):
        model.propagate(clip, {1: np.zeros((97, 131, 3), bool)}, 0, 1)
    with pytest.raises(ValueError, match="resize: expected one of bilinear, bicubic"):
        sam2_video.frames_to_model(clip, 8, "nearest")
    with pytest.raises(ValueError, match="max_frames"):
        model.propagate(clip, {1: np.zeros((97, 131), bool)}, 0, -1)
    with pytest.raises(FileNotFoundError, match="sam2.1_hiera_large.pt"):
        sam2_loader.load_sam2(tmp_path / "missing.pt")
    torch.save({"state_dict": {}}, str(tmp_path / "other.pt"))
    with pytest.raises(ValueError, match="under 'model'"):
        sam2_loader.load_sam2(tmp_path / "other.pt")
    wider = dataclasses.replace(tiny_sam2.TINY, embed_dim=16)
    with pytest.raises(ValueError, match="does not fit"):
        sam2_loader.load_sam2(tiny_sam2.save_tiny_sam2(tmp_path / "t.pt"), config=wider)
    deeper = dataclasses.replace(tiny_sam2.TINY, memory_attention_layers=2)
    with pytest.raises(ValueError, match="missing"):
        sam2_loader.load_sam2(tmp_path / "t.pt", config=deeper)
