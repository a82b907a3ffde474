"""The engine's sample loop: resume keys, input digests, error depth, prefetch."""

import numpy as np
import pytest

from benchmarks.common import family as family_lib
from benchmarks.common import sample_context
from benchmarks.common import sample_loop
from benchmarks.common.errors import InputError
from benchmarks.common.sample_store import SampleStore
from proto import scorecard_pb2

REF = sample_loop.SampleRef


class _Mean(family_lib.Family):
    name = "mean"
    metric_ids = ("Mean",)

    def compute(self, ctx):
        if ctx.sample_id == "cannot":
            raise family_lib.FamilyUnavailable("too short to score")
        if ctx.sample_id == "bug":
            return {}["missing key"]  # a KeyError: our bug
        return family_lib.FamilyResult({"Mean": float(ctx.frames.mean())})


class _Max(family_lib.Family):
    name = "max"
    metric_ids = ("Max",)

    def compute(self, ctx):
        return family_lib.FamilyResult({"Max": float(ctx.frames.max())})


def _items(*specs):
    """(sample id, split, value) -> items whose frames are filled with value."""
    return [{"id": i, "split": s, "value": v} for i, s, v in specs]


def _ref(item):
    return REF(item["id"], item["split"], "scene")


def _load(item):
    if item["value"] is None:
        raise InputError(f"/data/{item['id']}", "a readable clip", "nothing")
    return np.full((2, 4, 4, 3), item["value"], np.uint8)


def _score(families, loads=None):
    def score(item, frames):
        if loads is not None:
            loads.append(item["id"])
        sample = scorecard_pb2.SampleScore(sample_id=item["id"], split=item["split"],
                                           input_digest=str(item["value"]))
        ctx = sample_context.SampleContext(sample_id=item["id"], split=item["split"],
                                           frames=frames)
        sample.metrics.update(sample_loop.run_families(ctx, families, sample))
        return sample
    return score


def _run(path, items, resume=False, prefetch=True, calls=None, digest=True):
    with SampleStore(path, "settings", resume) as store:
        return sample_loop.run(items, _ref, store, _load, _score([_Mean(None), _Max(None)], calls),
                               "test", digest=(lambda it: str(it["value"])) if digest else None,
                               prefetch=prefetch)


def test_same_id_in_two_splits_are_two_samples(tmp_path):
    items = _items(("001", "synthetic", 10), ("001", "real", 20))
    out = _run(tmp_path / "s.jsonl", items)
    assert [(s.split, s.metrics["Mean"]) for s in out.samples] == [("synthetic", 10), ("real", 20)]
    calls = []
    again = _run(tmp_path / "s.jsonl", items, resume=True, calls=calls)
    assert calls == [] and again.resumed == 2
    assert [s.metrics["Mean"] for s in again.samples] == [10, 20]


def test_resume_recomputes_exactly_the_samples_whose_inputs_changed(tmp_path):
    path = tmp_path / "s.jsonl"
    _run(path, _items(("a", "x", 1), ("b", "x", 2), ("c", "x", 3)))
    calls = []
    out = _run(path, _items(("a", "x", 1), ("b", "x", 7), ("c", "x", 3)), resume=True,
               calls=calls)
    assert calls == ["b"]
    assert out.recomputed_changed == ["x/b"]
    assert [s.metrics["Mean"] for s in out.samples] == [1, 7, 3]


def test_a_stored_sample_whose_inputs_became_unreadable_is_recomputed(tmp_path):
    path = tmp_path / "s.jsonl"
    _run(path, _items(("a", "x", 1), ("b", "x", 2)))

    def digest(item):
        if item["id"] == "b":
            raise InputError("/data/b", "a readable clip", "nothing")
        return str(item["value"])

    with SampleStore(path, "settings", True) as store:
        out = sample_loop.run(_items(("a", "x", 1), ("b", "x", None)), _ref, store, _load,
                              _score([_Mean(None)]), "test", digest=digest)
    assert out.recomputed_changed == ["x/b"]
    assert [bool(s.error) for s in out.samples] == [False, True]


def test_unreadable_input_is_that_samples_error_and_the_rest_run(tmp_path):
    out = _run(tmp_path / "s.jsonl", _items(("a", "x", 1), ("gone", "x", None), ("c", "x", 3)))
    errors = {s.sample_id: s.error for s in out.samples}
    assert errors["gone"] == "/data/gone: expected a readable clip, found nothing"
    assert not errors["a"] and not errors["c"]
    assert out.internal_errors == []


def test_expected_family_failure_is_a_per_metric_reason(tmp_path):
    out = _run(tmp_path / "s.jsonl", _items(("cannot", "x", 5)))
    sample = out.samples[0]
    assert not sample.error
    assert sample.unavailable["Mean"] == "mean: FamilyUnavailable: too short to score"
    assert sample.metrics["Max"] == 5  # the other family still ran


def test_a_bug_fails_the_sample_with_its_traceback_and_is_counted(tmp_path):
    out = _run(tmp_path / "s.jsonl", _items(("a", "x", 1), ("bug", "x", 2), ("c", "x", 3)))
    by_id = {s.sample_id: s for s in out.samples}
    assert "internal error in family mean" in by_id["bug"].error
    assert "KeyError" in by_id["bug"].error and "Traceback" in by_id["bug"].error
    assert sample_loop.is_internal_error(by_id["bug"])
    assert out.internal_errors == ["x/bug"]
    assert by_id["a"].metrics["Mean"] == 1 and by_id["c"].metrics["Mean"] == 3
    assert sample_loop.internal_errors_of(out.samples) == ["x/bug"]


@pytest.mark.parametrize("prefetch", [True, False])
def test_prefetch_changes_nothing(tmp_path, prefetch):
    items = _items(*[(f"s{i}", "x", i) for i in range(5)]) + _items(("bad", "x", None))
    out = _run(tmp_path / f"{prefetch}.jsonl", items, prefetch=prefetch)
    assert [(s.sample_id, s.metrics.get("Mean"), bool(s.error)) for s in out.samples] == (
        [(f"s{i}", float(i), False) for i in range(5)] + [("bad", None, True)])


def test_reference_frames_are_read_once_per_index_and_size(tmp_path):
    reads = []

    def reader(source, indices, size):
        reads.append((tuple(indices), size))
        return {i: np.full((2, 2, 3), i, np.uint8) for i in indices}

    ref = sample_context.ReferenceFrames(tmp_path, reader)
    assert [int(f[0, 0, 0]) for f in ref.frames_at([3, 1, 3])] == [3, 1, 3]
    ref.at([1, 3])                      # cached
    ref.at([1, 2], size=(4, 4))         # another size: read again
    ref.at([2])
    assert reads == [((1, 3), None), ((1, 2), (4, 4)), ((2,), None)]
    assert ref.reads == 3

def _named_run(path, items, resume=False, calls=None):
    """Samples keyed on two named digests: the generated value and a reference row."""
    def score(item, frames):
        sample = _score([_Mean(None)], calls)(item, frames)
        sample_loop.record_digests(sample, {sample_loop.GENERATED: str(item["value"]),
                                            "reference": item["row"]})
        return sample

    with SampleStore(path, "settings", resume) as store:
        return sample_loop.run(
            items, _ref, store, _load, score, "test",
            digest=lambda it: {sample_loop.GENERATED: str(it["value"]), "reference": it["row"]})


def test_named_digests_recompute_what_changed_and_say_which(tmp_path, caplog):
    path = tmp_path / "s.jsonl"
    rows = lambda *r: [dict(item, row=row) for item, row in zip(  # noqa: E731
        _items(("a", "x", 1), ("b", "x", 2), ("c", "x", 3)), r)]
    first = _named_run(path, rows("r1", "r2", "r3"))
    assert first.samples[1].input_digest == "2"
    assert sample_loop.stored_digests(first.samples[1]) == {"generated": "2", "reference": "r2"}
    calls = []
    caplog.set_level("INFO")
    out = _named_run(path, rows("r1", "r2-edited", "r3"), resume=True, calls=calls)
    assert calls == ["b"] and out.recomputed_changed == ["x/b"]
    assert "x/b: its reference inputs changed since it was stored; recomputing" in caplog.text
    calls.clear()
    again = _named_run(path, rows("r1", "r2-edited", "r3"), resume=True, calls=calls)
    assert calls == [] and again.resumed == 3


def test_warnings_are_kept_once_each_in_order():
    sample = scorecard_pb2.SampleScore()
    for warning in ("/a.jpg: cut short", "/b.jpg: cut short", "/a.jpg: cut short"):
        sample_loop.add_warning(sample, warning)
    assert sample_loop.warnings_of(sample) == ["/a.jpg: cut short", "/b.jpg: cut short"]
    assert sample_loop.warnings_of(scorecard_pb2.SampleScore()) == []



class _Spread(family_lib.Family):
    """Reads the columns of the families before it (ctx.earlier)."""

    name = "spread"
    metric_ids = ("Spread",)

    def compute(self, ctx):
        if "Max" not in ctx.earlier:
            raise family_lib.FamilyUnavailable("needs Max, which did not run before it")
        return family_lib.FamilyResult({"Spread": ctx.earlier["Max"] - ctx.earlier["Mean"]})


def test_a_family_reads_the_columns_of_the_families_before_it():
    frames = np.arange(2 * 4 * 4 * 3, dtype=np.uint8).reshape(2, 4, 4, 3)
    ctx = sample_context.SampleContext(sample_id="s", frames=frames)
    sample = scorecard_pb2.SampleScore(sample_id="s")
    cols = sample_loop.run_families(ctx, [_Mean(None), _Max(None), _Spread(None)], sample)
    assert cols["Spread"] == pytest.approx(95 - 47.5)
    early = sample_context.SampleContext(sample_id="s", frames=frames)
    sample = scorecard_pb2.SampleScore(sample_id="s")
    sample_loop.run_families(early, [_Spread(None), _Max(None)], sample)
    assert "needs Max" in sample.unavailable["Spread"]
