"""Tag2Text on the tiny official-format checkpoint: the loader's rules, the tag rule, the
batch quirk, the tokenizer, beam search's 4.33.2 rules on hand-worked cases, and
generate's settings. Full-size parity with the official code:
//tools/calibration:vbench_tag2text_parity_test."""

import hashlib
import math

import numpy as np
import pytest
import torch

from metrics.tag2text import beam_search
from metrics.tag2text import captioner
from metrics.tag2text import loader
from metrics.tag2text import model as model_lib
from metrics.tag2text import pins
from metrics.tag2text import swin
from metrics.tag2text import tiny_tag2text as tiny
from metrics.tag2text import tokenizer as tokenizer_lib

KNOBS = tiny.Knobs(tag_bias=-1.5, forced_tags=(127, 5), decoder_std=0.5, eos_bias=3.0)


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    root = tmp_path_factory.mktemp("tag2text")
    return (tiny.write_checkpoint(root / pins.TAG2TEXT_SWIN_14M.filename, knobs=KNOBS),
            tiny.write_vocab(root / "vocab.txt"))


@pytest.fixture(scope="module")
def loaded(files):
    return loader.load(*files, torch.device("cpu"), arch=tiny.TINY)


def test_generate_settings_are_upstreams():
    s = model_lib.Settings()
    assert (s.threshold, tuple(s.deleted_tags)) == (0.7, (127, 3351, 3265, 3338, 3355, 3359))
    assert (s.num_beams, s.max_length, s.min_length, s.repetition_penalty) == (3, 30, 10, 1.0)
    assert (s.prompt, s.tag_max_length) == ("a picture of ", 40)
    arch = model_lib.Architecture()
    assert (arch.image_size, arch.window_size, arch.vision_width, arch.num_classes) == (
        384, 12, 1024, 3429)
    assert len(loader.tag_names()) == 3429 and loader.tag_names()[127] == "quarter"
    digest = hashlib.sha256(loader.TAG_LIST.read_bytes()).hexdigest()
    assert digest == loader.TAG_LIST_SHA256  # tag_class.py's list, unchanged


def test_loader_reads_the_official_format(files, loaded):
    state = torch.load(files[0])["model"]
    assert "visual_encoder.layers.0.blocks.1.attn_mask" in state  # dropped, not ignored
    assert loaded.ignored == ["tag_encoder.embeddings.position_ids",
                              "text_decoder.bert.embeddings.position_ids"]
    ours = loaded.model.state_dict()
    embeddings = "text_decoder.bert.embeddings.word_embeddings.weight"
    for key, tensor in ours.items():
        source = "text_decoder.cls.predictions.decoder.weight" if key == embeddings else key
        assert torch.equal(tensor, state[source]), key
    # the file's two copies differ (tiny_tag2text draws the LM decoder on its own): the
    # LM decoder's is what upstream's load leaves in the tied tensor
    assert not torch.equal(state[embeddings], ours[embeddings])
    decoder = loaded.model.text_decoder
    assert decoder.cls.predictions.decoder.weight is decoder.bert.embeddings.word_embeddings.weight
    # tied: one tensor under both names, with each side's own head count
    layer = loaded.model.tag_encoder.encoder.layer[1]
    assert layer.crossattention.self.query is \
        loaded.model.vision_multi.encoder.layer[1].crossattention.self.query
    assert layer.crossattention.self.heads == 2 and \
        loaded.model.vision_multi.encoder.layer[1].crossattention.self.heads == 4


def test_loader_keeps_what_upstreams_load_order_keeps(files):
    state = dict(torch.load(files[0])["model"])
    key = "tag_encoder.encoder.layer.0.intermediate.dense.weight"
    twin = "vision_multi.encoder.layer.0.intermediate.dense.weight"
    state[key] = state[key] + 1.0  # the file's copies disagree: vision_multi loads last
    state["text_decoder.cls.predictions.decoder.bias"] = state[
        "text_decoder.cls.predictions.bias"] + 1.0  # decoder.bias (a child) loads last
    model = model_lib.Tag2Text(tiny.TINY)
    loader.load_state(model, state)
    assert torch.equal(model.tag_encoder.encoder.layer[0].intermediate.dense.weight,
                       state[twin])
    assert torch.equal(model.text_decoder.cls.predictions.bias,
                       state["text_decoder.cls.predictions.decoder.bias"])
    del state[key]  # only the twin: still complete
    loader.load_state(model_lib.Tag2Text(tiny.TINY), state)


def test_loader_refuses_missing_weights_and_other_window_tables(files):
    state = dict(torch.load(files[0])["model"])
    with pytest.raises(ValueError, match="lacks 1 weights"):
        loader.load_state(model_lib.Tag2Text(tiny.TINY),
                          {k: v for k, v in state.items() if k != "label_embed.weight"})
    key = "visual_encoder.layers.0.blocks.0.attn.relative_position_bias_table"
    state[key] = torch.zeros(5 * 5, 1)
    with pytest.raises(ValueError, match="not resampled"):
        loader.load_state(model_lib.Tag2Text(tiny.TINY), state)


def test_swin_tables_against_brute_force():
    w = 3
    index = swin.relative_position_index(w)
    coords = [(r, c) for r in range(w) for c in range(w)]
    for i, (ri, ci) in enumerate(coords):
        for j, (rj, cj) in enumerate(coords):
            assert index[i, j] == (ri - rj + w - 1) * (2 * w - 1) + (ci - cj + w - 1)
    mask = swin.shift_mask(8, 8, 4, 2)  # 4 windows of 16 tokens
    def region(v):  # bands [0, 4), [4, 6), [6, 8)
        return 0 if v < 4 else (1 if v < 6 else 2)
    for win in range(4):
        r0, c0 = 4 * (win // 2), 4 * (win % 2)
        cells = [(r0 + k // 4, c0 + k % 4) for k in range(16)]
        for i, a in enumerate(cells):
            for j, b in enumerate(cells):
                same = (region(a[0]), region(a[1])) == (region(b[0]), region(b[1]))
                assert mask[win, i, j] == (0.0 if same else -100.0)


def test_tag_threshold_is_strict_and_deleted_tags_are_off():
    settings = model_lib.Settings()
    at = math.log(0.7 / 0.3)  # sigmoid(at) == 0.7 up to float rounding
    logits = torch.full((1, 3429), -5.0)
    logits[0, [0, 1, 127, 3359]] = torch.tensor([at + 1e-3, at - 1e-3, 9.0, 9.0])
    on = model_lib.tags_on(logits, settings)
    assert np.flatnonzero(on[0]).tolist() == [0]


def test_decoder_memory_is_upstreams_batch_quirk():
    beams, images = 3, 4
    tag_states = torch.arange(images).repeat_interleave(beams).float()[:, None, None]
    memory = captioner.decoder_memory(tag_states, beams)
    # beam rows of caption i see image i // 3: 0,0,0,1 for four images
    assert memory.flatten().tolist() == [0.0] * 9 + [1.0] * 3


def test_tokenizer(files):
    tok = tokenizer_lib.Tokenizer(files[1])
    assert (tok.bos_token_id, tok.enc_token_id, len(tok)) == (len(tiny.VOCAB),
                                                              len(tiny.VOCAB) + 1,
                                                              len(tiny.VOCAB) + 2)
    assert tok.prompt_ids("a picture of ").tolist() == [[tok.bos_token_id, 104, 105, 106]]
    ids, mask = tok.encode_padded(["barn | dog", ""], 6)
    assert ids.tolist() == [[101, 131, 100, 109, 102, 0], [101, 102, 0, 0, 0, 0]]
    assert mask.tolist() == [[1, 1, 1, 1, 1, 0], [1, 1, 0, 0, 0, 0]]
    vocab = {t: i for i, t in enumerate(tiny.VOCAB)}
    words = ["a", "picture", "of", "man", "'", "s", "dog", "##s", ",", "[UNK]", "[unused3]",
             "."]
    ids = [tok.bos_token_id] + [vocab[w] for w in words] + [102, 0, tok.enc_token_id]
    assert tok.decode(ids) == "a picture of man's dogs, [unused3]."


def _table_step(table):
    """A decoder whose next-token logits depend only on the last token."""
    def step(input_ids):
        return table[input_ids[:, -1]][:, None, :]
    return step


def test_beam_search_min_length_counts_the_prompt_and_scores_by_total_length():
    # vocab: 0 pad, 1 eos, 2 'x', 3 'y'; eos is the likeliest token after x and after y.
    table = torch.log(torch.tensor([[1e-6, 0.7, 0.2, 0.1], [1e-6, 0.7, 0.2, 0.1],
                                    [1e-6, 0.6, 0.25, 0.15], [1e-6, 0.7, 0.2, 0.1]]))
    settings = beam_search.Settings(num_beams=2, max_length=8, min_length=4,
                                    repetition_penalty=1.0, eos_token_id=1, pad_token_id=0)
    prompt = torch.tensor([[3, 3]] * 2)  # one item, two beams, 2 prompt tokens
    out, scores = beam_search.search(_table_step(table), prompt, settings)
    # eos is blocked until the sequence (prompt included) holds 4 tokens. Then both beams
    # close: [3,3,2,2] at log(.2 * .25 * .6) / 4 = -0.877 (the best) and [3,3,2,3] at
    # -0.966; later hypotheses score below -0.966 and never enter; the winner gets its eos
    # back. Were min_length counted on generated tokens, or scores divided by generated
    # length, another sequence would win.
    assert out.tolist() == [[3, 3, 2, 2, 1]]
    assert scores == pytest.approx([math.log(0.2 * 0.25 * 0.6) / 4])


def test_beam_search_keeps_open_beams_at_max_length():
    table = torch.log(torch.tensor([[1e-6, 1e-6, 0.6, 0.4]] * 3 + [[1e-6, 1e-6, 0.55, 0.45]]))
    settings = beam_search.Settings(num_beams=2, max_length=5, min_length=0,
                                    repetition_penalty=1.0, eos_token_id=1, pad_token_id=0)
    out, _ = beam_search.search(_table_step(table), torch.tensor([[3]] * 2), settings)
    assert out.tolist() == [[3, 2, 2, 2, 2]]  # no eos appended at max_length


def test_caption_end_to_end_on_the_tiny_model(loaded):
    images = torch.randn(4, 3, 384, 384, generator=torch.Generator().manual_seed(1))
    out = captioner.caption(loaded.model, loaded.tokenizer, loaded.tag_names, images)
    assert len(out.captions) == 4 and out.tag_logits.shape == (4, 3429)
    assert all(t.startswith(loaded.tag_names[5]) for t in out.tags)  # forced on
    assert all("quarter" not in t.split(" | ") for t in out.tags)  # forced on, deleted
    ids = out.token_ids.tolist()
    prompt = loaded.tokenizer.prompt_ids("a picture of ").tolist()[0]
    for row, text in zip(ids, out.captions):
        assert row[:4] == prompt and len(row) <= 30
        body = [i for i in row if i not in (0, 102)]
        assert len(body) >= 10 or len(row) == 30
        assert text == loaded.tokenizer.decode(row)[len("a picture of "):]
