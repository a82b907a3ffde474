"""--sample_batch in the local loop: groups go through the stage together, failures stay
with their sample, and the rows are the unbatched ones."""

import numpy as np
import pytest

from benchmarks.common import sample_batch
from benchmarks.common import sample_loop
from benchmarks.common.errors import InputError
from benchmarks.common.sample_store import SampleStore
from proto import scorecard_pb2


def _ref(item):
    return sample_loop.SampleRef(f"s{item}", "split")


def _load(item):
    if item == "bad":
        raise InputError(f"clip_{item}.mp4", "a video", "nothing there")
    return {"value": item * 10}


def _score(item, loaded):
    sample = scorecard_pb2.SampleScore(sample_id=f"s{item}", split="split")
    sample.metrics["value"] = loaded["value"] + 1
    sample.diagnostics["shared"] = str(loaded.get("shared", False))
    return sample


def _run(tmp_path, items, stage=None, name="store.jsonl"):
    with SampleStore(tmp_path / name, "digest", resume=False) as store:
        return sample_loop.run(items, _ref, store, _load, _score, "test", batch=stage)


def _marking(calls):
    def run(items, loadeds):
        calls.append(list(items))
        return [dict(loaded, shared=True) for loaded in loadeds]
    return run


def test_groups_of_size_go_through_the_stage_and_rows_stay_the_same(tmp_path):
    calls = []
    items = list(range(7))
    batched = _run(tmp_path, items, sample_batch.BatchStage(3, _marking(calls)))
    alone = _run(tmp_path, items, name="alone.jsonl")
    assert calls == [[0, 1, 2], [3, 4, 5]]  # the last group of one has nothing to share
    assert [s.metrics["value"] for s in batched.samples] == [
        s.metrics["value"] for s in alone.samples] == [i * 10 + 1 for i in items]
    assert [s.diagnostics["shared"] for s in batched.samples] == ["True"] * 6 + ["False"]


def test_a_failed_load_is_left_out_of_its_group(tmp_path):
    calls = []
    outcome = _run(tmp_path, [1, "bad", 2], sample_batch.BatchStage(3, _marking(calls)))
    assert calls == [[1, 2]]
    assert "clip_bad.mp4" in outcome.samples[1].error
    assert not sample_loop.is_internal_error(outcome.samples[1])
    assert [outcome.samples[i].diagnostics["shared"] for i in (0, 2)] == ["True", "True"]


def test_an_expected_stage_error_scores_the_group_alone(tmp_path):
    def refuse(items, loadeds):
        raise ValueError("frames of different sizes")
    outcome = _run(tmp_path, [1, 2, 3], sample_batch.BatchStage(2, refuse))
    assert not any(s.error for s in outcome.samples)
    assert [s.diagnostics["shared"] for s in outcome.samples] == ["False"] * 3


def test_a_stage_bug_is_an_internal_error_of_its_group_only(tmp_path):
    def buggy(items, loadeds):
        if 1 in items:
            raise TypeError("our bug")
        return [dict(loaded, shared=True) for loaded in loadeds]
    outcome = _run(tmp_path, [1, 2, 3, 4], sample_batch.BatchStage(2, buggy))
    assert outcome.internal_errors == ["split/s1", "split/s2"]
    assert "TypeError: our bug" in outcome.samples[0].error
    assert [s.metrics["value"] for s in outcome.samples[2:]] == [31, 41]

    def short(items, loadeds):
        return loadeds[:1]
    outcome = _run(tmp_path, [1, 2], sample_batch.BatchStage(2, short), name="short.jsonl")
    assert outcome.internal_errors == ["split/s1", "split/s2"]


def test_the_size_is_checked():
    with pytest.raises(InputError, match="--sample_batch"):
        sample_batch.check_size(0)
    assert sample_batch.stage_or_none(1, _marking([])) is None
    assert sample_batch.stage_or_none(4, _marking([])).size == 4


def test_shared_calls_split_per_sample_and_group_by_key():
    calls = []

    def fn(frames):
        calls.append(len(frames))
        return np.array([[f.mean(), f.shape[0]] for f in frames])

    lists = [[np.full((2, 3, 3), v, np.uint8) for v in (1, 2)],
             [np.full((4, 3, 3), 7, np.uint8)],
             [np.full((2, 3, 3), v, np.uint8) for v in (3, 4, 5)]]
    out = sample_batch.shared_calls(lists, fn, key=lambda frame: frame.shape)
    assert sorted(calls) == [1, 5]  # the two 2x3 clips together, the 4x3 one alone
    assert [o[:, 0].tolist() for o in out] == [[1, 2], [7], [3, 4, 5]]
    assert sample_batch.shared_calls(lists[:2], fn)[1][:, 0].tolist() == [7]  # one key
