"""RAFT-large: worldeval's metrics/flow equals torchvision's raft_large as MemoBench runs it."""

from tools.calibration import parity_check
from tools.calibration import raft_parity


def test_raft_matches_torchvision_and_the_table():
    # run() also checks that torchvision loaded the random file from the hub cache.
    parity_check.assert_rows(raft_parity.run())

