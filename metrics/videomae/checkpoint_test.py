"""The fine-tuning checkpoint loader on a tiny ViT saved in the official layout: the
"model"/"module" keys, the `_orig_mod.`/`backbone.`/`encoder.` prefixes, the head rule,
and the position-table resampling (and that a fixed table ignores the file's)."""

import argparse
import dataclasses

import numpy as np
import pytest
import torch
from torch.nn import functional as F

from metrics.videomae import checkpoint
from metrics.videomae import classifier
from metrics.videomae import vit

TINY = vit.VitConfig(img_size=28, patch_size=14, embed_dim=32, depth=2, num_heads=4)
TINY_LEARNED = dataclasses.replace(TINY, learnable_pos_embed=True)


def _model(config=TINY, seed=0):
    model = vit.random_init(config, seed)
    with torch.no_grad():  # a head that is not near zero, so logits tell weights apart
        model.head.weight.normal_(0, 1.0)
    return model


def _clips(n=3):
    return np.random.default_rng(0).normal(size=(n, 3, 16, 28, 28)).astype(np.float32)


def _save(tmp_path, payload, name="ckpt.pt"):
    path = tmp_path / name
    torch.save(payload, path)
    return path


def _load(path, config=TINY, **kw):
    return classifier.load_videomae_classifier(path, "cpu", config, **kw)


def _reference_logits(model):
    return classifier.Classifier(model).logits(_clips())


@pytest.mark.parametrize("key", ["model", "module"])
def test_state_under_model_or_module_with_run_args(tmp_path, key):
    model = _model()
    payload = {key: model.state_dict(), "epoch": 3, "args": argparse.Namespace(lr=1e-3)}
    loaded = _load(_save(tmp_path, payload))
    assert loaded.report.state_key == key and loaded.report.ignored_keys == ()
    np.testing.assert_array_equal(loaded.logits(_clips()), _reference_logits(model))


def test_legacy_file_format_loads(tmp_path):
    model = _model()
    path = tmp_path / "legacy.pt"
    torch.save({"model": model.state_dict()}, path, _use_new_zipfile_serialization=False)
    np.testing.assert_array_equal(_load(path).logits(_clips()), _reference_logits(model))


def test_model_key_order_and_bare_state(tmp_path):
    first, second = _model(seed=0), _model(seed=1)
    both = _save(tmp_path, {"model": first.state_dict(), "module": second.state_dict()})
    np.testing.assert_array_equal(_load(both).logits(_clips()), _reference_logits(first))
    np.testing.assert_array_equal(_load(both, model_key="module").logits(_clips()),
                                  _reference_logits(second))
    bare = _load(_save(tmp_path, first.state_dict(), "bare.pt"))
    assert bare.report.state_key == ""
    np.testing.assert_array_equal(bare.logits(_clips()), _reference_logits(first))


@pytest.mark.parametrize("prefix", ["_orig_mod.", "backbone.", "encoder.",
                                    "_orig_mod.backbone.", "_orig_mod.encoder."])
def test_prefixes_are_stripped(tmp_path, prefix):
    model = _model()
    state = {prefix + k: v for k, v in model.state_dict().items()}
    loaded = _load(_save(tmp_path, {"model": state}))
    np.testing.assert_array_equal(loaded.logits(_clips()), _reference_logits(model))


def test_only_one_of_backbone_or_encoder_is_stripped():
    assert checkpoint.strip_prefixes({"backbone.encoder.x": 1, "encoder.backbone.y": 2,
                                      "head.bias": 3}) == {"encoder.x": 1, "backbone.y": 2,
                                                           "head.bias": 3}
    assert checkpoint.select_state({"model": {"_orig_mod._orig_mod.a": 1}})[1] == {
        "_orig_mod.a": 1}


def test_backbone_encoder_file_lacks_the_model_tensors(tmp_path):
    state = {"backbone.encoder." + k: v for k, v in _model().state_dict().items()}
    with pytest.raises(ValueError, match=r"ckpt\.pt.*missing"):
        _load(_save(tmp_path, {"model": state}))


def test_head_of_another_shape_is_an_error_not_a_random_head(tmp_path):
    state = _model().state_dict()
    state["head.weight"], state["head.bias"] = torch.zeros(7, 32), torch.zeros(7)
    with pytest.raises(ValueError, match=r"ckpt\.pt: head\.weight has shape \(7, 32\)"):
        _load(_save(tmp_path, {"model": state}))
    # a prefixed head escapes the official head rule and fails the shape check instead
    prefixed = {"backbone." + k: v for k, v in state.items()}
    with pytest.raises(ValueError, match="wrong shape"):
        _load(_save(tmp_path, {"model": prefixed}, "prefixed.pt"))


def test_missing_tensor_and_unreadable_file(tmp_path):
    state = _model().state_dict()
    del state["blocks.1.attn.q_bias"]
    with pytest.raises(ValueError, match=r"1 missing.*blocks\.1\.attn\.q_bias"):
        _load(_save(tmp_path, {"model": state}))
    bad = tmp_path / "bad.pt"
    bad.write_bytes(b"not a checkpoint")
    with pytest.raises(ValueError, match=r"bad\.pt: expected a torch\.save'd"):
        _load(bad)
    with pytest.raises(ValueError, match="expected a state dict under 'model', found list"):
        checkpoint.select_state({"model": [1, 2]})
    with pytest.raises(FileNotFoundError, match="absent.pt"):
        _load(tmp_path / "absent.pt")


def test_fixed_table_ignores_the_files_pos_embed(tmp_path):
    """The official model's sine-cosine table is no parameter: a pos_embed in the file
    (even one of another grid, which is resampled first) is an unused key."""
    model = _model()
    state = dict(model.state_dict(), pos_embed=torch.randn(1, 8 * 9, 32))
    loaded = _load(_save(tmp_path, {"model": state}))
    assert loaded.report.ignored_keys == ("pos_embed",) and loaded.report.resampled_pos_embed
    np.testing.assert_array_equal(loaded.logits(_clips()), _reference_logits(model))


def _transcribed_resample(table, steps, old, new):
    """Per time step: the (old, old) grid of each channel resized bicubically."""
    out = []
    for t in range(steps):
        grid = table[0, t * old * old:(t + 1) * old * old].reshape(old, old, -1)
        img = F.interpolate(grid.permute(2, 0, 1)[None], size=(new, new), mode="bicubic",
                            align_corners=False)[0]
        out.append(img.permute(1, 2, 0).reshape(new * new, -1))
    return torch.cat(out)[None]


def test_learned_table_of_another_grid_is_resampled(tmp_path):
    model = _model(TINY_LEARNED)
    t, h, w = torch.meshgrid(torch.arange(8.), torch.arange(3.), torch.arange(3.),
                             indexing="ij")
    table = torch.stack([100 * t, h, w, h * w], -1).reshape(1, 72, 4).repeat(1, 1, 8)
    state = dict(model.state_dict(), pos_embed=table)
    loaded = _load(_save(tmp_path, {"model": state}), TINY_LEARNED)
    assert loaded.report.resampled_pos_embed and loaded.report.ignored_keys == ()
    got = loaded.model.pos_embed.detach()
    assert got.shape == (1, 8 * 2 * 2, 32)
    torch.testing.assert_close(got, _transcribed_resample(table, 8, 3, 2), rtol=0, atol=0)
    grid = got[0].reshape(8, 2, 2, 32)
    # a per-step constant stays constant (bicubic weights sum to 1): the time layout
    torch.testing.assert_close(grid[..., 0], 100 * torch.arange(8.)[:, None, None].expand(
        8, 2, 2), rtol=0, atol=1e-4)
    # rows vary along h only, columns along w only: (h, w) not transposed; bicubic
    # (a = -0.75, edges clamped) of 0, 1, 2 at 0.25: 1 * 0.26171875 + 2 * -0.03515625
    np.testing.assert_allclose(grid[0, :, 0, 1].numpy(), [0.19140625, 1.80859375], atol=1e-6)
    np.testing.assert_allclose(grid[0, 0, :, 2].numpy(), [0.19140625, 1.80859375], atol=1e-6)


def test_learned_table_of_the_same_grid_loads_unchanged(tmp_path):
    model = _model(TINY_LEARNED)
    loaded = _load(_save(tmp_path, {"module": model.state_dict()}), TINY_LEARNED)
    assert not loaded.report.resampled_pos_embed
    np.testing.assert_array_equal(loaded.logits(_clips()), _reference_logits(model))
