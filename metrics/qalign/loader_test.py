"""The snapshot loader: official layouts, strictness, dtypes."""

import dataclasses
import json

import pytest
import torch

from metrics.qalign import config as config_lib
from metrics.qalign import loader
from metrics.qalign import tiny_snapshot


@pytest.fixture(scope="module", name="snapshot")
def _snapshot(tmp_path_factory):
    root = tmp_path_factory.mktemp("qalign")
    tiny_snapshot.write(root, seed=3)
    return root


def _state(loaded):
    return {k: v.float() for k, v in loaded.model.state_dict().items()}


def test_sharded_safetensors_load_every_tensor_unchanged(snapshot):
    loaded = loader.load_qalign(snapshot, "cpu")
    assert loaded.dtype == torch.float32 and loaded.model.config == config_lib.from_dict(
        json.loads((snapshot / "config.json").read_text()))
    want = tiny_snapshot.random_state(loaded.model.config, seed=3)
    got = _state(loaded)
    assert set(got) == set(want)
    for key, value in want.items():
        torch.testing.assert_close(got[key], value, rtol=0, atol=0)
    assert loaded.ignored_keys == () and loaded.computed_keys == ()


def test_sharded_bin_layout_loads_the_same(snapshot, tmp_path):
    for name in ("tokenizer.model", "tokenizer_config.json", "preprocessor_config.json",
                 "config.json"):
        (tmp_path / name).write_bytes((snapshot / name).read_bytes())
    state = _state(loader.load_qalign(snapshot, "cpu"))
    keys = sorted(state)
    shards = {"pytorch_model-00001-of-00002.bin": keys[:10],
              "pytorch_model-00002-of-00002.bin": keys[10:]}
    for shard, names in shards.items():
        torch.save({k: state[k] for k in names}, tmp_path / shard)
    (tmp_path / "pytorch_model.bin.index.json").write_text(json.dumps(
        {"weight_map": {k: s for s, names in shards.items() for k in names}}))
    other = _state(loader.load_qalign(tmp_path, "cpu"))
    assert all(torch.equal(other[k], state[k]) for k in state)


def test_tables_absent_are_computed_and_old_rotary_buffers_ignored(tmp_path):
    tiny_snapshot.write(tmp_path, seed=3, with_tables=False, rotary_keys=True)
    loaded = loader.load_qalign(tmp_path, "cpu")
    assert loaded.ignored_keys == ("model.layers.0.self_attn.rotary_emb.inv_freq",)
    assert len(loaded.computed_keys) == 2 * config_lib.TINY.abstractor.num_hidden_layers
    want = tiny_snapshot.random_state(loaded.model.config, seed=3)
    got = _state(loaded)
    for key in loaded.computed_keys:
        assert got[key].device.type == "cpu"
        torch.testing.assert_close(got[key], want[key], rtol=0, atol=0)


def _rewrite_first_shard(root, change):
    from safetensors.torch import load_file, save_file  # pylint: disable=import-outside-toplevel
    shard = root / "model-00001-of-00002.safetensors"
    tensors = load_file(str(shard))
    change(tensors)
    save_file(tensors, str(shard))


@pytest.mark.parametrize("change, message", [
    (lambda t: t.pop(sorted(t)[0]), "lack 1 tensors"),
    (lambda t: t.update({"model.extra.weight": torch.zeros(2)}), "not part of"),
    (lambda t: t.update({"lm_head.weight": torch.zeros(3, 3)}), "has shape"),
])
def test_missing_unexpected_or_misshapen_tensors_raise(tmp_path, change, message):
    tiny_snapshot.write(tmp_path, seed=3)
    _rewrite_first_shard(tmp_path, change)
    with pytest.raises(ValueError, match=message):
        loader.load_qalign(tmp_path, "cpu")


def test_missing_files_and_wrong_configs_name_the_file(tmp_path):
    with pytest.raises(FileNotFoundError, match="config.json"):
        loader.load_qalign(tmp_path, "cpu")
    (tmp_path / "config.json").write_text(json.dumps({"model_type": "llama"}))
    with pytest.raises(ValueError, match="mplug_owl2"):
        loader.read_config(tmp_path)
    with pytest.raises(FileNotFoundError, match="no weights"):
        loader.weight_files(tmp_path)


def test_dtypes_by_device_and_by_name(snapshot):
    assert loader.resolve_dtype(None, torch.device("cuda")) == torch.float16
    assert loader.resolve_dtype(None, torch.device("cpu")) == torch.float32
    loaded = loader.load_qalign(snapshot, "cpu", "bfloat16")
    assert {p.dtype for p in loaded.model.parameters()} == {torch.bfloat16}
    with pytest.raises(ValueError, match="expected one of"):
        loader.resolve_dtype("half", torch.device("cpu"))


def test_a_given_config_replaces_config_json(snapshot):
    loaded = loader.load_qalign(snapshot, "cpu", config=config_lib.TINY)
    assert loaded.model.config is config_lib.TINY
    wider = dataclasses.replace(config_lib.TINY, intermediate_size=64)
    with pytest.raises(ValueError, match="has shape"):
        loader.load_qalign(snapshot, "cpu", config=wider)
