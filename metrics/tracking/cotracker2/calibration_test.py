"""The recorded parity run (testdata/calibration.json) is one this code reproduces.

The scratch run compared upstream co-tracker with this package on the weights that
`tiny_checkpoint.seeded_state_dict(ONLINE_DEFAULT, seed=0)` draws; here those weights are
drawn again and their digest compared, so a change to the generator or to the state-dict
layout shows up as a stale calibration instead of silently unsupported figures.
"""

import hashlib
import json
import pathlib

import torch

from metrics.tracking.cotracker2 import config as config_lib
from metrics.tracking.cotracker2 import tiny_checkpoint

CALIBRATION = pathlib.Path(__file__).parent / "testdata" / "calibration.json"


def _load():
    return json.loads(CALIBRATION.read_text(encoding="utf-8"))


def test_the_parity_weights_are_the_seeded_full_size_state_dict():
    state = tiny_checkpoint.seeded_state_dict(config_lib.ONLINE_DEFAULT, seed=0)
    digest = hashlib.sha256()
    for key, tensor in state.items():
        assert tensor.dtype == torch.float32
        digest.update(key.encode())
        digest.update(tensor.contiguous().numpy().tobytes())
    assert digest.hexdigest() == _load()["weights_sha256"]["value"]


def test_the_recorded_runs_agree_in_every_call():
    cal = _load()
    assert cal["upstream"]["commit"].startswith("82e02e8")
    for run in (cal["results"], cal["mirabench_era_check"]):
        assert [c["history_frames"] for c in run["calls"]] == [8, 12, 14]
        assert run["max_abs_track_diff_px"] == 0.0
        assert all(c["visibility_flags_differing"] == 0 for c in run["calls"])
        strength = run["tracking_strength_official_concatenated"]
        assert strength["upstream"] == strength["ours"]
    assert cal["results"]["stored_tables_max_abs_diff_vs_upstream_built"] == {
        "time_emb": 0.0, "pos_emb": 0.0}
