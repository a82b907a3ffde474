"""Tests for metrics.clip.clipiqa: CLIP-IQA+ per frame.

A tiny random CLIP ResNet is saved as OpenAI's RN50.pt (TorchScript, float16 weights)
and a random learned context as pyiqa's prompts file, found through
metrics.checkpoints.resolver and loaded by load_clipiqa. Expected values come from
reference_clip: the ResNet as functional calls on the saved tensors, the attention
pool, the text transformer and the pair softmax in float64 numpy.
"""

import dataclasses

import cv2
import numpy as np
import pytest
import torch
from PIL import Image
from torchvision.transforms import functional as tvf

from metrics.checkpoints import resolver
from metrics.clip import clipiqa
from metrics.clip import reference_clip
from metrics.clip import reference_transform
from metrics.clip import tiny_clipiqa
from metrics.testing.isolation import no_real_caches  # noqa: F401  (autouse fixture)

_RN50_UNPINNED = dataclasses.replace(clipiqa.CLIP_RN50, sha256="")  # random weights
_PROMPTS = dataclasses.replace(clipiqa.CLIPIQA_PLUS_PROMPTS, hf_repo="example/not-on-the-hub")
_EOT_INDEX = 20


@pytest.fixture(scope="module")
def checkpoints(tmp_path_factory):
    """(checkpoint_dir, RN50 tensors as saved, learned context) in --checkpoint_dir layout."""
    root = tmp_path_factory.mktemp("ckpt")
    state = tiny_clipiqa.write_rn50(root / clipiqa.CLIP_RN50.name / "RN50.pt", seed=7)
    ctx = tiny_clipiqa.write_prompts(
        root / clipiqa.CLIPIQA_PLUS_PROMPTS.name / clipiqa.CLIPIQA_PLUS_PROMPTS.filename, seed=8)
    return root, state, ctx


@pytest.fixture(scope="module")
def loaded(checkpoints):
    root, _, _ = checkpoints
    rn50 = resolver.resolve(_RN50_UNPINNED, checkpoint_dir=str(root), offline=True)
    prompts = resolver.resolve(_PROMPTS, checkpoint_dir=str(root), offline=True)
    assert prompts.path.name == "CLIP-IQA+_learned_prompts-603f3273.pth"
    return clipiqa.load_clipiqa(rn50.path, prompts.path, "cpu")


def _reference_prompts(token_embedding: np.ndarray, ctx: np.ndarray, class_token: int):
    """(77, width): prompt position -> source, written out position by position."""
    rows = [token_embedding[clipiqa.SOT]]
    rows += list(ctx[:8])
    rows += [token_embedding[class_token], token_embedding[1125], token_embedding[852]]
    rows += list(ctx[8:])
    rows += [token_embedding[clipiqa.EOT]] + [token_embedding[0]] * (77 - 21)
    return np.stack(rows)


def _reference_text_features(state, ctx):
    table = state["token_embedding.weight"].numpy()
    prompts = np.stack([_reference_prompts(table, ctx.numpy(), 886),
                        _reference_prompts(table, ctx.numpy(), 2103)])
    return reference_clip.text_features(state, prompts, [_EOT_INDEX, _EOT_INDEX], heads=1)


def _reference_scores(state, ctx, frames):
    pixels = torch.from_numpy(np.stack([reference_clip.pixels(f) for f in frames]))
    feature_map = reference_clip.resnet_map(state, pixels, tiny_clipiqa.TINY_ARCH["vision_layers"])
    image = reference_clip.attention_pool(state, feature_map.double().numpy(), heads=4)
    return reference_clip.good_probability(image, _reference_text_features(state, ctx),
                                           float(state["logit_scale"]))


def _clip(num_frames, height=60, width=84, seed=0):
    return np.stack([reference_transform.smooth_frame(height, width, seed + i)
                     for i in range(num_frames)])


def test_specs_name_the_official_files():
    assert clipiqa.CLIP_RN50.url.split("/")[-2] == clipiqa.CLIP_RN50.sha256  # OpenAI's scheme
    assert clipiqa.CLIP_RN50.url.endswith("/RN50.pt") and clipiqa.CLIP_RN50.filename == "RN50.pt"
    assert clipiqa.CLIPIQA_PLUS_PROMPTS.hf_repo == "chaofengc/IQA-PyTorch-Weights"
    assert clipiqa.CLIPIQA_PLUS_PROMPTS.filename == "CLIP-IQA+_learned_prompts-603f3273.pth"


def test_the_real_pin_refuses_random_weights(checkpoints):
    root, _, _ = checkpoints
    with pytest.raises(resolver.CheckpointUnavailable, match="expected sha256 afeb0e10"):
        resolver.resolve(clipiqa.CLIP_RN50, checkpoint_dir=str(root), offline=True)


def test_prompt_token_ids():
    ids = clipiqa.prompt_token_ids()
    assert ids.shape == (2, 77) and ids.dtype == torch.int64
    assert (ids[:, 0] == 49406).all() and (ids[:, 1:17] == 343).all()
    assert ids[:, 17].tolist() == [886, 2103] and (ids[:, 18:20] == torch.tensor([1125, 852])).all()
    assert (ids[:, 20] == 49407).all() and (ids[:, 21:] == 0).all()
    assert ids.argmax(dim=-1).tolist() == [_EOT_INDEX, _EOT_INDEX]


@pytest.mark.parametrize("per_prompt", [False, True])
def test_prompt_embeddings_splice_the_context_around_the_class_words(per_prompt):
    table = torch.randn(49408, 6, generator=torch.Generator().manual_seed(0))
    ctx = torch.randn(*((2,) if per_prompt else ()), 16, 6)
    prompts = clipiqa.prompt_embeddings(table, ctx).numpy()
    for row, word in enumerate((886, 2103)):
        row_ctx = ctx[row] if per_prompt else ctx
        np.testing.assert_array_equal(prompts[row], _reference_prompts(table.numpy(),
                                                                       row_ctx.numpy(), word))


def test_text_features_match_numpy(checkpoints, loaded):
    _, state, ctx = checkpoints
    expected = _reference_text_features(state, ctx)
    np.testing.assert_allclose(loaded.text_features.double().numpy(), expected, rtol=1e-4,
                               atol=1e-5)
    assert np.abs(expected[0] - expected[1]).max() > 1e-2


def test_good_probability_matches_numpy():
    rng = np.random.default_rng(0)
    image, text = rng.normal(0, 1, (5, 32)), rng.normal(0, 1, (2, 32))
    scale = torch.tensor(np.log(100.0), dtype=torch.float32)
    ours = clipiqa.good_probability(torch.tensor(image, dtype=torch.float32),
                                    torch.tensor(text, dtype=torch.float32), scale)
    expected = reference_clip.good_probability(image, text, float(scale))
    np.testing.assert_allclose(ours.numpy(), expected, rtol=1e-5, atol=1e-6)
    assert expected.min() < 0.3 and expected.max() > 0.7
    flipped = clipiqa.good_probability(torch.tensor(image, dtype=torch.float32),
                                       torch.tensor(text[::-1].copy(), dtype=torch.float32), scale)
    np.testing.assert_allclose(flipped.numpy(), 1 - expected, atol=1e-6)


def test_pixels_are_to_tensor_then_openai_normalisation():
    frames = _clip(2, 37, 53)
    pixels = clipiqa.frames_to_pixels(frames)
    for i, frame in enumerate(frames):
        official = tvf.to_tensor(Image.fromarray(cv2.cvtColor(frame, cv2.COLOR_BGR2RGB)))
        assert torch.equal(pixels[i], official)
        np.testing.assert_array_equal(clipiqa.normalize(pixels[i:i + 1])[0].numpy(),
                                      reference_clip.pixels(frame))


def test_frames_must_be_uint8_of_one_size():
    with pytest.raises(ValueError, match="differ in size"):
        clipiqa.frames_to_pixels([np.zeros((8, 8, 3), np.uint8), np.zeros((8, 9, 3), np.uint8)])
    with pytest.raises(ValueError, match="uint8 BGR"):
        clipiqa.frames_to_pixels([np.zeros((8, 8, 3), np.float32)])


def test_strided_scores_match_the_reference(checkpoints, loaded):
    _, state, ctx = checkpoints
    clip = _clip(11)
    sampled = clipiqa.strided_frame_scores(clip, 4, loaded)
    assert sampled.indices == [0, 4, 8]
    expected = _reference_scores(state, ctx, clip[[0, 4, 8]])
    np.testing.assert_allclose(sampled.scores, expected, rtol=1e-5, atol=1e-5)
    assert len(set(np.round(expected, 3))) == 3  # the frames really differ


@pytest.mark.parametrize("num_frames,step,indices", [(1, 4, [0]), (5, 4, [0, 4]), (9, 10, [0])])
def test_sampled_indices(loaded, num_frames, step, indices):
    sampled = clipiqa.strided_frame_scores(_clip(num_frames, 32, 32), step, loaded)
    assert sampled.indices == indices and len(sampled.scores) == len(indices)


def test_batching_equals_per_frame_and_empty_clip(loaded):
    clip = _clip(5, 40, 48, seed=30)
    batched = clipiqa.frame_scores(list(clip), loaded, batch_size=3)
    single = clipiqa.frame_scores(list(clip), loaded, batch_size=1)
    np.testing.assert_allclose(batched, single, rtol=1e-5, atol=1e-6)
    empty = clipiqa.strided_frame_scores(np.zeros((0, 8, 8, 3), np.uint8), 4, loaded)
    assert (empty.indices, empty.scores) == ([], [])


def test_learned_context_is_checked(tmp_path, checkpoints):
    root, _, _ = checkpoints
    rn50 = root / clipiqa.CLIP_RN50.name / "RN50.pt"
    torch.save(torch.zeros(15, 64), tmp_path / "short.pth")
    with pytest.raises(ValueError, match=r"expected \(16, width\) .* shape \(15, 64\)"):
        clipiqa.load_learned_context(tmp_path / "short.pth")
    torch.save({"ctx": torch.zeros(16, 64)}, tmp_path / "dict.pth")
    with pytest.raises(ValueError, match="expected a tensor of learned prompts, found dict"):
        clipiqa.load_learned_context(tmp_path / "dict.pth")
    (tmp_path / "garbage.pth").write_bytes(b"nope")
    with pytest.raises(ValueError, match="not a readable torch file"):
        clipiqa.load_learned_context(tmp_path / "garbage.pth")
    torch.save(torch.zeros(16, 512), tmp_path / "wide.pth")
    with pytest.raises(ValueError, match="512-d, the CLIP text tower is 64-d"):
        clipiqa.load_clipiqa(rn50, tmp_path / "wide.pth", "cpu")


if __name__ == "__main__":
    raise SystemExit(pytest.main([__file__, "-q"]))
