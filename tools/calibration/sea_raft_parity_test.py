"""SEA-RAFT: worldeval's flow and flow statistics equal the official code's stored numbers."""

from tools.calibration import parity_check
from tools.calibration import sea_raft_parity


def test_sea_raft_matches_the_official_run_and_the_table():
    parity_check.assert_rows(sea_raft_parity.run())
