"""The //metrics/flow/sea_raft:flow_stats binary (its main called in-process, and once
run as a subprocess: binary_runner) on a tiny seeded
checkpoint and its official-format config JSON; expected values from the library."""

import json

import cv2
import numpy as np

from metrics.flow import consistency
from metrics.flow import motion_stats
from metrics.flow.sea_raft import config
from metrics.flow.sea_raft import flow as flow_lib
from metrics.flow.sea_raft import model
from metrics.flow.sea_raft import tiny_checkpoint
from metrics.testing import binary_runner

_BINARY = binary_runner.Binary("metrics/flow/sea_raft", "flow_stats",
                               "metrics.flow.sea_raft.cli")
TINY = config.tiny()


def _setup(tmp_path):
    rng = np.random.default_rng(0)
    base = cv2.GaussianBlur(rng.uniform(0, 255, (260, 300, 3)).astype(np.float32), (0, 0), 2)
    frames = [np.clip(np.roll(base, 2 * t, axis=1), 0, 255).astype(np.uint8) for t in range(3)]
    folder = tmp_path / "clip"
    folder.mkdir()
    for t, frame in enumerate(frames):
        assert cv2.imwrite(str(folder / f"{t:03d}.png"), frame)
    state = tiny_checkpoint.seeded_state_dict(TINY, seed=2)
    checkpoint = tiny_checkpoint.save(state, tmp_path / "tiny.pth")
    fields = {"name": "tiny", "use_var": True, "var_min": 0, "var_max": 10, "lr": 4e-4,
              "pretrain": TINY.pretrain, "initial_dim": TINY.initial_dim,
              "block_dims": list(TINY.block_dims), "radius": TINY.radius, "dim": TINY.dim,
              "num_blocks": TINY.num_blocks, "iters": TINY.iters, "scale": TINY.scale}
    (tmp_path / "tiny.json").write_text(json.dumps(fields))
    net = model.SeaRaft(TINY)
    net.load_state_dict(state)
    return frames, folder, checkpoint, flow_lib.SeaRaftFlow(net.eval())


def test_json_record_matches_the_library(tmp_path):
    frames, folder, checkpoint, flow = _setup(tmp_path)
    record = _BINARY.run_json(tmp_path, f"--frames={folder}", f"--checkpoint={checkpoint}",
                              f"--config_json={tmp_path / 'tiny.json'}")
    indices = [0, 1, 2]
    lookup = lambda i, j: flow(frames[i], frames[j])  # noqa: E731
    assert record["aepe"] == consistency.clip_forward_backward_epe(indices, lookup)
    assert record["median_magnitude"] == motion_stats.clip_motion_magnitude(indices, lookup)
    assert record["median_magnitude"] > 0
    assert (record["num_frames"], record["frame_size"], record["flow_size"]) == (
        3, [300, 260], [300, 260])
    assert (record["backend"], record["official"], record["autocast"]) == ("sea-raft", True, False)
    assert len(record["pairs"]) == 2


def test_text_output_and_bad_input(tmp_path):
    _, folder, checkpoint, _ = _setup(tmp_path)
    tiny_json = f"--config_json={tmp_path / 'tiny.json'}"
    done = _BINARY.run(tmp_path, f"--frames={folder}", f"--checkpoint={checkpoint}", tiny_json,
                       "--device=cpu")
    assert done.returncode == 0, done.stderr
    assert "pair 1->2:" in done.stdout and "median_magnitude:" in done.stdout
    # The default architecture is the full-size spring-M: the tiny file does not fit it.
    done = _BINARY.run(tmp_path, f"--frames={folder}", f"--checkpoint={checkpoint}",
                       "--device=cpu")
    assert done.returncode == 2 and "not a SEA-RAFT checkpoint of this config" in done.stderr
    done = _BINARY.run_subprocess(tmp_path, f"--frames={folder}",
                                  f"--checkpoint={tmp_path / 'no.pth'}", tiny_json, "--device=cpu")
    assert done.returncode == 2 and "does not exist" in done.stderr
