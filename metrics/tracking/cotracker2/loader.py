"""CoTracker2 online point tracking: loading the official `cotracker2.pth`.

    from metrics.tracking.cotracker2 import loader
    tracker = loader.load_cotracker2_online("cotracker2.pth", device="cuda")

torch.hub's `cotracker2_online` builds `CoTrackerOnlinePredictor(checkpoint=None,
window_len=8, v2=True)` and loads the file (a plain state dict) strictly; co-tracker's
`build_cotracker` also accepts {"model": state dict}. The official model's state dict has
321 tensors (51,065,763 values, the stored `time_emb` and `pos_emb` tables included).
Reading and strict checking are CoTracker3's (metrics.tracking.cotracker3.loader).

Parity (//tools/calibration:cotracker2_parity_test, recomputed in CI): seeded RANDOM full-size weights saved in
the official format and read by this loader; this package's track histories, visibility
probabilities and flags on a seeded 14-frame 96x128 video (grid_size=10, the official
chunking) against the stored outputs of co-tracker's own CoTracker2 +
CoTrackerOnlinePredictor at commit 82e02e8 (tools/calibration/cotracker2_official.json;
testdata/calibration.json is the older record on weights whose tracks depend on the CPU). The real `cotracker2.pth` has not been run here.
"""

import os

from metrics.tracking.cotracker2 import config as config_lib
from metrics.tracking.cotracker2 import model as model_lib
from metrics.tracking.cotracker2 import predictor as predictor_lib
from metrics.tracking.cotracker3 import loader as cotracker3_loader

BACKEND_NAME = "cotracker2-online"
FILE_NAME = "cotracker2.pth"


def load_cotracker2_online(checkpoint_path, device="cpu",
                           config: config_lib.CoTracker2Config = config_lib.ONLINE_DEFAULT,
                           visible_above: float = predictor_lib.VISIBLE_ABOVE
                           ) -> predictor_lib.CoTracker2OnlinePredictor:
    """The official checkpoint loaded into our network, wrapped in the online predictor."""
    if not os.path.isfile(os.fspath(checkpoint_path)):
        raise FileNotFoundError(f"CoTracker2 checkpoint {os.fspath(checkpoint_path)} does not "
                                f"exist (expected the official {FILE_NAME})")
    state = cotracker3_loader.read_state_dict(checkpoint_path)
    network = model_lib.CoTracker2(config)
    try:
        cotracker3_loader.check_state_dict(state, network, os.fspath(checkpoint_path))
    except ValueError as error:
        raise ValueError(str(error).replace("CoTracker3 offline", "CoTracker2")) from None
    network.load_state_dict(state, strict=True)
    network.to(device).eval()
    return predictor_lib.CoTracker2OnlinePredictor(network, visible_above)
