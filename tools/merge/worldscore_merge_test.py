"""WorldScore shards merged equal a single run (merge_check.py): the bundled sample's
three instances on the two optical-flow metrics, each instance's evaluation.json
included. WorldScore has no weight-free flow flag: the test gives the runner's config an
OpenCV DIS flow (the `flow` field meant for tests and other backends) in every run."""

import dataclasses

from benchmarks.worldscore import run as worldscore_run
from benchmarks.worldscore import runner as worldscore_runner
from metrics.flow import opencv_dis
from proto import scorecard_pb2
from tools.merge import merge_check

_BACKEND = scorecard_pb2.Backend(name="opencv-dis (test only)", official=False)


def _dis(frame_a, frame_b):
    return opencv_dis.dis_flow(frame_a, frame_b).transpose(1, 2, 0)   # (H, W, 2)


CASE = merge_check.Case(
    "worldscore", worldscore_run, worldscore_runner,
    ["--metrics=optical_flow_aepe,optical_flow", "--device=cpu", "--offline"],
    configure=lambda c: dataclasses.replace(c, flow=_dis, flow_backend=_BACKEND))
runs = merge_check.runs_fixture(CASE)


def test_shards_split_the_instances(runs):
    merge_check.assert_shards_split(runs)


def test_merged_outputs_equal_a_single_run(runs):
    names = merge_check.assert_merged_equals_single(runs)
    assert sum(n.endswith("/evaluation.json") for n in names) == 3, names
