"""The one checkpoint reader: what it reads, and its one error path for bad files."""

import pathlib

import pytest
import torch

from metrics.checkpoints import state_dict


def _saved(tmp_path: pathlib.Path, obj, name="ok.pth", **kwargs) -> pathlib.Path:
    path = tmp_path / name
    torch.save(obj, path, **kwargs)
    return path


def test_reads_a_state_dict_and_a_nested_one(tmp_path):
    weights = {"w": torch.arange(6.0).reshape(2, 3)}
    got = state_dict.read_state_dict(_saved(tmp_path, weights))
    assert torch.equal(got["w"], weights["w"])
    nested = _saved(tmp_path, {"model": weights, "epoch": 3}, "nested.pth")
    assert torch.equal(state_dict.read_state_dict(nested, key="model")["w"], weights["w"])
    with pytest.raises(ValueError, match="nested.pth: expected a state dict under 'module'"):
        state_dict.read_state_dict(nested, key="module")


def test_mmap_reads_both_formats(tmp_path):
    weights = {"w": torch.ones(4)}
    for name, legacy in (("zip.pth", False), ("legacy.pth", True)):
        path = _saved(tmp_path, weights, name, _use_new_zipfile_serialization=not legacy)
        assert torch.equal(state_dict.load(path, mmap=True)["w"], weights["w"])


@pytest.mark.parametrize("name,content", [
    ("truncated.pth", None),  # the first half of a real checkpoint
    ("text.pth", b"this is not a checkpoint\n"),
    ("empty.pth", b""),
])
def test_a_bad_file_is_one_error_naming_it(tmp_path, name, content):
    path = tmp_path / name
    if content is None:
        whole = _saved(tmp_path, {"w": torch.zeros(1000)}).read_bytes()
        content = whole[:len(whole) // 2]
    path.write_bytes(content)
    with pytest.raises(state_dict.CheckpointUnreadable,
                       match=f"{name}: not a readable torch file") as caught:
        state_dict.read_state_dict(path)
    assert isinstance(caught.value, ValueError) and caught.value.path == str(path)
    with pytest.raises(ValueError, match=f"{name}: expected the XYZ weights"):
        state_dict.load(path, unreadable="expected the XYZ weights")


class Pickled:
    """An object whose unpickling would run this module's code."""

    def __init__(self, value):
        self.value = value


def test_pickled_code_is_refused_unless_allowed(tmp_path):
    path = _saved(tmp_path, {"obj": Pickled(3)}, "code.pth")
    with pytest.raises(state_dict.CheckpointUnreadable, match="code.pth: not a readable"):
        state_dict.load(path)
    assert state_dict.load(path, safe_globals=[Pickled])["obj"].value == 3


def test_not_a_dict_and_missing_file(tmp_path):
    with pytest.raises(ValueError, match="list.pth: expected a state dict, found list"):
        state_dict.read_state_dict(_saved(tmp_path, [torch.zeros(1)], "list.pth"))
    with pytest.raises(FileNotFoundError, match="absent.pth"):
        state_dict.load(tmp_path / "absent.pth")
