"""The bad-inputs suite on a toy benchmark: it passes a runner that isolates bad samples
and fails one that does not (so a benchmark plugged into it is really checked)."""

import json
import pathlib

import pytest

from benchmarks.common import bad_inputs

D = bad_inputs.Defect


def _build(tree: pathlib.Path):
    for name, value in (("a", 1), ("b", 2), ("c", 3)):
        (tree / f"{name}.txt").write_text(str(value))


def _toy_runner(leaky: bool = False):
    """A runner over tree/*.txt: metric = 2 * the number. With `leaky`, one bad sample
    changes another's value (the bug the suite exists to catch)."""

    def invoke(tree: pathlib.Path, out: pathlib.Path, resume: bool) -> bad_inputs.Run:
        if not any(tree.glob("*.txt")):
            return bad_inputs.Run(2, f"error: {tree}: expected *.txt samples, found none")
        stored = bad_inputs.read_samples(out) if resume and out.exists() else {}
        out.mkdir(parents=True, exist_ok=True)
        rows, recomputed, failed = [], set(), False
        for path in sorted(tree.glob("*.txt")):
            key, text = ("toy", path.stem), path.read_text()
            old = stored.get(key)
            if old and old["input_digest"] == text:
                rows.append(old)
                continue
            if old:
                recomputed.add(key)
            row = {"split": "toy", "sample_id": path.stem, "input_digest": text}
            try:
                row["metrics"] = {"double": 2 * float(text) + (1 if leaky and failed else 0)}
            except ValueError:
                failed = True
                row["error"] = f"{path}: expected a number, found {text!r}"
            rows.append(row)
        (out / bad_inputs.PER_SAMPLE).write_text("".join(json.dumps(r) + "\n" for r in rows))
        (out / bad_inputs.SCORECARD).write_text("{}")
        return bad_inputs.Run(0, "", frozenset(recomputed))

    return invoke


def _garbage_a(tree):
    (tree / "a.txt").write_text("not a number")


DEFECTS = [
    D("garbage", _garbage_a, (("toy", "a"),), fragments=("a.txt", "expected a number")),
    D("no_samples", lambda tree: [p.unlink() for p in tree.glob("*.txt")], exit_code=2,
      fragments=("expected *.txt samples",)),
    D("resume_changed_b", lambda tree: (tree / "b.txt").write_text("5"), (("toy", "b"),),
      resume=True),
    D("resume_moved", lambda tree: None, (), resume=True, moved=True),
]


def _harness(tmp_path, leaky=False):
    return bad_inputs.Harness(bad_inputs.Suite(_build, _toy_runner(leaky), DEFECTS), tmp_path)


@pytest.mark.parametrize("name", [d.name for d in DEFECTS])
def test_a_runner_that_isolates_bad_samples_passes(tmp_path, name):
    harness = _harness(tmp_path)
    harness.check(harness.defect(name))


def test_a_runner_whose_bad_sample_leaks_into_others_fails(tmp_path):
    harness = _harness(tmp_path, leaky=True)
    with pytest.raises(AssertionError, match=r"garbage.*'toy', 'b'"):
        harness.check(harness.defect("garbage"))


@pytest.mark.parametrize("defect", [
    D("wrong_sample", _garbage_a, (("toy", "b"),), fragments=("a.txt",)),
    D("wrong_fragment", _garbage_a, (("toy", "a"),), fragments=("expected a string",)),
    D("wrong_exit", _garbage_a, (("toy", "a"),), exit_code=2),
    D("wrong_recomputed", lambda tree: (tree / "b.txt").write_text("5"), (("toy", "c"),),
      resume=True),
])
def test_wrong_expectations_are_caught(tmp_path, defect):
    with pytest.raises(AssertionError):
        _harness(tmp_path).check(defect)
