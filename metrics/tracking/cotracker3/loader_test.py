"""Loading the official checkpoint format, with a tiny random model saved by the test."""

import pytest
import torch

from metrics.tracking.cotracker3 import config as config_lib
from metrics.tracking.cotracker3 import loader
from metrics.tracking.cotracker3 import model as model_lib
from metrics.tracking.cotracker3 import predictor as predictor_lib
from metrics.tracking.cotracker3 import tiny_checkpoint

TINY = config_lib.TINY


def _clip():
    generator = torch.Generator().manual_seed(5)
    video = torch.rand(1, 6, 3, 45, 70, generator=generator) * 255
    mask = torch.zeros(1, 1, 45, 70, dtype=torch.uint8)
    mask[..., 10:40, 5:50] = 255
    return video, mask


@pytest.mark.parametrize("wrapped", [False, True])
def test_official_file_loads_and_tracks_like_the_in_memory_model(tmp_path, wrapped):
    path = tiny_checkpoint.save_checkpoint(tmp_path, TINY, seed=1, wrap_in_model_key=wrapped)
    tracker = loader.load_cotracker3_offline(path, config=TINY)
    assert loader.BACKEND_NAME == "cotracker3-offline"
    assert isinstance(tracker, predictor_lib.CoTracker3Predictor)
    assert not tracker.model.training
    reference = model_lib.CoTracker3Offline(TINY).eval()
    reference.load_state_dict(tiny_checkpoint.seeded_state_dict(TINY, seed=1))
    video, mask = _clip()
    args = dict(grid_size=5, grid_query_frame=2, backward_tracking=True, segm_mask=mask)
    tracks, visible = tracker.track(video, **args)
    expected = predictor_lib.CoTracker3Predictor(reference, TINY.model_resolution).track(video,
                                                                                        **args)
    assert tracks.shape == (1, 6, visible.shape[2], 2) and visible.dtype == torch.bool
    assert 0 < visible.shape[2] < 25
    assert torch.equal(tracks, expected[0]) and torch.equal(visible, expected[1])


def test_seeds_give_different_weights_and_outputs(tmp_path):
    first = loader.load_cotracker3_offline(
        tiny_checkpoint.save_checkpoint(tmp_path, TINY, seed=1), config=TINY)
    (tmp_path / "b").mkdir()
    second = loader.load_cotracker3_offline(
        tiny_checkpoint.save_checkpoint(tmp_path / "b", TINY, seed=2), config=TINY)
    video, _ = _clip()
    assert not torch.equal(first.track(video, grid_size=3)[0], second.track(video, grid_size=3)[0])


def test_stored_time_embedding_is_loaded_not_recomputed(tmp_path):
    state = tiny_checkpoint.seeded_state_dict(TINY)
    state["time_emb"] = torch.full_like(state["time_emb"], 0.25)
    torch.save(state, tmp_path / "x.pth")
    tracker = loader.load_cotracker3_offline(tmp_path / "x.pth", config=TINY)
    assert torch.all(tracker.model.time_emb == 0.25)


def test_missing_file_names_the_path(tmp_path):
    with pytest.raises(FileNotFoundError, match="nope.pth"):
        loader.load_cotracker3_offline(tmp_path / "nope.pth", config=TINY)


def test_prefixed_keys_are_not_stripped_as_co_tracker_does_not(tmp_path):
    state = {"module." + k: v for k, v in tiny_checkpoint.seeded_state_dict(TINY).items()}
    torch.save(state, tmp_path / "prefixed.pth")
    with pytest.raises(ValueError, match=r"prefixed\.pth: .*missing corr_mlp.*unexpected module\."):
        loader.load_cotracker3_offline(tmp_path / "prefixed.pth", config=TINY)


def test_a_checkpoint_for_another_size_is_refused_with_the_shapes(tmp_path):
    path = tiny_checkpoint.save_checkpoint(tmp_path, TINY)
    expected = r"shape time_emb: \(1, 8, 102\) \(expected \(1, 60, 1110\)"
    with pytest.raises(ValueError, match=expected):
        loader.load_cotracker3_offline(path)  # the full-size default config


def test_non_checkpoints_are_refused(tmp_path):
    (tmp_path / "text.pth").write_text("not a checkpoint")
    with pytest.raises(ValueError, match="text.pth: not a readable torch checkpoint"):
        loader.load_cotracker3_offline(tmp_path / "text.pth", config=TINY)
    torch.save([1, 2], tmp_path / "list.pth")
    with pytest.raises(ValueError, match="list.pth: expected a state dict"):
        loader.load_cotracker3_offline(tmp_path / "list.pth", config=TINY)
