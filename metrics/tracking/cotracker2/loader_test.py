"""Loading CoTracker2 checkpoints in the official file formats, strictly."""

import pytest
import torch

from metrics.tracking.cotracker2 import config as config_lib
from metrics.tracking.cotracker2 import loader
from metrics.tracking.cotracker2 import predictor as predictor_lib
from metrics.tracking.cotracker2 import tiny_checkpoint


@pytest.mark.parametrize("wrapped", [False, True])
def test_official_formats_load_into_the_online_predictor(tmp_path, wrapped):
    path = tiny_checkpoint.save_checkpoint(tmp_path, seed=4, wrap_in_model_key=wrapped)
    assert path.name == loader.FILE_NAME
    tracker = loader.load_cotracker2_online(path, config=config_lib.TINY)
    assert isinstance(tracker, predictor_lib.CoTracker2OnlinePredictor)
    assert not tracker.model.training and tracker.visible_above == 0.6
    want = tiny_checkpoint.seeded_state_dict(config_lib.TINY, seed=4)
    got = tracker.model.state_dict()
    assert list(got) == list(want)
    assert all(torch.equal(got[k], want[k]) for k in want)


def test_a_missing_file_names_the_official_file(tmp_path):
    with pytest.raises(FileNotFoundError, match="cotracker2.pth"):
        loader.load_cotracker2_online(tmp_path / "cotracker2.pth", config=config_lib.TINY)


def test_wrong_keys_or_shapes_are_refused_naming_them(tmp_path):
    state = tiny_checkpoint.seeded_state_dict(config_lib.TINY)
    del state["vis_predictor.0.bias"]
    state["extra.weight"] = torch.zeros(1)
    torch.save(state, tmp_path / "cotracker2.pth")
    with pytest.raises(ValueError, match="CoTracker2.*missing vis_predictor.0.bias.*"
                                         "unexpected extra.weight"):
        loader.load_cotracker2_online(tmp_path / "cotracker2.pth", config=config_lib.TINY)
    # A tiny file is not the full-size model.
    tiny_checkpoint.save_checkpoint(tmp_path)
    with pytest.raises(ValueError, match="shape"):
        loader.load_cotracker2_online(tmp_path / "cotracker2.pth")
