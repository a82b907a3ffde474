"""Tests for benchmarks.common.max_side: what a run with --max_side set records."""

from benchmarks.common import max_side
from benchmarks.common import sample_store
from benchmarks.common import scorecard as card_lib
from proto import scorecard_pb2


def test_unset_changes_nothing():
    assert max_side.deviations(None) == []
    assert max_side.blockers(None) == []
    settings = {"version": "x/1", "metrics": ["a"]}
    assert sample_store.config_digest({**settings, **max_side.digest_settings(None)}) == \
        sample_store.config_digest(settings)  # stores of native runs keep their digest
    ver = card_lib.verification([], [], evaluated=3)
    assert ver.official_protocol and ver.leaderboard_eligible


def test_set_is_a_protocol_deviation_and_blocks_the_leaderboard():
    deviations = max_side.deviations(512)
    assert len(deviations) == 1 and deviations[0].startswith("--max_side=512: ")
    blockers = max_side.blockers(512)
    assert [b.reason for b in blockers] == [scorecard_pb2.PROTOCOL_DEVIATION]
    assert blockers[0].detail == deviations[0]
    ver = card_lib.verification(blockers, deviations, evaluated=3)
    assert not ver.official_protocol and not ver.leaderboard_eligible
    assert list(ver.deviations) == deviations


def test_set_changes_the_resume_digest():
    settings = {"version": "x/1", "metrics": ["a"]}
    native = sample_store.config_digest({**settings, **max_side.digest_settings(None)})
    capped = {side: sample_store.config_digest({**settings, **max_side.digest_settings(side)})
              for side in (256, 512)}
    assert len({native, capped[256], capped[512]}) == 3
