"""appearance_style on a tiny random full CLIP snapshot (read by load_clip_image_text) and a
tiny BPE file, against the official per-frame loop around the same towers: PIL
clip_transform_Image, clip.tokenize with no template, logits_per_text / 100."""

import math

import numpy as np
import pytest
import torch

from benchmarks.vbench.dimensions import appearance_style
from benchmarks.vbench.dimensions import clip_image_text
from benchmarks.vbench.dimensions import fixtures
from metrics.clip import reference_transform
from metrics.clip import vision
from metrics.viclip import tokenizer as tokenizer_lib

STYLE = {"appearance_style": "the sky cat"}


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    root = tmp_path_factory.mktemp("clip_full")
    fixtures.write_clip_full(root / "clip")
    fixtures.write_bpe(root / "bpe.txt.gz")
    return root


@pytest.fixture(scope="module")
def model(files):
    return clip_image_text.load_clip_image_text(files / "clip", files / "bpe.txt.gz", "cpu")


def reference_values(rgb, text: str, model) -> list:
    """Per frame: exp(logit_scale) * cos(image, text) / 100, float64, one frame at a time."""
    tok = model.tokenizer
    ids = ([tok.convert_tokens_to_ids(tokenizer_lib.SOT)] + tokenizer_lib.bpe_ids(tok, text)
           + [tok.convert_tokens_to_ids(tokenizer_lib.EOT)])
    eot_at = len(ids) - 1
    padded = torch.tensor([ids + [0] * (77 - len(ids))])
    with torch.no_grad():
        hidden = model.text.text_model(input_ids=padded).last_hidden_state[0, eot_at]
        t = model.text.text_projection(hidden).double().numpy()
    t /= np.linalg.norm(t)
    scale = math.exp(fixtures.LOGIT_SCALE)
    values = []
    for frame in rgb:
        pixels = torch.from_numpy(reference_transform.reference_pixels(frame[..., ::-1]))[None]
        with torch.no_grad():
            i = model.tower.model(pixel_values=pixels).image_embeds[0].double().numpy()
        values.append(scale * float(i @ t) / np.linalg.norm(i) / 100)
    return values


def test_matches_the_official_arithmetic(model):
    rgb = fixtures.frames(3, 240, 320, seed=11)
    value = appearance_style.compute(fixtures.video(rgb, auxiliary=STYLE), model, batch_size=2)
    expected = reference_values(rgb, STYLE["appearance_style"], model)
    np.testing.assert_allclose(value.extras["frame_results"], expected, atol=1e-6)
    assert value.video_results == pytest.approx(np.mean(expected), abs=1e-6)
    assert value.extras["cur_sim"] == value.extras["frame_results"][-1]  # the LAST frame
    assert value.pooled == (pytest.approx(sum(expected), abs=3e-6), 3.0)
    assert np.ptp(expected) > 1e-4  # frames differ
    # The checkpoint's logit scale (here log 50) is applied, not a fixed 100: values are
    # half the cosines.
    cosines = np.asarray(expected) * 100 / math.exp(fixtures.LOGIT_SCALE)
    assert abs(value.video_results - cosines.mean()) > 1e-3


def test_tokens_are_clip_tokenize_with_no_template(model):
    ids = clip_image_text.tokens(model, "the sky cat")
    tok = model.tokenizer
    body = tokenizer_lib.bpe_ids(tok, "the sky cat")
    assert ids[:len(body) + 2] == ([tok.convert_tokens_to_ids(tokenizer_lib.SOT)] + body
                                   + [tok.convert_tokens_to_ids(tokenizer_lib.EOT)])
    assert len(ids) == 77 and set(ids[len(body) + 2:]) == {0}
    with pytest.raises(ValueError, match="too long"):  # truncate=False upstream
        clip_image_text.tokens(model, " ".join(["cat"] * 80))


def test_needs_the_style(model):
    with pytest.raises(ValueError, match="appearance_style"):
        appearance_style.compute(fixtures.video(fixtures.frames(2)), model)


def test_shares_a_loaded_tower(files, model):
    tower = vision.load_clip_vision(files / "clip", "cpu", activation="quick_gelu")
    shared = clip_image_text.load_clip_image_text(files / "clip", files / "bpe.txt.gz", "cpu",
                                                  tower=tower)
    assert shared.tower is tower
    rgb = fixtures.frames(2, seed=12)
    a = appearance_style.compute(fixtures.video(rgb, auxiliary=STYLE), model)
    b = appearance_style.compute(fixtures.video(rgb, auxiliary=STYLE), shared)
    assert a.video_results == pytest.approx(b.video_results, abs=1e-7)
