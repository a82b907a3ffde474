"""CLIP-IQA+ on open_clip's RN50 and text tower against the numbers of the hand-written copy.

testdata/clipiqa_rn50_0b761c8.json holds what worldeval's own ModifiedResNet / text
Transformer (commit 0b761c8, since deleted) computed on tiny random RN50 files; here the
same files go through today's path (open_clip's CLIP built from the OpenAI state dict)
and must give the same text features, image features and scores.
"""

import json
import pathlib

import numpy as np
import pytest
import torch

from metrics.clip import clipiqa
from metrics.clip import openai_clip
from metrics.clip import tiny_clipiqa

_TABLE = pathlib.Path(__file__).parent / "testdata" / "clipiqa_rn50_0b761c8.json"
_ATOL = 1e-5


def _frames(seed, n, height, width):
    rng = np.random.default_rng(seed)
    return [rng.integers(0, 256, (height, width, 3), dtype=np.uint8) for _ in range(n)]


@pytest.fixture(scope="module", name="table")
def _table():
    return json.loads(_TABLE.read_text())


@pytest.mark.parametrize("case_index", [0, 1])
def test_open_clip_reproduces_the_hand_written_numbers(tmp_path, table, case_index):
    case = table["cases"][case_index]
    tiny_clipiqa.write_rn50(tmp_path / "RN50.pt", seed=5)
    tiny_clipiqa.write_prompts(tmp_path / "p.pth", seed=6, per_prompt=case["per_prompt_context"])
    model = clipiqa.load_clipiqa(tmp_path / "RN50.pt", tmp_path / "p.pth", "cpu")
    assert type(model.clip).__module__ == "open_clip.model"
    np.testing.assert_allclose(model.text_features.numpy(), case["text_features"],
                               rtol=0, atol=_ATOL)
    for row in case["frames"]:
        frames = _frames(*row["frames"])
        with torch.no_grad():
            features = openai_clip.image_features(
                model.clip, clipiqa.normalize(clipiqa.frames_to_pixels(frames)))
        np.testing.assert_allclose(features.numpy(), row["image_features"], rtol=0, atol=_ATOL)
        np.testing.assert_allclose(clipiqa.frame_scores(frames, model, batch_size=1),
                                   row["scores"], rtol=0, atol=_ATOL)


def test_the_table_is_not_trivial(table):
    scores = [s for case in table["cases"] for row in case["frames"] for s in row["scores"]]
    assert len(scores) == 10 and 0.5 < min(scores) and max(scores) < 0.9999
    assert table["commit"] == "0b761c8"


if __name__ == "__main__":
    raise SystemExit(pytest.main([__file__, "-q"]))
