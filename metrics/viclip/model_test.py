"""metrics.viclip: the loader's strictness, the tokens, the towers, on tiny random models.

Parity with the official code is upstream_parity_test.py (our side recomputed against
stored official outputs); testdata/viclip_parity.json is an older recorded run that no
test reads. The numpy transcription below is a second implementation written from our own
description, a regression check, not evidence of parity."""

import numpy as np
import pytest
import torch

from metrics.viclip import inputs
from metrics.viclip import loader
from metrics.viclip import model as model_lib
from metrics.viclip import numpy_reference
from metrics.viclip import tiny_checkpoint
from metrics.viclip import tokenizer as tokenizer_lib

TINY = tiny_checkpoint.TINY


@pytest.fixture(scope="module")
def tiny_files(tmp_path_factory):
    root = tmp_path_factory.mktemp("viclip")
    weights, bpe = root / "ViClip-InternVid-10M-FLT.pth", root / "bpe_simple_vocab_16e6.txt.gz"
    original = tiny_checkpoint.write_checkpoint(weights, seed=4)
    tiny_checkpoint.write_bpe(bpe)
    return weights, bpe, original


def _video(seed=0, frames=8):
    return torch.randn((1, frames, 3, TINY.image_size, TINY.image_size),
                       generator=torch.Generator().manual_seed(seed))


def test_the_full_size_keys_and_shapes_are_the_official_ones():
    state = model_lib.ViClip().state_dict()
    assert state["vision_encoder.conv1.weight"].shape == (1024, 3, 1, 14, 14)
    assert state["vision_encoder.positional_embedding"].shape == (257, 1024)
    assert state["vision_encoder.temporal_positional_embedding"].shape == (1, 8, 1024)
    assert state["vision_encoder.proj"].shape == (1024, 768)
    assert state["text_encoder.positional_embedding"].shape == (32, 768)
    assert state["text_encoder.text_projection"].shape == (768, 768)
    assert state["text_encoder.token_embedding.weight"].shape == (49408, 768)
    assert "vision_encoder.transformer.resblocks.23.mlp.c_proj.weight" in state
    assert "text_encoder.transformer.resblocks.11.attn.in_proj_weight" in state
    assert "temp" in state and not any(".drop" in k for k in state)


def test_the_official_file_loads_unchanged(tiny_files):
    weights, _, original = tiny_files
    loaded = loader.load_viclip(weights, "cpu", TINY)
    for key, value in original.state_dict().items():
        assert torch.equal(loaded.state_dict()[key], value), key
    assert not loaded.training


@pytest.mark.parametrize("edit, needle", [
    (lambda s: s.pop("vision_encoder.proj"), "Missing key"),
    (lambda s: s.update({"vision_encoder.extra": torch.zeros(1)}), "Unexpected key"),
    (lambda s: s.update({"text_encoder.positional_embedding": torch.zeros(77, 32)}),
     "size mismatch")])
def test_a_wrong_key_is_an_error_naming_the_file(tiny_files, tmp_path, edit, needle):
    state = loader.read_official_state(tiny_files[0])
    edit(state)
    path = tmp_path / "bad.pth"
    torch.save({"model": state}, str(path))
    with pytest.raises(ValueError, match=needle) as e:
        loader.load_viclip(path, "cpu", TINY)
    assert str(path) in str(e.value)


def test_a_bare_state_dict_is_not_the_official_format(tiny_files, tmp_path):
    path = tmp_path / "bare.pth"
    torch.save(loader.read_official_state(tiny_files[0]), str(path))
    with pytest.raises(ValueError, match=f"{path}.*'model'"):
        loader.load_viclip(path, "cpu", TINY)


def test_the_tokenizer_reads_the_official_vocabulary_layout(tiny_files):
    tokenizer = tokenizer_lib.load_tokenizer(str(tiny_files[1]))
    assert len(tokenizer) == TINY.vocab_size
    sot, eot = TINY.vocab_size - 2, TINY.vocab_size - 1
    # ids: 256 byte symbols, 256 with </w>, then one per merge in file order.
    cat, dog, the = 512 + 1, 512 + 3, 512 + 5
    a_w = 256 + ord("a") - 33  # bytes_to_unicode: printable bytes from "!" (33) first
    assert tokenizer_lib.caption_tokens(tokenizer, "The  CAT &amp; a dog") == (
        [sot, the, cat, 256 + ord("&") - 33, a_w, dog, eot] + [0] * 25)


def test_a_long_caption_keeps_eot_last(tiny_files):
    tokenizer = tokenizer_lib.load_tokenizer(str(tiny_files[1]))
    row = tokenizer_lib.caption_tokens(tokenizer, " ".join(["cat"] * 40))
    assert len(row) == 32 and row[-1] == TINY.vocab_size - 1 and 0 not in row


def test_the_embeddings_and_the_cosine(tiny_files):
    model = loader.load_viclip(tiny_files[0], "cpu", TINY)
    video = model.encode_vision(_video())
    tokens = torch.tensor([[TINY.vocab_size - 2, 513, 515, TINY.vocab_size - 1] + [0] * 28])
    text = model.encode_text(tokens)
    assert video.shape == (1, 16) and text.shape == (1, 16)
    cos = float(model_lib.cosine(video, text)[0])
    assert -1.0 <= cos <= 1.0
    want = video.numpy() @ text.numpy().T / (np.linalg.norm(video) * np.linalg.norm(text))
    assert cos == pytest.approx(float(want[0, 0]), abs=1e-6)
    # Pooling is at the eot (the largest id): what follows it does not matter.
    padded = tokens.clone()
    padded[0, 4:] = 7
    assert torch.allclose(model.encode_text(padded), text)


def test_the_temporal_embedding_orders_the_frames(tiny_files):
    model = loader.load_viclip(tiny_files[0], "cpu", TINY)
    video = _video(1)
    reversed_frames = video.flip(1)
    assert not torch.allclose(model.encode_vision(video), model.encode_vision(reversed_frames))
    with torch.no_grad():
        model.vision_encoder.temporal_positional_embedding.zero_()
    # Without it, joint attention over all tokens is blind to the frame order.
    assert torch.allclose(model.encode_vision(video), model.encode_vision(reversed_frames),
                          atol=1e-5)


def test_the_wrong_frame_or_token_count_is_refused(tiny_files):
    model = loader.load_viclip(tiny_files[0], "cpu", TINY)
    with pytest.raises(ValueError, match="8 frames"):
        model.encode_vision(_video(frames=4))
    with pytest.raises(ValueError, match="32 tokens"):
        model.encode_text(torch.zeros(1, 77, dtype=torch.long))


def test_frames_through_the_real_path(tiny_files):
    frames = np.random.default_rng(0).integers(0, 256, (13, 40, 60, 3), dtype=np.uint8)
    picked = frames[inputs.middle_frame_indices(len(frames))]
    pixels = inputs.pixel_values(picked)
    assert pixels.shape == (8, 3, 224, 224)


def test_the_towers_equal_an_independent_numpy_transcription(tiny_files):
    model = loader.load_viclip(tiny_files[0], "cpu", TINY)
    state = {k: v.double().numpy() for k, v in model.state_dict().items()}
    towers = {p: {k[len(p):]: v for k, v in state.items() if k.startswith(p)}
              for p in ("vision_encoder.", "text_encoder.")}
    video = _video(2)
    want = numpy_reference.vision(video[0].double().numpy(), towers["vision_encoder."],
                                  TINY.vision_layers, TINY.vision_heads)
    got = model.encode_vision(video)[0].numpy()
    assert np.abs(got - want).max() < 1e-5 * max(1.0, np.abs(want).max())
    tokens = np.array([TINY.vocab_size - 2, 513, 300, 515, 40, TINY.vocab_size - 1] + [0] * 26)
    want = numpy_reference.text(tokens, towers["text_encoder."], TINY.text_layers,
                                TINY.text_heads)
    got = model.encode_text(torch.from_numpy(tokens[None]))[0].numpy()
    assert np.abs(got - want).max() < 1e-5 * max(1.0, np.abs(want).max())
