"""CLIPScore on a tiny random CLIP snapshot, loaded through the real loader."""

import pytest
import torch

from metrics.clip import clip_score
from metrics.clip import tiny_clip_score


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    folder = tmp_path_factory.mktemp("clip_b16")
    tiny_clip_score.write_snapshot(folder)
    return clip_score.load_clip_score(folder, "cpu")


def _image(seed):
    g = torch.Generator().manual_seed(seed)
    return torch.randint(0, 256, (3, 40, 48), generator=g, dtype=torch.uint8)


def test_score_is_100_cos_as_clipmodel_forward_gives_it(tiny):
    image, text = _image(0), "a red chair"
    inputs = tiny.processor(text=[text], images=[image], return_tensors="pt", padding=True)
    with torch.no_grad():
        out = tiny.model(**inputs)
    expected = float(out.logits_per_image[0, 0] / tiny.model.logit_scale.exp()) * 100
    assert clip_score.raw_score(tiny, image, text) == pytest.approx(expected, rel=1e-4,
                                                                      abs=1e-4)


def test_negative_cosine_is_clamped_to_zero(tiny):
    scores = [(clip_score.raw_score(tiny, _image(s), t), clip_score.clip_score(tiny, _image(s), t))
              for s in range(6) for t in ("a", "zz top", "one two three")]
    assert any(raw < 0 for raw, _ in scores) and any(raw > 0 for raw, _ in scores)
    assert all(clamped == max(raw, 0.0) for raw, clamped in scores)


def test_long_text_is_truncated_to_the_text_tower(tiny):
    long_text = "word " * 40  # far more tokens than MAX_POSITIONS
    assert isinstance(clip_score.raw_score(tiny, _image(1), long_text), float)


def test_bad_inputs(tiny, tmp_path):
    with pytest.raises(ValueError, match="uint8"):
        clip_score.raw_score(tiny, _image(0).float(), "x")
    with pytest.raises(ValueError, match="not a CLIP snapshot"):
        clip_score.load_clip_score(tmp_path, "cpu")
