"""Tests for metrics.segmentation.sam3 with a tiny random SAM-3 saved by the test.

The model and tokenizer go through the real path: <checkpoint_dir>/sam3,
metrics.checkpoints.resolver, load_sam3. The preprocessing, tokenisation, prompt
assembly and mask post-processing are checked against transcriptions written here
(OpenCV for the mask resize) and against transformers' own forward.
"""

import os

os.environ["HF_HUB_OFFLINE"] = "1"  # before huggingface_hub reads it at import
# pylint: disable=wrong-import-position

import cv2
import numpy as np
import pytest
import torch

from metrics.checkpoints import resolver
from metrics.segmentation import sam3
from metrics.segmentation import tiny_sam3


@pytest.fixture(scope="module")
def checkpoint_dir(tmp_path_factory):
    folder = tmp_path_factory.mktemp("ckpt")
    tiny_sam3.save_tiny_sam3(folder)
    return folder


@pytest.fixture(scope="module")
def detector(checkpoint_dir):
    found = resolver.resolve(sam3.SAM3, checkpoint_dir=str(checkpoint_dir), offline=True)
    return sam3.load_sam3(found.path, "cpu")


def _frame(height, width, seed):
    return np.random.default_rng(seed).integers(0, 256, (height, width, 3), dtype=np.uint8)


def test_spec_names_the_official_repository():
    spec = sam3.SAM3
    assert (spec.name, spec.filename, spec.hf_repo, spec.hf_revision, spec.snapshot) == (
        "sam3", "model.safetensors", "facebook/sam3",
        "3c879f39826c281e95690f02c7821c4de09afae7", True)
    assert ("huggingface-cli download facebook/sam3 --revision "
            "3c879f39826c281e95690f02c7821c4de09afae7") in spec.fetch_command("/c")


def test_resolver_and_loader(detector, checkpoint_dir):
    found = resolver.resolve(sam3.SAM3, checkpoint_dir=str(checkpoint_dir), offline=True)
    assert (found.source, found.path) == ("checkpoint_dir", checkpoint_dir / "sam3")
    assert not detector.model.training
    assert all(p.dtype == torch.float32 for p in detector.model.parameters())
    assert (detector.resolution, detector.context_length) == (tiny_sam3.IMAGE_SIZE, 32)


def test_loader_needs_the_tokenizer(tmp_path):
    folder = tiny_sam3.save_tiny_sam3(tmp_path)
    (folder / "tokenizer_config.json").unlink()
    with pytest.raises(FileNotFoundError, match="tokenizer_config.json"):
        sam3.load_sam3(folder, "cpu")


def test_token_ids_follow_simple_tokenizer_layout(detector):
    tok = detector.tokenizer
    ids = sam3.token_ids(detector, "A  red BALL(subject)")
    words = tok.convert_ids_to_tokens([i for i in ids if i != 0])
    assert words == ["<|startoftext|>", "a</w>", "red</w>", "ball</w>", "(</w>",
                     "subject</w>", ")</w>", "<|endoftext|>"]
    assert len(ids) == 32 and ids[8:] == [0] * 24
    long_ids = sam3.token_ids(detector, "red " * 40)
    assert len(long_ids) == 32 and long_ids[0] == tok.bos_token_id
    assert long_ids[-1] == tok.eos_token_id and 0 not in long_ids


def test_prompt_mask_is_nonzero_tokens(detector):
    prompt = sam3.encode_prompt(detector, "red ball")
    assert prompt.features.shape == (1, 32, 16)
    assert prompt.mask[0].tolist() == [True] * 4 + [False] * 28


def test_text_features_ignore_padding_ids(detector):
    """Causal text encoder: what pads the sequence cannot change the real tokens."""
    ids = torch.tensor([sam3.token_ids(detector, "red ball")])
    other = ids.clone()
    other[ids == 0] = detector.tokenizer.eos_token_id
    with torch.no_grad():
        a = detector.model.get_text_features(input_ids=ids).pooler_output
        b = detector.model.get_text_features(input_ids=other).pooler_output
    torch.testing.assert_close(a[:, :4], b[:, :4], rtol=0, atol=1e-6)


@pytest.mark.parametrize("height,width", [(56, 56), (40, 90), (120, 64)])
def test_pixel_values_match_resize_then_normalize(detector, height, width):
    frame = _frame(height, width, seed=height + width)
    got = sam3.pixel_values(detector, frame)[0].numpy()
    assert got.shape == (3, 56, 56) and got.dtype == np.float32
    # Reference: antialiased bilinear resize of the uint8 image, rounded back to uint8,
    # then /255 and (x - 0.5) / 0.5.
    chw = torch.from_numpy(frame).permute(2, 0, 1)[None].float()
    resized = torch.nn.functional.interpolate(chw, size=(56, 56), mode="bilinear",
                                              antialias=True, align_corners=False)
    expected = (resized.round().clamp(0, 255)[0].numpy() / 255 - 0.5) / 0.5
    np.testing.assert_allclose(got, expected, rtol=0, atol=2 / 255 + 1e-6)
    if (height, width) == (56, 56):
        np.testing.assert_allclose(got, (frame.transpose(2, 0, 1) / 255 - 0.5) / 0.5,
                                   rtol=0, atol=1e-6)


def test_pixel_values_reject_bad_frames(detector):
    with pytest.raises(ValueError, match="uint8"):
        sam3.pixel_values(detector, np.zeros((8, 8), np.uint8))


def test_grounding_adds_the_geometry_cls_token(detector):
    """Our prompt = text + geometry CLS: transformers' forward gives the same outputs
    when made to run its geometry encoder (a padding box, label -10), and different
    ones on its text-only path (no CLS)."""
    model = detector.model
    prompt = sam3.encode_prompt(detector, "red ball(subject)")
    pixels = sam3.pixel_values(detector, _frame(64, 80, seed=5))
    with torch.no_grad():
        logits, presence, masks = sam3._grounding(model, pixels, prompt)  # pylint: disable=protected-access
        boxed = model(pixel_values=pixels, input_ids=prompt.input_ids,
                      attention_mask=prompt.mask.long(),
                      input_boxes=torch.zeros(1, 1, 4), input_boxes_labels=torch.tensor([[-10]]))
        text_only = model(pixel_values=pixels, input_ids=prompt.input_ids,
                          attention_mask=prompt.mask.long())
    assert logits.shape == (1, tiny_sam3.NUM_QUERIES) and presence.shape == (1, 1)
    torch.testing.assert_close(logits, boxed.pred_logits, rtol=0, atol=1e-5)
    torch.testing.assert_close(presence, boxed.presence_logits, rtol=0, atol=1e-5)
    torch.testing.assert_close(masks, boxed.pred_masks, rtol=0, atol=1e-5)
    assert (logits - text_only.pred_logits).abs().max() > 1e-4


def test_binary_masks_match_opencv_bilinear(detector):
    del detector
    logits = torch.from_numpy(np.random.default_rng(3).normal(size=(3, 16, 16))
                              .astype(np.float32))
    got = sam3.binary_masks(logits, 50, 70).numpy()
    for mask, logit in zip(got, logits.numpy()):
        resized = cv2.resize(logit, (70, 50), interpolation=cv2.INTER_LINEAR)
        clear = np.abs(resized) > 1e-4
        assert np.array_equal(mask[clear], resized[clear] > 0)


def test_detect_keeps_scores_above_threshold_with_full_size_masks(detector):
    frame = _frame(45, 75, seed=9)
    prompt = sam3.encode_prompt(detector, "red ball")
    found = sam3.detect(detector, frame, prompt, threshold=0.0, return_masks=True)
    assert (found.width, found.height) == (75, 45)
    assert found.scores.shape == (tiny_sam3.NUM_QUERIES,) and found.scores.dtype == np.float32
    assert found.masks.shape == (tiny_sam3.NUM_QUERIES, 45, 75) and found.masks.dtype == bool
    np.testing.assert_array_equal(found.mask_areas, found.masks.sum(axis=(1, 2)))
    with torch.no_grad():
        logits, presence, mask_logits = sam3._grounding(  # pylint: disable=protected-access
            detector.model, sam3.pixel_values(detector, frame), prompt)
    expected = (torch.sigmoid(logits) * torch.sigmoid(presence))[0].numpy()
    np.testing.assert_array_equal(found.scores, expected)
    np.testing.assert_array_equal(found.masks, sam3.binary_masks(mask_logits[0], 45, 75).numpy())
    cut = float(np.median(expected))
    fewer = sam3.detect(detector, frame, prompt, threshold=cut)
    np.testing.assert_array_equal(fewer.scores, expected[expected > cut])
    np.testing.assert_array_equal(fewer.mask_areas, found.mask_areas[expected > cut])
    none = sam3.detect(detector, frame, prompt, threshold=1.0, return_masks=True)
    assert none.scores.shape == (0,) and none.masks.shape == (0, 45, 75)


if __name__ == "__main__":
    raise SystemExit(pytest.main([__file__, "-q"]))
