"""metrics.dino.vit on a tiny random DINO ViT saved as an official-format state dict.

The reference is a transcription of DINO's VisionTransformer.forward written here with
plain tensor ops (explicit softmax attention, LayerNorm eps 1e-6, exact GELU), reading
the saved state dict; full-size parity against the official module on random weights is
in the report of the change that added this file (max |diff| 1.8e-7 on unit vectors).
"""

import math

import numpy as np
from PIL import Image
import pytest
import torch
import torch.nn.functional as F

from metrics.dino import vit

_TINY = vit.DinoConfig(patch_size=16, embed_dim=32, depth=2, num_heads=2, image_size=64)


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    torch.manual_seed(7)
    state = vit.build_vit(_TINY).state_dict()
    path = tmp_path_factory.mktemp("dino") / "dino_vitbase16_pretrain.pth"
    torch.save(state, path)
    return path, state


def _reference_forward(state, pixels, heads):
    def ln(x, p):
        return F.layer_norm(x, x.shape[-1:], state[p + ".weight"], state[p + ".bias"], 1e-6)

    def lin(x, p):
        return x @ state[p + ".weight"].T + state[p + ".bias"]

    x = F.conv2d(pixels, state["patch_embed.proj.weight"], state["patch_embed.proj.bias"],
                 stride=16).flatten(2).transpose(1, 2)
    x = torch.cat([state["cls_token"].expand(len(x), -1, -1), x], 1)
    n = state["pos_embed"].shape[1] - 1
    side = math.sqrt(n)
    gh, gw = pixels.shape[-2] // 16, pixels.shape[-1] // 16
    table = state["pos_embed"][:, 1:].reshape(1, int(side), int(side), -1).permute(0, 3, 1, 2)
    table = F.interpolate(table, scale_factor=((gh + 0.1) / side, (gw + 0.1) / side),
                          mode="bicubic")
    x = x + torch.cat([state["pos_embed"][:, :1], table.permute(0, 2, 3, 1).reshape(1, gh * gw, -1)], 1)
    for i in range(len({k.split(".")[1] for k in state if k.startswith("blocks.")})):
        p = f"blocks.{i}"
        b, t, c = x.shape
        qkv = lin(ln(x, p + ".norm1"), p + ".attn.qkv").reshape(b, t, 3, heads, c // heads)
        q, k, v = qkv.permute(2, 0, 3, 1, 4)
        attn = ((q @ k.transpose(-2, -1)) * (c // heads) ** -0.5).softmax(-1)
        x = x + lin((attn @ v).transpose(1, 2).reshape(b, t, c), p + ".attn.proj")
        x = x + lin(F.gelu(lin(ln(x, p + ".norm2"), p + ".mlp.fc1")), p + ".mlp.fc2")
    return ln(x, "norm")[:, 0]


def _frames(count, shape=(40, 72, 3)):
    rng = np.random.default_rng(3)
    return [rng.integers(0, 256, shape, dtype=np.uint8) for _ in range(count)]


def test_embeddings_equal_the_official_forward_transcription(saved):
    path, state = saved
    model = vit.load_dino(path, "cpu", _TINY)
    frames = _frames(3)
    got = vit.frame_embeddings(model, frames, batch_size=2)
    pixels = torch.stack([vit.hub_transform(f) for f in frames])
    assert pixels.shape[-2:] == (224, 403)  # shorter side to 224, longer truncated
    with torch.no_grad():
        want = F.normalize(_reference_forward(state, pixels, _TINY.num_heads), dim=-1)
    assert got.shape == (3, 32)
    assert torch.allclose(got, want, atol=1e-5)


def test_hub_transform_is_pil_bilinear_resize_then_imagenet_normalisation():
    frame = _frames(1)[0]
    got = vit.hub_transform(frame).numpy()
    resized = np.asarray(Image.fromarray(frame).resize((403, 224), Image.BILINEAR), np.float32)
    want = (resized / 255 - np.array(vit.IMAGENET_MEAN, np.float32)) / np.array(vit.IMAGENET_STD, np.float32)
    np.testing.assert_allclose(got, want.transpose(2, 0, 1), atol=1e-6)


def test_position_table_uses_dinos_offset_scale_factor_not_target_size(saved):
    table = saved[1]["pos_embed"]
    assert vit.position_embedding(table, 4, 4) is table
    got = vit.position_embedding(table, 14, 25)
    by_size = F.interpolate(table[:, 1:].reshape(1, 4, 4, -1).permute(0, 3, 1, 2), size=(14, 25),
                            mode="bicubic").permute(0, 2, 3, 1).reshape(1, 350, -1)
    assert got.shape == (1, 351, 32)
    assert (got[:, 1:] - by_size).abs().max() > 1e-3  # "fixing" it to size= would fail


def test_wrong_file_and_wrong_config_are_clear_errors(saved, tmp_path):
    bad = tmp_path / "x.pth"
    bad.write_bytes(b"not torch")
    with pytest.raises(ValueError, match="not a readable torch file"):
        vit.load_dino(bad, "cpu", _TINY)
    with pytest.raises(ValueError, match="does not fit the DINO ViT"):
        vit.load_dino(saved[0], "cpu", vit.DinoConfig(embed_dim=48, depth=2, num_heads=2,
                                                         image_size=64))
    with pytest.raises(ValueError, match="one size"):
        vit.frame_embeddings(vit.load_dino(saved[0], "cpu", _TINY),
                             _frames(1) + _frames(1, (48, 64, 3)))
