"""Tests for metrics.clip.openai_clip: RN50-format files (TorchScript or state dict) loaded
as pyiqa's clip_model.load does, shapes inferred, float16 rounding, strictness."""

import torch
import pytest

from metrics.clip import openai_clip
from metrics.clip import tiny_clipiqa


@pytest.fixture(scope="module")
def archive(tmp_path_factory):
    """(path, tensors as saved) of a tiny TorchScript archive with float16 weights."""
    path = tmp_path_factory.mktemp("jit") / "RN50.pt"
    return path, tiny_clipiqa.write_rn50(path, seed=1)


def test_architecture_is_read_off_the_tensors(archive):
    path, _ = archive
    model = openai_clip.load_openai_clip(path, "cpu")
    assert [len(getattr(model.visual, f"layer{i}")) for i in (1, 2, 3, 4)] == [2, 1, 1, 1]
    assert model.visual.conv3.out_channels == 8 and model.visual.attnpool.num_heads == 4
    assert model.visual.attnpool.c_proj.out_features == 32
    assert len(model.transformer.resblocks) == 2
    assert model.transformer.resblocks[0].attn.num_heads == 1  # width 64 // 64
    assert model.token_embedding.weight.shape == (49408, 64)
    assert model.positional_embedding.shape == (77, 64)
    assert not model.training and not any(p.requires_grad for p in model.parameters())
    assert {p.dtype for p in model.parameters()} == {torch.float32}


@pytest.mark.filterwarnings("ignore::FutureWarning")  # torch.jit.load's deprecation notice
def test_archive_holds_openais_layout(archive):
    path, saved = archive
    raw = torch.jit.load(str(path)).state_dict()
    assert raw["visual.conv1.weight"].dtype == torch.float16
    assert raw["transformer.resblocks.0.attn.in_proj_weight"].dtype == torch.float16
    assert raw["visual.bn1.running_var"].dtype == torch.float32
    assert {"input_resolution", "context_length", "vocab_size"} <= set(raw)
    assert not {"input_resolution", "context_length", "vocab_size"} & set(saved)


def test_loaded_tensors_equal_the_file(archive):
    path, saved = archive
    model = openai_clip.load_openai_clip(path, "cpu")
    loaded = model.state_dict()
    assert set(loaded) == set(saved)
    for key, value in saved.items():
        assert torch.equal(loaded[key].float(), value), key


def test_state_dict_file_is_rounded_like_convert_weights(tmp_path):
    saved = tiny_clipiqa.write_rn50(tmp_path / "RN50.pt", seed=2, jit=False, half=False)
    model = openai_clip.load_openai_clip(tmp_path / "RN50.pt", "cpu")
    loaded = model.state_dict()
    rounded = ("visual.conv1.weight", "visual.layer1.0.downsample.0.weight",
               "visual.attnpool.q_proj.bias", "visual.attnpool.c_proj.weight",
               "transformer.resblocks.1.attn.in_proj_weight",
               "transformer.resblocks.0.attn.out_proj.weight",
               "transformer.resblocks.0.mlp.c_fc.bias",
               "text_projection")
    for key in rounded:
        assert torch.equal(loaded[key], saved[key].half().float()), key
        assert not torch.equal(loaded[key], saved[key]), key  # float32 values really moved
    kept = ("visual.bn1.weight", "visual.layer2.0.bn3.running_mean",
            "visual.attnpool.positional_embedding", "transformer.resblocks.0.ln_1.bias",
            "token_embedding.weight", "positional_embedding", "ln_final.weight", "logit_scale")
    for key in kept:
        assert torch.equal(loaded[key], saved[key]), key


def test_num_batches_tracked_may_be_absent(tmp_path, archive):
    _, saved = archive
    state = {k: v for k, v in saved.items() if not k.endswith("num_batches_tracked")}
    torch.save(state, tmp_path / "RN50.pt")
    model = openai_clip.load_openai_clip(tmp_path / "RN50.pt", "cpu")
    assert torch.equal(model.visual.bn1.weight, saved["visual.bn1.weight"])


@pytest.mark.parametrize("damage,message", [
    ("drop", "Missing key"), ("extra", "Unexpected key"), ("shape", "size mismatch"),
    ("vit", "CLIP ViT checkpoint"), ("no_attnpool", "no tensor"),
])
def test_load_is_strict(tmp_path, archive, damage, message):
    _, saved = archive
    state = dict(saved)
    if damage == "drop":
        state.pop("visual.layer3.0.conv2.weight")
    elif damage == "extra":
        state["visual.layer3.0.conv4.weight"] = torch.zeros(1)
    elif damage == "shape":
        state["ln_final.bias"] = torch.zeros(65)
    elif damage == "vit":
        state["visual.proj"] = torch.zeros(8, 8)
    else:
        state.pop("visual.attnpool.positional_embedding")
    torch.save(state, tmp_path / "RN50.pt")
    with pytest.raises(ValueError, match=message):
        openai_clip.load_openai_clip(tmp_path / "RN50.pt", "cpu")


def test_unreadable_files(tmp_path):
    (tmp_path / "garbage.pt").write_bytes(b"not a model")
    with pytest.raises(ValueError, match="neither a TorchScript archive nor a torch state dict"):
        openai_clip.read_state_dict(tmp_path / "garbage.pt")
    torch.save([torch.zeros(1)], tmp_path / "list.pt")
    with pytest.raises(ValueError, match="expected a state dict of tensors, found list"):
        openai_clip.read_state_dict(tmp_path / "list.pt")


if __name__ == "__main__":
    raise SystemExit(pytest.main([__file__, "-q"]))
