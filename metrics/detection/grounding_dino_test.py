"""GroundingDINO: preprocessing, caption and text masks as the official code, the tiny model
loaded from the official file format, post-processing, and bad input."""

import numpy as np
from PIL import Image
import pytest
import torch
import torchvision.transforms.functional as F
from transformers.models.grounding_dino import modeling_grounding_dino

from metrics.detection import grounding_dino
from metrics.detection import grounding_dino_text
from metrics.detection import tiny_grounding_dino
from tools.fixtures import scene


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    folder = tmp_path_factory.mktemp("gdino")
    checkpoint, bert = tiny_grounding_dino.write_checkpoint(folder, noise=0.02)
    return checkpoint, bert, grounding_dino.load_grounding_dino(
        checkpoint, bert, config=tiny_grounding_dino.TINY)


@pytest.fixture(scope="module")
def frame():
    return np.ascontiguousarray(scene.render_clip(3, 97, 131, 3)[0][0][..., ::-1])


@pytest.mark.parametrize("width, height, expected", [
    (131, 97, (800, 1080)),     # short side to 800, long side int(800 * 131 / 97)
    (641, 361, (751, 1333)),    # long side capped: short int(round(1333 * 361 / 641))
    (1280, 720, (750, 1333)),
    (224, 224, (800, 800)),
    (1066, 800, (800, 1066)),   # already there: unchanged
    (480, 832, (1332, 769)),    # portrait: 769 = round(1333 * 480 / 832), int(769 * 832 / 480)
])
def test_resized_size_is_the_official_random_resize_800_1333(width, height, expected):
    assert grounding_dino.resized_size(width, height) == expected


def test_preprocess_equals_the_official_torchvision_pipeline(frame):
    image = Image.fromarray(frame)
    reference = F.normalize(F.to_tensor(F.resize(image, [800, 1080])),
                            mean=[0.485, 0.456, 0.406], std=[0.229, 0.224, 0.225])
    assert torch.equal(grounding_dino.preprocess(frame), reference)


def test_captions_are_lowered_stripped_and_end_with_one_period():
    assert grounding_dino.official_caption("  Black Horse ") == "black horse."
    assert grounding_dino.official_caption("Dog. Cat.") == "dog. cat."


def test_text_masks_and_positions_are_the_official_ones_not_transformers():
    ids = torch.tensor([[101, 1000, 1001, 1012, 1002, 1012, 102]])  # [CLS] a b . c . [SEP]
    mask, positions = grounding_dino_text.official_text_masks(ids)
    assert positions.tolist() == [[0, 0, 1, 2, 0, 1, 0]]
    assert mask[0, 1].tolist() == [False, True, True, True, False, False, False]
    assert mask[0, 4].tolist() == [False, False, False, False, True, True, False]
    assert mask[0, 0].tolist() == [True] + [False] * 6
    # transformers 5.18 gives each delimiter position 0; when it stops doing so, the
    # swap in grounding_dino_text can go.
    _, theirs = modeling_grounding_dino.generate_masks_with_special_tokens_and_transfer_map(ids)
    assert theirs.tolist() == [[0, 0, 1, 0, 0, 0, 0]]
    embedding = modeling_grounding_dino.encode_sinusoidal_position_embedding(
        positions[..., None], num_pos_feats=8)
    assert embedding.dtype == torch.int64  # the truncation the float swap undoes


def test_the_swaps_are_undone_after_each_forward(tiny, frame):
    _, _, model = tiny
    before = modeling_grounding_dino.generate_masks_with_special_tokens_and_transfer_map
    model.detect(frame, "red sphere", 0.25, 0.2)
    assert modeling_grounding_dino.generate_masks_with_special_tokens_and_transfer_map is before


def test_detect_keeps_queries_above_the_box_threshold_with_their_phrases(tiny, frame):
    _, _, model = tiny
    found = model.detect(frame, " Red Sphere", 0.25, 0.2)
    logits, boxes = model.forward(grounding_dino.preprocess(frame), "red sphere.")
    probs = logits.sigmoid()
    keep = probs.max(1).values > 0.25
    assert found.input_size == (800, 1080)
    assert 0 < len(found.scores) < tiny_grounding_dino.TINY.num_queries
    assert found.boxes_cxcywh.dtype == np.float32 and found.boxes_cxcywh.shape == (
        int(keep.sum()), 4)
    np.testing.assert_array_equal(found.boxes_cxcywh, boxes[keep].numpy())
    np.testing.assert_array_equal(found.scores, probs[keep].max(1).values.numpy())
    assert np.all((found.boxes_cxcywh >= 0) & (found.boxes_cxcywh <= 1))
    tokens = ["[CLS]", "red", "sphere", ".", "[SEP]"]
    for phrase, p in zip(found.phrases, probs[keep]):
        chosen = [t for t, on in zip(tokens, (p[:5] > 0.2).tolist()) if on]
        assert phrase.replace(" ", "") == "".join(chosen)
    none = model.detect(frame, "red sphere", 1.0, 0.2)
    assert none.boxes_cxcywh.shape == (0, 4) and none.scores.shape == (0,) and not none.phrases


def test_the_checkpoint_is_the_official_layout_and_module_prefixes_load(tiny, tmp_path, frame):
    checkpoint, bert, model = tiny
    state = torch.load(checkpoint)["model"]
    assert "backbone.0.layers.0.blocks.0.attn.qkv.weight" in state
    assert "transformer.decoder.layers.1.ca_text.in_proj_weight" in state
    assert any(k.startswith("bert.encoder.layer.") for k in state)
    prefixed = {"module." + k: v for k, v in state.items()}
    prefixed["module.label_enc.weight"] = torch.zeros(3)  # the released file has it
    prefixed["module.extra.weight"] = torch.zeros(3)  # unknown: ignored like strict=False
    path = tmp_path / "prefixed.pth"
    torch.save({"model": prefixed, "epoch": 3}, path)
    again = grounding_dino.load_grounding_dino(path, bert, config=tiny_grounding_dino.TINY)
    assert again.ignored_keys == ["extra.weight"]
    pixels = grounding_dino.preprocess(frame)
    assert torch.equal(again.forward(pixels, "wall.")[0], model.forward(pixels, "wall.")[0])


def test_bad_inputs_are_named(tiny, tmp_path, frame):
    checkpoint, bert, model = tiny
    with pytest.raises(FileNotFoundError, match="nothere.pth"):
        grounding_dino.load_grounding_dino(tmp_path / "nothere.pth", bert,
                                           config=tiny_grounding_dino.TINY)
    torch.save({"state_dict": {}}, tmp_path / "other.pth")
    with pytest.raises(ValueError, match="other.pth.*'model'"):
        grounding_dino.load_grounding_dino(tmp_path / "other.pth", bert,
                                           config=tiny_grounding_dino.TINY)
    (tmp_path / "text.pth").write_text("not a torch file")
    with pytest.raises(ValueError, match="text.pth: not a weights-only torch file"):
        grounding_dino.load_grounding_dino(tmp_path / "text.pth", bert,
                                           config=tiny_grounding_dino.TINY)
    with pytest.raises(FileNotFoundError, match="bert-base-uncased folder with config.json"):
        grounding_dino.load_grounding_dino(checkpoint, tmp_path, config=tiny_grounding_dino.TINY)
    wider = tiny_grounding_dino.TINY.__class__(**{**vars(tiny_grounding_dino.TINY),
                                                  "dim_feedforward": 256})
    with pytest.raises(ValueError, match="not a GroundingDINO checkpoint of this architecture"):
        grounding_dino.load_grounding_dino(checkpoint, bert, config=wider)
    with pytest.raises(ValueError, match="RGB uint8"):
        model.detect(frame.astype(np.float32), "wall", 0.25, 0.2)


def test_a_vocabulary_without_bert_base_delimiter_ids_is_refused(tiny, tmp_path):
    checkpoint, bert, _ = tiny
    other = tmp_path / "bert"
    other.mkdir()
    for name in ("config.json", "tokenizer_config.json"):
        (other / name).write_bytes((bert / name).read_bytes())
    (other / "vocab.txt").write_text("[PAD]\n[UNK]\n[CLS]\n[SEP]\n[MASK]\n.\n?\nwall\n")
    with pytest.raises(ValueError, match="101, 102, 1012, 1029"):
        grounding_dino.load_grounding_dino(checkpoint, other, config=tiny_grounding_dino.TINY)


def test_a_tiny_swin_t_ogc_loads_through_the_same_path_and_its_window_is_checked(tmp_path):
    tiny_t = tiny_grounding_dino.TINY_SWINT
    checkpoint, bert = tiny_grounding_dino.write_checkpoint(tmp_path, noise=0.02, arch=tiny_t)
    state = torch.load(checkpoint)["model"]
    table = state["backbone.0.layers.0.blocks.0.attn.relative_position_bias_table"]
    assert table.shape == (13 * 13, 1)  # (2 * 7 - 1)^2 positions, as the official Swin-T
    model = grounding_dino.load_grounding_dino(checkpoint, bert, config=tiny_t)
    logits, boxes = model.forward(torch.zeros(3, 96, 128), "red sphere.")  # small: fast
    assert logits.shape == (tiny_t.num_queries, tiny_t.max_text_len)
    assert boxes.shape == (tiny_t.num_queries, 4) and torch.isfinite(logits[:, :5]).all()
    with pytest.raises(ValueError, match="of another shape"):
        grounding_dino.load_grounding_dino(checkpoint, bert, config=tiny_grounding_dino.TINY)
