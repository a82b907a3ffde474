"""The slow-LlamaTokenizer behaviour on a sentencepiece model trained here."""

import json

import pytest

from metrics.qalign import model as model_lib
from metrics.qalign import scorer
from metrics.qalign import tiny_snapshot
from metrics.qalign import tokenizer


@pytest.fixture(scope="module", name="sp_bytes")
def _sp_bytes():
    return tiny_snapshot.train_tokenizer()


def test_prompt_ids_keep_one_bos_and_one_image_token(sp_bytes):
    tok = tokenizer.LlamaSentencePiece(sp_bytes)
    ids = tokenizer.prompt_ids(scorer.PROMPT, tok, model_lib.IMAGE_TOKEN)
    before, after = scorer.PROMPT.split(tokenizer.IMAGE_PLACEHOLDER)
    assert ids == tok.encode(before) + [model_lib.IMAGE_TOKEN] + tok.encode(after)[1:]
    assert ids[0] == tok.bos_id == 1 and ids.count(model_lib.IMAGE_TOKEN) == 1
    # the chunk after the image starts with "\n": the dummy prefix "▁" then the byte
    pieces = tok.sp.id_to_piece(ids[ids.index(model_lib.IMAGE_TOKEN) + 1:][:2])
    assert pieces == ["\u2581", "<0x0A>"]


def test_level_ids_are_the_second_id_of_each_word(sp_bytes):
    tok = tokenizer.LlamaSentencePiece(sp_bytes)
    ids = tokenizer.level_ids(scorer.LEVELS, tok)
    assert [tok.sp.id_to_piece(i) for i in ids] == ["\u2581" + w for w in scorer.LEVELS]


# transformers 4.36.1's slow LlamaTokenizer(tokenizer.model, legacy=...) on the model
# train_tokenizer() writes (sentencepiece 0.2.3), the same ids for legacy True and False.
OFFICIAL_IDS = {
    "USER: How would you rate the quality of this video?\n":
        [1, 339, 420, 333, 351, 338, 345, 261, 281, 277, 346, 280, 439, 13],
    "\nASSISTANT: The quality of the video is":
        [1, 401, 13, 311, 347, 420, 334, 281, 277, 261, 280, 328],
    " good": [1, 401, 341],
    "  two  spaces": [1, 401, 401, 260, 396, 401, 401, 417, 426, 406, 291, 417],
    "excellent": [1, 354],
    "a\u2581b": [1, 401, 406, 273],
    "\u00fcn\u00ef 9": [1, 401, 198, 191, 425, 198, 178, 401, 438],
}


@pytest.mark.parametrize("legacy", [True, False])
def test_ids_equal_the_official_slow_tokenizer(sp_bytes, legacy):
    tok = tokenizer.LlamaSentencePiece(sp_bytes, legacy=legacy)
    assert {text: tok.encode(text) for text in OFFICIAL_IDS} == OFFICIAL_IDS
    with pytest.raises(ValueError, match="special token"):
        tok.encode("<s>x")


def test_load_reads_the_snapshot_settings(tmp_path, sp_bytes):
    (tmp_path / "tokenizer.model").write_bytes(sp_bytes)
    (tmp_path / "tokenizer_config.json").write_text(json.dumps(
        {"add_bos_token": False, "legacy": False, "unk_token": {"content": "<unk>"}}))
    tok = tokenizer.load(tmp_path)
    assert not tok.add_bos and not tok.legacy and tok.encode("good")[0] != 1
    (tmp_path / "tokenizer.model").unlink()
    with pytest.raises(FileNotFoundError, match="tokenizer.model"):
        tokenizer.load(tmp_path)
