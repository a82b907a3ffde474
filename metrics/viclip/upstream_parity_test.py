"""Our ViCLIP against stored outputs of the official ViCLIP code (testdata/viclip_upstream.json).

The official side ran in a scratch folder outside the repository (the JSON's `how_produced`
says how): Miradata 7ad0579's third_party/ViCLIP (the copy MiraBench runs; the same
modules as InternVideo's Data/InternVid/viclip), its own `ViCLIP(tokenizer, pretrain=file)`
loading the file strictly, with the official vision and text classes at SMALL sizes (a
full-size forward is about 1.6 TFLOP, too slow for CI): patch 14 at 224 px, 8 frames, so
the official 16 x 16 grid and the 2049-token joint space-time sequence; 2 layers of width
128 per tower; the real 49408-id vocabulary and 32-token context. Here the same weights
(`tiny_checkpoint.random_model(SMALL, WEIGHT_SEED)`, saved in the official file format and
loaded through `loader.load_viclip`), the same video and the same captions go through OUR
code, and must give the stored official outputs:

* caption tokens (our tokenizer over the official vocabulary file, which open_clip ships
  byte for byte: sha256 checked) equal to the official `tokenize(caption, 32)` rows;
* vision and text embeddings: max |ours - official| <= 1e-5 x max |official| (float32,
  tools/calibration/README.md);
* the cosines of the official `get_vid_features` / `get_text_features` (normalised
  embeddings, then a dot product): max |diff| <= 1e-6.

Not covered: the full-size depth and width (the record in testdata/viclip_parity.json is
history, not parity), real weights, ftfy's repair of mis-decoded text (captions are ASCII).
"""

import hashlib
import json
import pathlib

import numpy as np
import pytest
import torch

from metrics.viclip import loader
from metrics.viclip import model as model_lib
from metrics.viclip import tiny_checkpoint
from metrics.viclip import tokenizer as tokenizer_lib
from metrics.viclip import upstream_inputs

UPSTREAM = pathlib.Path(__file__).parent / "testdata" / "viclip_upstream.json"
SMALL = upstream_inputs.SMALL
WEIGHT_SEED = upstream_inputs.WEIGHT_SEED
BPE_SHA256 = upstream_inputs.BPE_SHA256
RELATIVE_TOLERANCE = 1e-5  # of max |official|
COSINE_TOLERANCE = 1e-6
seeded_video = upstream_inputs.seeded_video
state_digest = upstream_inputs.state_digest
official_bpe_path = upstream_inputs.official_bpe_path


def _load():
    return json.loads(UPSTREAM.read_text(encoding="utf-8"))


def _array(entry):
    """A stored float32 array (written as shortest float32 reprs), in float64."""
    values = np.asarray(entry["values"], dtype=np.float32).astype(np.float64)
    return values.reshape(entry["shape"])


def _relative(got, want):
    return float(np.abs(np.asarray(got, np.float64) - want).max() / np.abs(want).max())


@pytest.fixture(scope="module")
def model(tmp_path_factory):
    path = tmp_path_factory.mktemp("viclip") / "ViClip-InternVid-10M-FLT.pth"
    tiny_checkpoint.write_checkpoint(path, SMALL, WEIGHT_SEED)
    torch.set_num_threads(1)
    return loader.load_viclip(path, "cpu", SMALL)


@pytest.fixture(scope="module")
def tokenizer():
    return tokenizer_lib.load_tokenizer(str(official_bpe_path()))


@pytest.fixture(scope="module")
def vision(model):
    return model.encode_vision(seeded_video()).double().numpy()


@pytest.fixture(scope="module")
def caption_tokens(tokenizer):
    return [tokenizer_lib.caption_tokens(tokenizer, c) for c in _load()["captions"]]


def test_the_inputs_are_the_recorded_ones(model):
    inputs = _load()["inputs"]
    assert state_digest(model.state_dict()) == inputs["weights_sha256"]
    video = seeded_video().numpy()
    assert hashlib.sha256(video.tobytes()).hexdigest() == inputs["video_sha256"]
    assert hashlib.sha256(official_bpe_path().read_bytes()).hexdigest() == BPE_SHA256
    assert inputs["bpe_sha256"] == BPE_SHA256
    assert _load()["official_code"]["commit"] == "7ad05795dd74acdc6b364222a9fa885a94b0c1a2"


def test_the_caption_tokens_are_the_official_ones(caption_tokens):
    assert caption_tokens == _load()["caption_tokens"]


def test_the_vision_embeddings_equal_the_official_ones(vision):
    want = _array(_load()["vision_embedding"])
    assert vision.shape == want.shape == (2, SMALL.embed_dim)
    diff = _relative(vision, want)
    assert diff <= RELATIVE_TOLERANCE, f"relative difference {diff:.3g}"


def test_the_caption_embeddings_equal_the_official_ones(model, caption_tokens):
    got = model.encode_text(torch.tensor(caption_tokens)).double().numpy()
    diff = _relative(got, _array(_load()["text_embedding_captions"]))
    assert diff <= RELATIVE_TOLERANCE, f"relative difference {diff:.3g}"


def test_fixed_token_rows_equal_the_official_text_tower(model):
    record = _load()
    got = model.encode_text(torch.tensor(record["fixed_tokens"])).double().numpy()
    diff = _relative(got, _array(record["text_embedding_fixed_tokens"]))
    assert diff <= RELATIVE_TOLERANCE, f"relative difference {diff:.3g}"


def test_the_cosines_equal_the_official_ones(model, vision, caption_tokens):
    text = model.encode_text(torch.tensor(caption_tokens))
    video = torch.from_numpy(vision).float()
    got = np.array([[float(model_lib.cosine(v[None], t[None])[0]) for t in text]
                    for v in video])
    want = _array(_load()["cosine"])
    assert got.shape == want.shape == (2, 3)
    diff = float(np.abs(got - want).max())
    assert diff <= COSINE_TOLERANCE, f"max |cosine difference| {diff:.3g}"
