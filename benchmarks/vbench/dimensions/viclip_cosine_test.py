"""temporal_style / overall_consistency on a tiny random ViCLIP (official file format, read
by load_viclip) and a tiny BPE file, against the official per-video arithmetic around the
same towers: 8 "middle" frames, rounded uint8 bicubic resize, 32-token text with EOT
forced last, raw cosine."""

import numpy as np
import pytest
import torch

from benchmarks.vbench.dimensions import fixtures
from benchmarks.vbench.dimensions import viclip_cosine
from metrics.viclip import inputs
from metrics.viclip import loader
from metrics.viclip import similarity
from metrics.viclip import tiny_checkpoint
from metrics.viclip import tokenizer as tokenizer_lib

# get_frame_indices(8, vlen, "middle"), worked by hand: vlen 20: edges 0,2,5,7,10,12,15,17,20;
# vlen 5: one interval per frame, then the last index repeated.
MIDDLE = {20: [0, 3, 5, 8, 10, 13, 15, 18], 5: [0, 1, 2, 3, 4, 4, 4, 4]}
LONG_PROMPT = " ".join(["the cat and the dog"] * 8)  # 40 words: > 32 tokens


@pytest.fixture(scope="module")
def scorer(tmp_path_factory):
    root = tmp_path_factory.mktemp("viclip")
    tiny_checkpoint.write_checkpoint(root / "ViClip-InternVid-10M-FLT.pth", seed=6)
    fixtures.write_bpe(root / "bpe_simple_vocab_16e6.txt.gz")
    model = loader.load_viclip(root / "ViClip-InternVid-10M-FLT.pth", "cpu", tiny_checkpoint.TINY)
    tok = tokenizer_lib.load_tokenizer(str(root / "bpe_simple_vocab_16e6.txt.gz"))
    return similarity.ViClipScorer(model, tok)


def reference_pixels(rgb: np.ndarray) -> torch.Tensor:
    """clip_transform(224) of a uint8 tensor: bicubic on floats, rounded and clamped back
    to uint8, centre crop, / 255, CLIP normalisation."""
    x = fixtures.resized(rgb, 224, "bicubic").round().clamp(0, 255)
    return fixtures.normalised(fixtures.center_crop(x, 224), fixtures.CLIP_MEAN,
                               fixtures.CLIP_STD)


def reference_tokens(tok, text: str, force_eot: bool = True):
    sot, eot = (tok.convert_tokens_to_ids(t) for t in (tokenizer_lib.SOT, tokenizer_lib.EOT))
    ids = [sot] + tokenizer_lib.bpe_ids(tok, text) + [eot]
    if len(ids) > 32:
        ids = ids[:32]
        if force_eot:
            ids[-1] = eot
    return torch.tensor([ids + [0] * (32 - len(ids))])


def reference(rgb, text, scorer, indices, force_eot=True) -> float:
    model = scorer.model
    v = model.encode_vision(reference_pixels(rgb[indices])[None]).double().numpy()[0]
    t = model.encode_text(reference_tokens(scorer.tokenizer, text, force_eot)).double().numpy()[0]
    return float(v @ t / np.linalg.norm(v) / np.linalg.norm(t))


@pytest.mark.parametrize("vlen", [20, 5])
def test_matches_the_official_arithmetic(scorer, vlen):
    rgb = fixtures.frames(vlen, seed=vlen)
    video = fixtures.video(rgb, prompt="a cat and a dog under the sky")
    value = viclip_cosine.compute(video, scorer)
    assert value.video_results == pytest.approx(
        reference(rgb, video.prompt, scorer, MIDDLE[vlen]), abs=1e-6)
    assert value.extras == {} and value.pooled is None
    # Other frames give another value: the index choice is checked.
    other = list(range(8)) if vlen > 8 else [0] * 8
    assert abs(value.video_results - reference(rgb, video.prompt, scorer, other)) > 1e-5


def test_uint8_resize_rounds_and_clamps(scorer):
    rgb = fixtures.frames(8, seed=3)
    ours = inputs.pixel_values(rgb, antialias=False)
    np.testing.assert_allclose(ours.numpy(), reference_pixels(rgb).numpy(), atol=2e-6)
    unrounded = fixtures.clip_reference_pixels(rgb).numpy()
    assert np.abs(ours.numpy() - unrounded).max() > 0.05


def test_long_prompt_is_cut_at_32_tokens_with_eot_last(scorer):
    rgb = fixtures.frames(20, seed=9)
    value = viclip_cosine.compute(fixtures.video(rgb, prompt=LONG_PROMPT), scorer).video_results
    assert value == pytest.approx(reference(rgb, LONG_PROMPT, scorer, MIDDLE[20]), abs=1e-6)
    plain_cut = reference(rgb, LONG_PROMPT, scorer, MIDDLE[20], force_eot=False)
    assert abs(value - plain_cut) > 1e-5


def test_refuses_what_upstream_would_not_compute(scorer):
    with pytest.raises(ValueError, match="prompt"):
        viclip_cosine.compute(fixtures.video(fixtures.frames(3)), scorer)
    antialiased = similarity.ViClipScorer(scorer.model, scorer.tokenizer, antialias=True)
    with pytest.raises(ValueError, match="antialias"):
        viclip_cosine.compute(fixtures.video(fixtures.frames(3), prompt="a cat"), antialiased)
