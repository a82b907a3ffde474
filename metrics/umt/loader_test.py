"""metrics.umt.loader: upstream's strict=False load of a file in the official form, what it
leaves missing, and the refusals that keep a score off random weights."""

import pytest
import torch

from metrics.checkpoints import state_dict as state_dict_lib
from metrics.umt import loader
from metrics.umt import tiny_umt
from metrics.umt import vit

TINY = tiny_umt.TINY


@pytest.fixture(scope="module")
def official_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("umt") / "l16_ptk710_ftk710_ftk400_f16_res224.pth"
    return path, tiny_umt.write_checkpoint(path, TINY, seed=3)


def test_the_official_form_leaves_only_the_position_table_missing(official_file):
    path, saved = official_file
    model, report = loader.load_umt(path, "cpu", TINY)
    # Exactly what upstream's load_state_dict(strict=False) reports for such a file.
    assert report == loader.LoadReport(missing_keys=("pos_embed",), unexpected_keys=())
    assert not model.training
    loaded = model.state_dict()
    for key, value in saved.items():
        assert value.dtype == torch.float16
        assert torch.equal(loaded[key], value.float()), key  # widened exactly
    # The model keeps UMT's own interpolated table.
    assert torch.equal(loaded["pos_embed"], vit.position_table(TINY))


def test_a_file_with_the_table_and_extra_keys_loads_them_as_upstream(tmp_path):
    state = tiny_umt.random_state(TINY, seed=4, with_pos_embed=True)
    state["pos_embed"] = state["pos_embed"] + 1.0
    state["norm.weight"] = torch.ones(TINY.embed_dim)  # not in the model: ignored
    torch.save(state, tmp_path / "umt.pth")
    model, report = loader.load_umt(tmp_path / "umt.pth", "cpu", TINY)
    assert report == loader.LoadReport(missing_keys=(), unexpected_keys=("norm.weight",))
    assert torch.equal(model.pos_embed.detach(), state["pos_embed"])


def test_a_wrapped_state_dict_is_refused(official_file, tmp_path):
    """Upstream would load nothing from {"model": ...} and score with random weights."""
    path, _ = official_file
    torch.save({"model": state_dict_lib.load(path)}, tmp_path / "wrapped.pth")
    with pytest.raises(ValueError, match="flat dict of tensors"):
        loader.load_umt(tmp_path / "wrapped.pth", "cpu", TINY)


def test_missing_network_tensors_are_refused(tmp_path):
    state = tiny_umt.random_state(TINY, seed=5)
    del state["blocks.1.attn.q_bias"]
    renamed = {"module." + k: v for k, v in tiny_umt.random_state(TINY, seed=5).items()}
    torch.save(state, tmp_path / "missing.pth")
    torch.save(renamed, tmp_path / "renamed.pth")
    with pytest.raises(ValueError, match=r"1 of the UMT network's tensors.*q_bias"):
        loader.load_umt(tmp_path / "missing.pth", "cpu", TINY)
    with pytest.raises(ValueError, match="tensors are not in the file"):
        loader.load_umt(tmp_path / "renamed.pth", "cpu", TINY)


def test_a_tensor_of_another_shape_fails_as_upstream(tmp_path):
    state = tiny_umt.random_state(TINY, seed=6)
    state["head.weight"] = torch.zeros(TINY.num_classes + 1, TINY.embed_dim)
    torch.save(state, tmp_path / "shape.pth")
    with pytest.raises(RuntimeError, match="size mismatch for head.weight"):
        loader.load_umt(tmp_path / "shape.pth", "cpu", TINY)


def test_an_unreadable_file_is_refused(tmp_path):
    (tmp_path / "bad.pth").write_bytes(b"not a checkpoint")
    with pytest.raises(ValueError, match="UMT state dict"):
        loader.load_umt(tmp_path / "bad.pth", "cpu", TINY)
