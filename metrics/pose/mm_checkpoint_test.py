"""Reading mmengine checkpoint files: numpy meta, foreign objects as placeholders, strict
key checks."""

import numpy as np
import pytest
import torch

from metrics.pose import mm_checkpoint


class HistoryBuffer:  # pickled as metrics.pose.mm_checkpoint_test.HistoryBuffer
    def __init__(self):
        self.log = [1.0, 2.0]


def test_reads_state_dict_past_numpy_and_foreign_objects(tmp_path):
    state = {"layer.weight": torch.arange(6.0).reshape(2, 3)}
    path = tmp_path / "ckpt.pth"
    torch.save({"meta": {"dataset_meta": {"sigmas": np.ones(17, np.float32)}},
                "message_hub": {"log": HistoryBuffer()}, "state_dict": state}, str(path))
    got = mm_checkpoint.read_state_dict(path, "test")
    assert list(got) == ["layer.weight"]
    torch.testing.assert_close(got["layer.weight"], state["layer.weight"])
    bare = tmp_path / "bare.pth"
    torch.save(state, str(bare))  # no "state_dict" entry: the file itself
    assert list(mm_checkpoint.read_state_dict(bare, "test")) == ["layer.weight"]


def test_refuses_files_without_tensors(tmp_path):
    path = tmp_path / "odd.pth"
    torch.save({"state_dict": {"a": 1}}, str(path))
    with pytest.raises(ValueError, match="odd.pth: expected an OpenMMLab test checkpoint"):
        mm_checkpoint.read_state_dict(path, "test")


def test_load_strict_names_the_mismatch():
    model = torch.nn.Linear(3, 2)
    state = {"weight": torch.zeros(2, 3), "bias": torch.zeros(2),
             "data_preprocessor.mean": torch.zeros(3)}  # ignored, as mmengine's buffers
    mm_checkpoint.load_strict(model, state, "f.pth")
    with pytest.raises(ValueError, match=r"f.pth: .*wrong shape: \['bias'\]"):
        mm_checkpoint.load_strict(model, {"weight": torch.zeros(2, 3),
                                          "bias": torch.zeros(3)}, "f.pth")
