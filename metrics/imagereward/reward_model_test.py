"""Tests for metrics.imagereward.reward_model on a tiny random ImageReward.

The checkpoint is written in ImageReward.pt's own key layout by tiny_checkpoint
(not through the key mapping under test) and loaded through the real path
(resolver -> load_image_reward). Its rewards are compared with reference_blip, a
float64 transcription of the official forward pass that reads the official keys.
"""

import dataclasses
import json

import pytest
import torch

from metrics.checkpoints import resolver
from metrics.imagereward import reference_blip
from metrics.imagereward import reward_model
from metrics.imagereward import tiny_checkpoint


@pytest.fixture(scope="module")
def root(tmp_path_factory):
    return tiny_checkpoint.save_tiny_image_reward(tmp_path_factory.mktemp("ckpt"), seed=3)


_SPECS = (reward_model.IMAGE_REWARD, reward_model.MED_CONFIG, reward_model.BERT_VOCAB)


def _paths(root):
    """Random files cannot match the pinned sha256s: resolved unpinned."""
    return [resolver.resolve(dataclasses.replace(spec, sha256=""), checkpoint_dir=str(root),
                             offline=True).path for spec in _SPECS]


@pytest.fixture(scope="module")
def loaded(root):
    return reward_model.load_image_reward(*_paths(root), "cpu")


def test_resolver_finds_the_three_files_in_the_hub_layout(root):
    weights, med, vocab = _paths(root)
    assert weights == root / "image_reward" / "ImageReward.pt"
    assert med == root / "image_reward" / "med_config.json"
    assert vocab == root / "bert_base_uncased" / "vocab.txt"
    command = reward_model.IMAGE_REWARD.fetch_command("/ckpt")
    assert command == ("huggingface-cli download THUDM/ImageReward ImageReward.pt --revision "
                       "9fabc279a94f082f9eb130070cac021569dd16dc --local-dir /ckpt/image_reward")


@pytest.mark.parametrize("spec", _SPECS, ids=lambda s: s.filename)
def test_the_pins_refuse_other_files(root, spec):
    assert len(spec.sha256) == 64 and len(spec.hf_revision) == 40
    with pytest.raises(resolver.CheckpointUnavailable, match=f"expected sha256 {spec.sha256}"):
        resolver.resolve(spec, checkpoint_dir=str(root), offline=True)


@pytest.mark.parametrize("prompt", [
    "a person walks from left to right (subject).",
    "the fox",
    " ".join(["street"] * 50),  # truncated to 35 tokens
])
def test_rewards_equal_the_official_forward_transcription(root, loaded, prompt):
    text = reward_model.tokenize(loaded, prompt, 3)
    pixels = torch.randn(3, 3, 224, 224, generator=torch.Generator().manual_seed(7))
    with torch.no_grad():
        ours = loaded.model(pixels, text["input_ids"], text["attention_mask"])
    state = torch.load(root / "image_reward" / "ImageReward.pt", weights_only=True)
    med = json.loads((root / "image_reward" / "med_config.json").read_text())
    expected = reference_blip.rewards(state, med, pixels, text["input_ids"][:1],
                                      text["attention_mask"][:1])
    torch.testing.assert_close(ours.double(), expected, atol=2e-5, rtol=0)
    assert float(expected.max() - expected.min()) > 1e-3  # images do move the reward


def test_configs_match_blip(loaded):
    vision = loaded.model.visual_encoder.config
    assert (vision.hidden_size, vision.num_hidden_layers, vision.num_attention_heads) == (
        tiny_checkpoint.VIT_WIDTH, tiny_checkpoint.VIT_DEPTH, 1)
    assert (vision.image_size, vision.patch_size, vision.hidden_act) == (224, 16, "gelu")
    eps = {m.eps for m in loaded.model.visual_encoder.modules()
           if isinstance(m, torch.nn.LayerNorm)}
    assert eps == {1e-6}  # vit.py's partial(nn.LayerNorm, eps=1e-6), not BlipVisionConfig's 1e-5
    text = loaded.model.text_encoder.config
    assert text.encoder_hidden_size == tiny_checkpoint.VIT_WIDTH  # encoder_width := vision width
    assert {m.eps for m in loaded.model.text_encoder.modules()
            if isinstance(m, torch.nn.LayerNorm)} == {1e-12}
    layers = loaded.model.text_encoder.encoder.layer
    assert all(hasattr(layer, "crossattention") for layer in layers)
    assert loaded.image_size == 224 and not loaded.model.training


def test_tokenizer_is_blips_without_the_enc_swap(loaded):
    vocab = {token: i for i, token in enumerate(tiny_checkpoint.VOCAB)}
    text = reward_model.tokenize(loaded, "The Fox sees (subject).", 2)
    ids = text["input_ids"][0].tolist()
    words = ["[CLS]", "the", "fox", "sees", "(", "subject", ")", ".", "[SEP]"]
    assert ids == [vocab[w] for w in words] + [0] * (35 - len(words))
    assert text["attention_mask"][0].tolist() == [1] * len(words) + [0] * (35 - len(words))
    assert text["input_ids"].shape == (2, 35)
    tokenizer = loaded.tokenizer
    assert tokenizer.convert_tokens_to_ids(["[DEC]", "[ENC]"]) == [len(vocab), len(vocab) + 1]
    assert tokenizer.bos_token == "[DEC]"
    long_ids = reward_model.tokenize(loaded, "street " * 60, 1)["input_ids"][0].tolist()
    assert len(long_ids) == 35 and long_ids[0] == vocab["[CLS]"] and long_ids[-1] == vocab["[SEP]"]


def test_official_keys_map_onto_transformers_names():
    cases = {
        "blip.visual_encoder.cls_token": "visual_encoder.embeddings.class_embedding",
        "blip.visual_encoder.blocks.23.attn.qkv.weight":
            "visual_encoder.encoder.layers.23.self_attn.qkv.weight",
        "blip.visual_encoder.blocks.0.attn.proj.bias":
            "visual_encoder.encoder.layers.0.self_attn.projection.bias",
        "blip.visual_encoder.norm.weight": "visual_encoder.post_layernorm.weight",
        "blip.text_encoder.encoder.layer.11.crossattention.self.key.weight":
            "text_encoder.encoder.layer.11.crossattention.self.key.weight",
        "mlp.layers.7.bias": "mlp.7.bias",
    }
    for official, ours in cases.items():
        assert reward_model.official_key_to_module_key(official) == ours
    for ignored in ("blip.vision_proj.weight", "blip.text_proj.bias",
                    "blip.text_encoder.embeddings.position_ids"):
        assert reward_model.official_key_to_module_key(ignored) is None
    with pytest.raises(ValueError, match="unexpected vision key"):
        reward_model.official_key_to_module_key("blip.visual_encoder.blocks.0.adapter.w")


def _write(root, tmp_path, state=None, med=None, vocab=None):
    folder = tmp_path / "broken"
    folder.mkdir(exist_ok=True)
    torch.save(state if state is not None else torch.load(
        root / "image_reward" / "ImageReward.pt", weights_only=True), folder / "ImageReward.pt")
    med_value = med if med is not None else json.loads(
        (root / "image_reward" / "med_config.json").read_text())
    (folder / "med_config.json").write_text(json.dumps(med_value))
    (folder / "vocab.txt").write_text(vocab if vocab is not None else
                                      (root / "bert_base_uncased" / "vocab.txt").read_text())
    return [folder / name for name in ("ImageReward.pt", "med_config.json", "vocab.txt")]


def test_a_missing_weight_is_an_error_not_a_random_init(root, tmp_path):
    state = torch.load(root / "image_reward" / "ImageReward.pt", weights_only=True)
    del state["blip.text_encoder.encoder.layer.1.crossattention.self.value.weight"]
    with pytest.raises(ValueError, match="does not fit ImageReward"):
        reward_model.load_image_reward(*_write(root, tmp_path, state=state), "cpu")


@pytest.mark.parametrize("change,message", [
    ({"add_cross_attention": False}, "add_cross_attention"),
    ({"position_embedding_type": "relative_key"}, "absolute"),
])
def test_bad_med_config_is_refused(root, tmp_path, change, message):
    med = {**tiny_checkpoint.med_config(), **change}
    with pytest.raises(ValueError, match=message):
        reward_model.load_image_reward(*_write(root, tmp_path, med=med), "cpu")


def test_a_vocabulary_that_does_not_fit_med_config_is_refused(root, tmp_path):
    vocab = "\n".join(tiny_checkpoint.VOCAB + ("extra",)) + "\n"
    with pytest.raises(ValueError, match=f"vocab_size {len(tiny_checkpoint.VOCAB) + 2}"):
        reward_model.load_image_reward(*_write(root, tmp_path, vocab=vocab), "cpu")


def test_position_ids_other_than_arange_are_refused(root, tmp_path):
    state = torch.load(root / "image_reward" / "ImageReward.pt", weights_only=True)
    state["blip.text_encoder.embeddings.position_ids"] = torch.zeros(1, 40, dtype=torch.long)
    with pytest.raises(ValueError, match="position_ids"):
        reward_model.load_image_reward(*_write(root, tmp_path, state=state), "cpu")


def test_not_a_state_dict_is_refused(root, tmp_path):
    paths = _write(root, tmp_path)
    paths[0].write_bytes(b"not a torch file")
    with pytest.raises(ValueError, match="not a readable torch state dict"):
        reward_model.load_image_reward(*paths, "cpu")


if __name__ == "__main__":
    raise SystemExit(pytest.main([__file__, "-q"]))
