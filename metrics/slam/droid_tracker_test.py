"""The DROID-SLAM loop (droid_tracker.py and its parts) on tiny synthetic sequences with a
tiny random DroidNet saved in droid.pth's format and read by the real loader.

No real weights here: these tests pin structure, determinism and the official quirks,
not numbers of the released network."""

import types

import numpy as np
import pytest
import torch

from metrics.slam import corr
from metrics.slam import droid_motion_filter
from metrics.slam import droid_net
from metrics.slam import tiny_droid_net
from metrics.slam import droid_tracker
from metrics.slam import droid_video

# The official arguments and internals (benchmarks keep the real settings objects).
ARGS = dict(buffer=512, filter_thresh=0.01, warmup=8, beta=0.3, keyframe_thresh=4.0,
            frontend_thresh=16.0, frontend_window=25, frontend_radius=2, frontend_nms=1,
            backend_thresh=22.0, backend_radius=2, backend_nms=3, upsample=True)
INTERNALS = types.SimpleNamespace(
    frontend_max_factors=48, frontend_max_age=25, frontend_iters=(4, 2), init_iters=(8, 8),
    init_neighborhood_radius=3, init_proximity_rad=2, init_proximity_nms=2,
    init_proximity_beta=0.25, backend_factors_per_keyframe=16, filler_batch=16,
    filler_iters=6, frontend_ba=(1e-4, 0.1), backend_ba=(1e-5, 1e-2), damping_scale=0.2,
    damping_eps=1e-7)
INTRINSICS = torch.tensor([60.0, 60.0, 32.0, 32.0])


def _args(**over):
    return types.SimpleNamespace(**{**ARGS, **over})


def _frames(n=12, step=3, seed=0):
    """A random texture panned `step` px per frame: n frames of 64 x 64 BGR uint8."""
    tex = (np.random.default_rng(seed).random((64, 64 + step * n, 3)) * 255).astype(np.uint8)
    return [(t, torch.as_tensor(np.ascontiguousarray(tex[:, step * t:step * t + 64]))
             .permute(2, 0, 1)[None], INTRINSICS.clone()) for t in range(n)]


@pytest.fixture(scope="module")
def net(tmp_path_factory):
    torch.set_num_threads(1)  # the tiny ops lose far more to thread hand-offs than they gain
    path = tmp_path_factory.mktemp("ckpt") / "droid.pth"
    tiny_droid_net.save_tiny(path, seed=0)
    return droid_net.load_droid_net(path, "cpu", tiny_droid_net.TINY)


@pytest.fixture(scope="module")
def run(net):
    return droid_tracker.track_sequence(net, _frames(), _args(), INTERNALS, (7, 12))


def test_end_to_end_structure(run):
    traj = run.trajectory
    assert traj.shape == (12, 7) and traj.dtype == np.float32
    assert np.isfinite(traj).all()
    np.testing.assert_allclose(np.linalg.norm(traj[:, 3:], axis=1), 1.0, atol=1e-5)
    assert run.motion_filter_kept == 12  # random features move more than 0.01 px
    stamps = run.keyframe_tstamps
    assert 2 <= len(stamps) <= 12 and stamps[:8] == tuple(float(t) for t in range(8))
    e = run.coords1.shape[1]
    assert e > 0 and run.coords1.shape == (1, e, 8, 8, 2)
    assert run.valid.shape == (1, e, 8, 8, 1) and run.target.shape == (e, 2, 8, 8)
    assert set(run.valid.unique().tolist()) <= {0.0, 1.0}
    error = torch.sqrt(((run.coords1[0] - run.target.permute(0, 2, 3, 1)) ** 2).sum(-1))
    assert torch.isfinite(error[run.valid[0, ..., 0] > 0]).all()


def test_every_frame_a_keyframe_when_nothing_is_close_and_deterministic(net):
    def once():
        return droid_tracker.track_sequence(net, _frames(9), _args(keyframe_thresh=-1.0),
                                            INTERNALS, (2,))
    out, again = once(), once()
    assert out.keyframe_tstamps == tuple(float(t) for t in range(9))
    assert out.trajectory.shape == (9, 7) and np.isfinite(out.trajectory).all()
    np.testing.assert_array_equal(again.trajectory, out.trajectory)
    assert torch.equal(again.target, out.target) and torch.equal(again.valid, out.valid)


def test_a_single_keyframe_fails_like_the_official_backend(net):
    frames = _frames(3, step=0)
    with pytest.raises(ValueError, match="no proximity edge over 1 keyframe"):
        droid_tracker.track_sequence(net, frames, _args(filter_thresh=1e9), INTERNALS, (7, 12))


def _constant_delta_net(net, value):
    """A copy of `net` whose flow revision is `value` in x everywhere (|delta| = value)."""
    out = droid_net.DroidNet(net.config).eval()
    out.load_state_dict(net.state_dict())
    last = out.update.delta[2]
    with torch.no_grad():
        last.weight.zero_()
        last.bias.copy_(torch.tensor([value, 0.0]))
    return out


@pytest.mark.parametrize("thresh, kept", [(0.5, 1), (0.2, 5)])
def test_motion_filter_threshold_and_first_frame(net, thresh, kept):
    model = _constant_delta_net(net, 0.3)  # mean flow 0.3 whatever the frames
    video = droid_video.DepthVideo((64, 64), 8, 8, 8)
    filt = droid_motion_filter.MotionFilter(model, video, thresh, droid_video.Amp("cpu"))
    frames = _frames(5, step=0)  # static
    added = [filt.track(t, img, k) for t, img, k in frames]
    assert added == [True] + [kept > 1] * 4 and video.counter == kept
    assert filt.last_flow == pytest.approx(0.3, abs=1e-6)
    # Official quirk: keyframe 0 stores channel 0 of its GRU state / context in every
    # channel; later keyframes store the full maps (the filter keeps the last one's).
    for buf in (video.nets, video.inps):
        assert torch.equal(buf[0], buf[0, :1].expand_as(buf[0]))
    assert not torch.equal(filt.net[0], filt.net[0, :1].expand_as(filt.net[0]))
    if kept > 1:
        assert torch.equal(video.nets[kept - 1], filt.net[0])
    np.testing.assert_allclose(video.intrinsics[0].numpy(), INTRINSICS.numpy() / 8)


def test_copy_keyframe_keeps_the_timestamp_and_normalize():
    video = droid_video.DepthVideo((16, 16), 4, 2, 2)
    for t in range(3):
        video.append(10.0 + t, pose=torch.tensor([t, 0, 0, 0, 0, 0, 1.0]), disp=float(t + 1))
    video.copy_keyframe(1)
    assert video.tstamp[:3].tolist() == [10.0, 11.0, 12.0]  # not shifted (official quirk)
    assert video.poses[1, 0].item() == 2.0 and video.disps[1, 0, 0].item() == 3.0
    video.normalize()  # mean disparity of (1, 3, 3) = 7/3 -> 1
    assert video.disps[:3].mean().item() == pytest.approx(1.0)
    assert video.poses[1, 0].item() == pytest.approx(2.0 * 7 / 3)


def test_corr_block_cat_and_index_equal_one_block():
    gen = torch.Generator().manual_seed(0)
    f1, f2 = (torch.randn(1, 5, 8, 8, 8, generator=gen) for _ in range(2))
    coords = torch.rand(1, 5, 8, 8, 2, generator=gen) * 7
    whole = corr.CorrBlock(f1, f2)
    joined = corr.CorrBlock(f1[:, :2], f2[:, :2]).cat(corr.CorrBlock(f1[:, 2:], f2[:, 2:]))
    assert torch.equal(joined(coords), whole(coords))
    keep = torch.tensor([True, False, True, True, False])
    assert torch.equal(whole[keep](coords[:, keep]), whole(coords)[:, keep])


def test_alt_corr_in_edge_batches_equals_one_call():
    from metrics.slam import droid_factor_graph  # pylint: disable=import-outside-toplevel
    gen = torch.Generator().manual_seed(1)
    op = corr.AltCorrBlock(torch.randn(1, 4, 8, 8, 8, generator=gen))
    ii, jj = torch.tensor([0, 1, 2, 3, 0, 1, 2, 3, 0, 2, 1]), torch.tensor([1, 2, 3, 0, 2, 3, 0, 1, 3, 1, 0])
    coords = torch.rand(1, 11, 8, 8, 2, generator=gen) * 7
    batched = droid_factor_graph._alt_corr(op, coords, ii, jj)  # pylint: disable=protected-access
    assert torch.allclose(batched, op(coords, ii, jj), atol=1e-6, rtol=0)
