"""The provenance panel says what each checkpoint's digest was checked against."""

import types

from proto import scorecard_pb2
from tools.report import run_panels


def _panel(*refs):
    card = scorecard_pb2.Scorecard()
    card.provenance.checkpoints.extend(refs)
    return run_panels.provenance_panel([types.SimpleNamespace(label="A", card=card)])


def test_a_pinned_a_locked_and_an_unchecked_checkpoint_are_told_apart():
    pinned = scorecard_pb2.CheckpointRef(metric_id="m1", id="dinov2", sha256="a" * 64,
                                         pinned_digest_matched=True, pin="sha256")
    locked = scorecard_pb2.CheckpointRef(metric_id="m2", id="clip", sha256="b" * 64,
                                         pin="lock", lock_file="/w/worldeval_checkpoints.lock.json")
    bare = scorecard_pb2.CheckpointRef(metric_id="m3", id="lin.pth", sha256="c" * 64)
    html = _panel(pinned, locked, bare)
    assert "dinov2 rev — sha256 " + "a" * 64 + " (pinned digest matched)" in html
    assert ("(digest not pinned; unchanged since its lock file "
            "/w/worldeval_checkpoints.lock.json, which does not show these are the official "
            "weights)") in html
    assert "sha256 " + "c" * 64 + " (digest not pinned)" in html
