"""CoTracker2 network: the official full-size layout, pinned encodings, the online window."""

import json
import pathlib

import numpy as np
import pytest
import torch

from metrics.tracking import online_history
from metrics.tracking.cotracker2 import config as config_lib
from metrics.tracking.cotracker2 import layers
from metrics.tracking.cotracker2 import model as model_lib
from metrics.tracking.cotracker2 import tiny_checkpoint

TESTDATA = pathlib.Path(__file__).parent / "testdata"


def _numpy_sincos(width, positions):
    frequency = 1.0 / 10000 ** (np.arange(width // 2) / (width / 2.0))
    angles = np.asarray(positions, np.float64)[:, None] * frequency[None]
    return np.concatenate([np.sin(angles), np.cos(angles)], axis=1)


def test_full_size_state_dict_equals_the_official_models_keys_and_shapes():
    with torch.device("meta"):
        state = model_lib.CoTracker2(config_lib.ONLINE_DEFAULT).state_dict()
    ours = [[k, list(v.shape), str(v.dtype).replace("torch.", "")] for k, v in state.items()]
    official = json.loads((TESTDATA / "official_state_dict.json").read_text())["tensors"]
    assert ours == official  # names, order, shapes and dtypes
    assert sum(int(np.prod(s)) for _, s, _ in official) == 51_065_763
    assert config_lib.ONLINE_DEFAULT.input_dim == 456  # hard-coded in co-tracker


def test_stored_tables_are_the_sincos_encodings():
    cfg = config_lib.TINY
    network = model_lib.CoTracker2(cfg)
    np.testing.assert_allclose(network.time_emb[0].numpy(),
                               _numpy_sincos(cfg.input_dim, range(cfg.window_len)), atol=1e-6)
    height, width = cfg.feature_size
    table = network.pos_emb[0].numpy()  # D h w
    half = cfg.input_dim // 2
    assert table.shape == (cfg.input_dim, height, width)
    x_part = _numpy_sincos(half, range(width))  # w, D/2: the first half encodes x
    y_part = _numpy_sincos(half, range(height))
    np.testing.assert_allclose(table[:half, 1], x_part.T, atol=1e-6)
    np.testing.assert_allclose(table[half:, :, 2], y_part.T, atol=1e-6)


def test_flow_encoding_is_linear_frequency_interleaved_sincos():
    flows = torch.tensor([[[0.5, -1.25], [2.0, 0.0]]])
    out = layers.flow_encoding(flows, 8)[0].numpy()
    assert out.shape == (2, 18)
    frequency = np.arange(0, 8, 2) * (1000.0 / 8)
    for row, (dx, dy) in enumerate(flows[0].numpy()):
        want = [dx, dy]
        for value in (dx, dy):
            for f in frequency:
                want += [np.sin(np.float32(value * f)), np.cos(np.float32(value * f))]
        np.testing.assert_allclose(out[row], want, atol=2e-4)


def test_correlation_windows_sample_the_scaled_dot_product_map():
    torch.manual_seed(0)
    level = torch.randn(1, 2, 4, 5, 6)  # B S C h w
    feat = torch.randn(1, 2, 3, 4)  # B S N C
    coords = torch.tensor([[[[1.0, 2.0], [3.0, 1.0], [0.0, 0.0]]]]).repeat(1, 2, 1, 1)
    out = layers.correlation_windows([level], feat, coords, radius=1)  # (B N) S 9
    assert out.shape == (3, 2, 9)
    dots = torch.einsum("snc,schw->snhw", feat[0], level[0]) / 2.0  # sqrt(4)
    # window index 3 * i + j: x offset i - 1 (first axis), y offset j - 1
    for n, (x, y) in enumerate([(1, 2), (3, 1)]):
        for i in range(3):
            for j in range(3):
                want = dots[1, n, y + j - 1, x + i - 1]
                assert out[n, 1, 3 * i + j].item() == pytest.approx(want.item(), abs=1e-5)
    # border padding: the window around (0, 0) repeats the edge
    assert out[2, 0, 0].item() == pytest.approx(dots[0, 2, 0, 0].item(), abs=1e-5)


def test_mask_bias_follows_the_official_shape_rule():
    mask = torch.tensor([[True, False, True]])
    rows = layers._mask_bias(mask, 3, torch.float32)  # pylint: disable=protected-access
    assert rows.shape == (1, 1, 3, 1) and rows[0, 0, 1, 0] < -1e38 and rows[0, 0, 0, 0] == 0
    cols = layers._mask_bias(mask, 4, torch.float32)  # pylint: disable=protected-access
    assert cols.shape == (1, 1, 1, 3) and cols[0, 0, 0, 1] < -1e38


def _network(seed=0):
    network = model_lib.CoTracker2(config_lib.TINY)
    network.load_state_dict(tiny_checkpoint.seeded_state_dict(config_lib.TINY, seed))
    return network.eval()


@torch.no_grad()
def test_online_history_grows_as_the_official_model_and_rewrites_the_window():
    cfg = config_lib.TINY
    network = _network()
    height, width = cfg.model_resolution
    video = torch.rand(1, 14, 3, height, width, generator=torch.Generator().manual_seed(1)) * 255
    queries = torch.tensor([[[0.0, 10.0, 8.0], [0.0, 30.0, 20.0], [5.0, 20.0, 12.0]]])
    state = model_lib.OnlineState()
    lengths, previous = [], None
    for ind in online_history.chunk_starts(14, cfg.step):
        tracks, vis = network.online_step(video[:, ind:ind + cfg.window_len], queries, state)
        lengths.append(tracks.shape[1])
        assert vis.shape == tracks.shape[:3] and ((vis > 0) & (vis < 1)).all()
        if previous is not None:  # frames before the window are kept as they were
            torch.testing.assert_close(tracks[:, :ind], previous[:, :ind], rtol=0, atol=0)
        previous = tracks.clone()
    assert lengths == online_history.history_lengths(14, cfg.window_len) == [8, 12, 14]
    assert state.ind == 12
    # A query's feature is taken once, from the first window holding its frame.
    assert not torch.equal(state.track_feat[0, 0, 2], torch.zeros(cfg.latent_dim))


@torch.no_grad()
def test_a_chunk_longer_than_the_window_is_refused():
    cfg = config_lib.TINY
    video = torch.zeros(1, cfg.window_len + 1, 3, *cfg.model_resolution)
    with pytest.raises(ValueError, match="at most"):
        _network().online_step(video, torch.zeros(1, 1, 3), model_lib.OnlineState())
