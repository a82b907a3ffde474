"""CoTracker3 network: the official full-size layout, and pinned numerical details."""

import json
import pathlib

import numpy as np
import pytest
import torch

from metrics.tracking.cotracker3 import config as config_lib
from metrics.tracking.cotracker3 import correlation
from metrics.tracking.cotracker3 import model as model_lib
from metrics.tracking.cotracker3 import tiny_checkpoint

OFFICIAL_LAYOUT = pathlib.Path(__file__).parent / "testdata" / "official_state_dict.json"


def test_full_size_state_dict_equals_the_official_models_keys_and_shapes():
    with torch.device("meta"):
        state = model_lib.CoTracker3Offline(config_lib.OFFLINE_DEFAULT).state_dict()
    ours = [[k, list(v.shape), str(v.dtype).replace("torch.", "")] for k, v in state.items()]
    official = json.loads(OFFICIAL_LAYOUT.read_text(encoding="utf-8"))["tensors"]
    assert ours == official  # names, order, shapes and dtypes
    assert sum(int(np.prod(s)) for _, s, _ in official) == 25_452_300
    assert config_lib.OFFLINE_DEFAULT.input_dim == 1110  # hard-coded in co-tracker


def test_full_size_time_embedding_is_the_sincos_table():
    table = correlation.sincos_time_embedding(1110, 60)
    assert table.shape == (1, 60, 1110)
    frequency = 1.0 / 10000 ** (np.arange(555) / 555.0)
    angles = np.arange(60)[:, None] * frequency[None]
    expected = np.concatenate([np.sin(angles), np.cos(angles)], axis=1)
    np.testing.assert_allclose(table[0].numpy(), expected, atol=1e-6)


def test_time_embedding_is_resampled_linearly_without_aligned_corners():
    stored = torch.arange(8, dtype=torch.float32).reshape(1, 8, 1).repeat(1, 1, 2)
    assert correlation.time_embedding_for(stored, 8) is stored
    out = correlation.time_embedding_for(stored, 3)[0, :, 0].numpy()
    # align_corners=False: output i samples source (i + 0.5) * 8 / 3 - 0.5.
    np.testing.assert_allclose(out, [(i + 0.5) * 8 / 3 - 0.5 for i in range(3)], rtol=1e-6)


def test_sample_uses_pixel_centres_and_border_padding():
    xs = torch.arange(5, dtype=torch.float32).reshape(1, 1, 1, 5).repeat(1, 1, 4, 1)
    points = torch.tensor([[[[1.25, 2.0], [-3.0, 0.0], [9.0, 1.0]]]])
    out = correlation.sample(xs, points)[0, 0, 0]
    np.testing.assert_allclose(out.numpy(), [1.25, 0.0, 4.0], atol=1e-6)


def test_window_first_axis_moves_x_second_moves_y():
    """co-tracker's windows are transposed image patches; the correlation MLP expects it."""
    offsets = correlation.window_offsets(1)
    assert offsets[0, 2].tolist() == [0.0, -1.0, 1.0]  # (t, dx, dy)
    x_ramp = torch.arange(16, dtype=torch.float32).reshape(1, 1, 1, 1, 16).repeat(1, 1, 1, 12, 1)
    window = correlation.track_windows(x_ramp, torch.tensor([[[5.0, 6.0]]]), 1)[0, 0, 0, :, :, 0]
    np.testing.assert_allclose(window[:, 0].numpy(), [4.0, 5.0, 6.0], atol=1e-5)
    np.testing.assert_allclose(window[0].numpy(), [4.0, 4.0, 4.0], atol=1e-5)


def test_query_windows_read_the_query_frame():
    maps = torch.arange(3, dtype=torch.float32).reshape(1, 3, 1, 1, 1).repeat(1, 1, 2, 6, 6)
    windows = correlation.query_windows(maps, torch.tensor([[[2.0, 3.0, 3.0], [1.0, 0.0, 0.0]]]), 1)
    assert windows.shape == (1, 2, 3, 3, 2)
    assert torch.all(windows[0, 0] == 2) and torch.all(windows[0, 1] == 1)


def test_activations_exact_gelu_in_correlation_mlp_tanh_in_transformer():
    network = model_lib.CoTracker3Offline(config_lib.TINY)
    assert network.corr_mlp.act.approximate == "none"
    assert network.updateformer.time_blocks[0].mlp.act.approximate == "tanh"
    assert network.updateformer.space_point2virtual_blocks[0].norm_context.eps == 1e-5
    assert network.updateformer.time_blocks[0].norm1.eps == 1e-6


def test_space_step_runs_after_every_kth_time_block():
    cfg = config_lib.CoTracker3Config(**{**config_lib.TINY.__dict__, "time_depth": 4,
                                         "space_depth": 2})
    former = model_lib.CoTracker3Offline(cfg).updateformer
    calls = []
    for name in ("time_blocks", "space_virtual_blocks"):
        for i, block in enumerate(getattr(former, name)):
            block.register_forward_hook(lambda *_, tag=(name, i): calls.append(tag))
    former(torch.zeros(1, 3, 5, cfg.input_dim))
    assert calls == [("time_blocks", 0), ("space_virtual_blocks", 0), ("time_blocks", 1),
                     ("time_blocks", 2), ("space_virtual_blocks", 1), ("time_blocks", 3)]


def test_config_rejects_impossible_sizes():
    with pytest.raises(ValueError, match="multiple of stride"):
        config_lib.CoTracker3Config(model_resolution=(30, 48))
    with pytest.raises(ValueError, match="space_depth"):
        config_lib.CoTracker3Config(time_depth=3, space_depth=2)


def test_tiny_forward_shapes_ranges_and_determinism():
    network = model_lib.CoTracker3Offline(config_lib.TINY).eval()
    network.load_state_dict(tiny_checkpoint.seeded_state_dict(seed=3))
    video = torch.rand(1, 5, 3, 32, 48, generator=torch.Generator().manual_seed(0)) * 255
    queries = torch.tensor([[[0.0, 10.0, 12.0], [3.0, 30.0, 20.0]]])
    with torch.no_grad():
        coords, vis, conf = network(video, queries, iters=2)
        again = network(video, queries, iters=2)[0]
        one_iter = network(video, queries, iters=1)[0]
    assert coords.shape == (1, 5, 2, 2) and vis.shape == conf.shape == (1, 5, 2)
    assert torch.all((vis > 0) & (vis < 1)) and torch.all((conf > 0) & (conf < 1))
    assert torch.equal(coords, again)
    assert not torch.allclose(coords, one_iter)  # iterations refine
    with pytest.raises(ValueError, match="multiple of stride"):
        network(video[..., :30, :], queries)


def test_encoder_is_per_frame_so_chunking_does_not_matter():
    network = model_lib.CoTracker3Offline(config_lib.TINY).eval()
    video = torch.rand(1, 3, 3, 32, 48, generator=torch.Generator().manual_seed(1)) * 255
    with torch.no_grad():
        together = network.features(video)[0]
        alone = network.features(video[:, 1:2])[0]
    torch.testing.assert_close(together[:, 1:2], alone, rtol=1e-4, atol=1e-5)
    norms = together.norm(dim=2)
    torch.testing.assert_close(norms, torch.ones_like(norms), rtol=1e-5, atol=1e-5)
