"""droid_slam.py: the settings equal the arguments the official metrics build (recorded by
calibration/camera_error_official_run.py), and the droid.pth pin."""

import json
import pathlib

import pytest

from benchmarks.worldscore import droid_slam

_OFFICIAL = pathlib.Path(__file__).parent / "calibration" / "camera_error_official.json"
_WEIGHTS = "./worldscore/benchmark/metrics/checkpoints/droid.pth"


@pytest.mark.parametrize("metric", ["camera_error", "reprojection_error"])
def test_settings_are_the_official_arguments(metric):
    official = json.loads(_OFFICIAL.read_text())["settings"][metric]
    ours = droid_slam.OFFICIAL.official_args(_WEIGHTS, (512, 512))
    del ours["image_size"]  # set by the metric from the first frame
    assert ours == official
    assert all(type(ours[k]) is type(official[k]) for k in official)  # 4.0 stays a float


def test_terminate_runs_global_ba_7_then_12_and_the_frozen_settings():
    assert droid_slam.OFFICIAL.backend_steps == (7, 12)
    with pytest.raises(AttributeError):
        droid_slam.OFFICIAL.stride = 2  # pylint: disable=assigning-non-slot


def test_droid_pth_fetch_command_is_the_readme_drive_id():
    cmd = droid_slam.DROID_PTH.fetch_command("/ckpt")
    assert "1PpqVt1H4maBa_GbPJp4NwxRsd9jk-elh" in cmd and cmd.endswith("/ckpt/droid_slam/droid.pth")
    assert droid_slam.DROID_PTH.sha256 == ""  # no digest is published: not pinned


def test_runtime_profile_pins_droid_pth_for_both_droid_metrics():
    from benchmarks.common import runtime_profiles  # pylint: disable=import-outside-toplevel
    by_id = {m.metric_id: m for m in runtime_profiles.load_profile("worldscore").metrics}
    s = droid_slam.DROID_PTH
    for metric in ("camera_error", "reprojection_error"):
        got = [(c.name, c.id, c.url, c.file, c.sha256, c.license, c.approx_size_bytes,
                c.fetch_command) for c in by_id[metric].checkpoints]
        assert got == [(s.name, s.hf_repo, s.url, s.filename, s.sha256, s.license,
                        s.approx_size_bytes, s.fetch_command())], metric


def _config(ckpt):
    import types  # pylint: disable=import-outside-toplevel
    from benchmarks.common.flags import CommonConfig  # pylint: disable=import-outside-toplevel
    from metrics.slam import tiny_droid_net  # pylint: disable=import-outside-toplevel
    return types.SimpleNamespace(
        common=CommonConfig(device="cpu", checkpoint_dir=str(ckpt), offline=True),
        architectures={"droid_net": tiny_droid_net.TINY})


def test_network_resolves_droid_pth_or_is_unavailable_with_the_fetch_command(tmp_path):
    from metrics.checkpoints import resolver  # pylint: disable=import-outside-toplevel
    from metrics.slam import tiny_droid_net  # pylint: disable=import-outside-toplevel
    with pytest.raises(resolver.CheckpointUnavailable, match="curl -L https://drive.google"):
        droid_slam.load_network(_config(tmp_path), "camera_control.camera_error")
    folder = tmp_path / droid_slam.DROID_PTH.name
    folder.mkdir()
    tiny = tiny_droid_net.save_tiny(folder / droid_slam.DROID_PTH.filename)
    net, ref = droid_slam.load_network(_config(tmp_path), "camera_control.camera_error")
    assert not net.training and ref.path == str(folder / "droid.pth")
    assert all(v.equal(net.state_dict()[k]) for k, v in tiny.state_dict().items())
    assert not ref.pinned_digest_matched  # no published digest


def test_internals_equal_the_vendored_droid_slam():
    official = json.loads(_OFFICIAL.read_text())["internals"]
    ours = droid_slam.INTERNALS
    assert ours.frontend_max_factors == official["frontend_max_factors"] == 48
    assert ours.frontend_max_age == official["frontend_max_age"]
    assert list(ours.frontend_iters) == official["frontend_iters"]
    assert [list(ours.frontend_ba), list(ours.backend_ba)] == official["ba_lm_ep"]
