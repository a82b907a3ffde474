"""The flow metrics' arithmetic (metrics/flow, as WorldScore's families call it) against
numpy transcriptions and known answers."""

import numpy as np
import pytest

from benchmarks.worldscore import flow_metrics
from metrics.flow import consistency
from metrics.flow import motion_stats


def test_consistent_translation_has_zero_epe():
    f12 = np.full((40, 50, 2), 1.0)
    f12[..., 1] = -2.0
    assert consistency.forward_backward_epe(f12, -f12, crop=flow_metrics.CROP) == 0.0


def test_inconsistent_backward_flow_gives_its_residual():
    f12 = np.zeros((40, 50, 2))
    f21 = np.zeros((40, 50, 2))
    f21[..., 0] = 3.0
    f21[..., 1] = 4.0
    assert consistency.forward_backward_epe(f12, f21, crop=flow_metrics.CROP) == pytest.approx(5.0)


def test_warp_reads_backward_flow_at_rounded_clipped_target():
    # Forward 0.6 px right: q rounds to the next column; the backward flow there is
    # -0.6 except in the last crop column (clipped reads stay inside the crop).
    h, w = 34, 36  # crop 30 -> 4 x 6
    f12 = np.zeros((h, w, 2))
    f12[..., 0] = 0.6
    f21 = np.zeros((h, w, 2))
    f21[..., 0] = -0.6
    f21[15:19, 15 + 5, 0] = 7.0  # crop column 5
    cw = 6
    xs = np.arange(cw)
    rounded = np.clip(np.round(xs + 0.6).astype(int), 0, cw - 1)
    back = np.where(rounded == 5, 7.0, -0.6)
    expected = np.mean(np.abs(xs + 0.6 + back - xs))  # same for every row
    assert consistency.forward_backward_epe(f12, f21, crop=flow_metrics.CROP) == pytest.approx(expected)


def test_lower_median_as_torch_median():
    assert motion_stats.lower_median(np.array([1.0, 2.0, 3.0, 4.0])) == 2.0
    assert motion_stats.lower_median(np.array([5.0, 1.0, 3.0])) == 3.0


def test_scores_average_over_consecutive_pairs():
    frames = [np.zeros((40, 40, 3), np.uint8) + i for i in range(3)]
    calls = []

    def flow(a, b):
        calls.append((int(a[0, 0, 0]), int(b[0, 0, 0])))
        out, d = np.zeros((40, 40, 2)), float(b[0, 0, 0]) - float(a[0, 0, 0])
        out[..., 0], out[..., 1] = 3.0 * d, 4.0 * d
        return out

    assert flow_metrics.magnitude_score(frames, flow) == pytest.approx(5.0)
    assert calls == [(0, 1), (1, 2)]
    calls.clear()
    assert flow_metrics.aepe_score(frames, flow) == 0.0
    assert calls == [(0, 1), (1, 0), (1, 2), (2, 1)]
    with pytest.raises(ValueError):
        flow_metrics.aepe_score(frames[:1], flow)


def _settings(ckpt):
    import types  # pylint: disable=import-outside-toplevel
    from benchmarks.common.flags import CommonConfig  # pylint: disable=import-outside-toplevel
    from metrics.flow.sea_raft import config as sea_config  # pylint: disable=import-outside-toplevel
    return types.SimpleNamespace(
        common=CommonConfig(device="cpu", checkpoint_dir=str(ckpt), offline=True),
        architectures={"sea_raft": sea_config.tiny()})


def test_sea_raft_loads_from_the_hub_snapshot_layout(tmp_path):
    from metrics.checkpoints import resolver  # pylint: disable=import-outside-toplevel
    from metrics.flow.sea_raft import config as sea_config  # pylint: disable=import-outside-toplevel
    from metrics.flow.sea_raft import tiny_checkpoint  # pylint: disable=import-outside-toplevel
    snapshot = tmp_path / flow_metrics.SEA_RAFT_SPRING_M.name
    snapshot.mkdir()
    (snapshot / "config.json").write_text("{}")
    with pytest.raises(resolver.CheckpointUnavailable, match="model.safetensors"):
        flow_metrics.load_sea_raft_flow(_settings(tmp_path), flow_metrics.AEPE)
    tiny = sea_config.tiny()
    tiny_checkpoint.save(tiny_checkpoint.seeded_state_dict(tiny), snapshot / "model.safetensors",
                         tiny)
    flow, ref = flow_metrics.load_sea_raft_flow(_settings(tmp_path), flow_metrics.AEPE)
    frames = np.random.default_rng(0).integers(0, 256, (2, 256, 320, 3), dtype=np.uint8)
    out = flow(frames[0], frames[1])
    assert out.shape == (256, 320, 2) and np.isfinite(out).all()
    assert ref.path == str(snapshot) and ref.metric_id == flow_metrics.AEPE
    assert flow_metrics.sea_raft_backend().parity.verified  # the sea-raft parity rows
