"""metrics.viclip.similarity on a tiny random ViCLIP and a tiny BPE file: the chosen frames
and the caption reach the towers, and the score is the numpy cosine of their outputs."""

import numpy as np
import pytest
import torch

from metrics.viclip import inputs
from metrics.viclip import similarity
from metrics.viclip import tiny_checkpoint
from metrics.viclip import tokenizer as tokenizer_lib


@pytest.fixture(scope="module")
def scorer(tmp_path_factory):
    root = tmp_path_factory.mktemp("viclip")
    tiny_checkpoint.write_bpe(root / "bpe_simple_vocab_16e6.txt.gz")
    tokenizer = tokenizer_lib.load_tokenizer(str(root / "bpe_simple_vocab_16e6.txt.gz"))
    return similarity.ViClipScorer(tiny_checkpoint.random_model(seed=3), tokenizer)


def _frames(seed):
    return np.random.default_rng(seed).integers(0, 256, (8, 40, 52, 3), dtype=np.uint8)


def test_the_score_is_the_cosine_of_the_two_towers(scorer):
    frames = _frames(0)
    video = similarity.video_embedding(frames, scorer)
    with torch.no_grad():
        want_video = scorer.model.encode_vision(inputs.pixel_values(frames)[None])
    np.testing.assert_allclose(video.detach().numpy(), want_video.numpy(), atol=1e-6)
    text = similarity.text_embedding("the cat", scorer)
    tokens = tokenizer_lib.caption_tokens(scorer.tokenizer, "the cat", 32)
    with torch.no_grad():
        np.testing.assert_allclose(text.detach().numpy(),
                                   scorer.model.encode_text(torch.tensor([tokens])).numpy(),
                                   atol=1e-6)
    v, t = video.detach().double().numpy()[0], text.detach().double().numpy()[0]
    got = similarity.cosine(video, text)
    assert got == pytest.approx(v @ t / np.linalg.norm(v) / np.linalg.norm(t), abs=1e-6)
    other = similarity.cosine(video, similarity.text_embedding("the dog sky", scorer))
    assert abs(other - got) > 1e-6  # the caption reaches the text tower
    moved = similarity.cosine(similarity.video_embedding(_frames(1), scorer), text)
    assert abs(moved - got) > 1e-6  # the frames reach the vision tower


def test_a_vocabulary_of_another_size_is_an_error(scorer):
    with pytest.raises(ValueError, match="BPE vocabulary"):
        similarity.ViClipScorer(scorer.model, [0] * 10)
