"""CoTracker3 offline point tracking in plain PyTorch: loading the official checkpoint.

    from metrics.tracking.cotracker3 import loader
    tracker = loader.load_cotracker3_offline("scaled_offline.pth", device="cuda")
    tracks, visible = tracker.track(video, grid_size=30, backward_tracking=True,
                                    segm_mask=mask)

co-tracker's `build_cotracker` reads the file with `torch.load(map_location="cpu")`,
takes its "model" entry when there is one, and loads the rest strictly, with no key
renaming or prefix stripping; the official model's state dict has 188 tensors (25,452,300
values), the stored time embedding `time_emb` included. This module does the same, with
errors that name the file and what was expected.

What is verified (tests in this package and //tools/calibration:cotracker3_parity_test):
the full-size network's state-dict key names and shapes equal the official
`CoTrackerThreeOffline(stride=4, corr_radius=3, window_len=60)`'s (a stored list made
from co-tracker's own code); the official file format (plain state dict or {"model": ...})
loads through `load_cotracker3_offline`; and on identical seeded RANDOM full-size weights,
co-tracker's `CoTrackerPredictor` and this package agree on the resized video, the raw
network outputs and the final tracks and visibility flags (tools/calibration/parity.csv).
The real `scaled_offline.pth` weights have not been run here.
"""

import os
from typing import Dict

import torch

from metrics.checkpoints import state_dict
from metrics.tracking.cotracker3 import config as config_lib
from metrics.tracking.cotracker3 import model as model_lib
from metrics.tracking.cotracker3 import predictor as predictor_lib

BACKEND_NAME = "cotracker3-offline"


def read_state_dict(checkpoint_path) -> Dict[str, torch.Tensor]:
    """The tensors of an official-format checkpoint (a state dict, or {"model": state dict}).

    Raises:
        FileNotFoundError: there is no such file.
        ValueError: the file is not a checkpoint of that form.
    """
    path = os.fspath(checkpoint_path)
    if not os.path.isfile(path):
        raise FileNotFoundError(f"CoTracker3 checkpoint {path} does not exist (expected the "
                                "official scaled_offline.pth)")
    state = state_dict.load(path, unreadable="not a readable torch checkpoint")
    if isinstance(state, dict) and "model" in state:
        state = state["model"]
    if not isinstance(state, dict) or not all(torch.is_tensor(v) for v in state.values()):
        raise ValueError(f"{path}: expected a state dict of tensors (or {{'model': state dict}})")
    return state


def check_state_dict(state: Dict[str, torch.Tensor], network: torch.nn.Module, path) -> None:
    """Raises ValueError naming missing, unexpected and mis-shaped keys."""
    wanted = network.state_dict()
    missing = sorted(set(wanted) - set(state))
    unexpected = sorted(set(state) - set(wanted))
    shapes = [f"{k}: {tuple(state[k].shape)} (expected {tuple(wanted[k].shape)})"
              for k in wanted if k in state and state[k].shape != wanted[k].shape]
    if missing or unexpected or shapes:
        def brief(items):
            return ", ".join(items[:5]) + (f" and {len(items) - 5} more" if len(items) > 5 else "")
        problems = [f"{label} {brief(items)}" for label, items in
                    (("missing", missing), ("unexpected", unexpected), ("shape", shapes)) if items]
        raise ValueError(f"{path}: not a CoTracker3 offline checkpoint for this config: "
                         + "; ".join(problems))


def load_cotracker3_offline(checkpoint_path, device="cpu",
                            config: config_lib.CoTracker3Config = config_lib.OFFLINE_DEFAULT
                            ) -> predictor_lib.CoTracker3Predictor:
    """The official checkpoint loaded into our network, wrapped in the official predictor."""
    state = read_state_dict(checkpoint_path)
    network = model_lib.CoTracker3Offline(config)
    check_state_dict(state, network, os.fspath(checkpoint_path))
    network.load_state_dict(state, strict=True)
    network.to(device).eval()
    return predictor_lib.CoTracker3Predictor(network, config.model_resolution)
