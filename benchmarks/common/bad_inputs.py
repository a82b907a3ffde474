"""The shared "bad inputs" suite (testonly): no broken sample changes the others' results.

A benchmark plugs its own fixtures into it, in its test:

  build_clean(tree)          writes a small, clean input tree (generated clips, reference
                             data, annotation sheets) under `tree`;
  invoke(tree, out, resume)  runs the benchmark's runner on `tree` into `out` and returns
                             a `Run`: the exit code, the text the user saw (the error
                             line of a bad configuration), and which samples a resume
                             recomputed because their inputs changed;
  defects                    named `Defect`s, each a `mutate(tree)` that damages a copy
                             of the clean tree in one way, with what must follow.

`Harness(suite, workdir)` builds the clean tree and runs it once; `harness.check(defect)`
copies the tree, damages it, runs, and asserts (with a message naming the defect):

  - the exit code is the defect's (0: the run completed; 2: unusable configuration,
    refused before any work, so no scorecard is written);
  - on exit 0, a scorecard and per_sample_scores.jsonl were written; every affected
    sample carries the expected fragments in its error (`where="error"`) or in its
    diagnostics' input warnings (`where="warning"`: the sample is still scored); every
    other sample's metrics equal the clean run's, value for value, except the
    `absent` ones (hidden from discovery by the damage, e.g. in an unreadable folder);
  - on exit 2, the fragments (the path, what was expected) are in the message;
  - a resume defect (`resume=True`) runs the clean copy first, damages it (or moves it:
    `moved=True`), resumes into the same output folder, and checks that exactly the
    affected samples were recomputed and that every sample equals a fresh run's on the
    new inputs.

Per-sample results are read from `per_sample_scores.jsonl` (DESIGN.md's output files)
and compared on their `metrics`; times and paths may differ. A defect that cannot be
built here (e.g. an unreadable folder when tests run as root) gives `skip_if` a reason.

Values out of range (`VALUE_CASES`: NaN, an infinity, above and below a metric's
official range), one catalogue for every benchmark:

  - its runner: `computed_value_defects(sample, metric, official_range)` are defects
    with no damage to the tree but a `hook` that makes the runner's score hand the
    engine that value for one sample (as a family gone wrong would): exit 1, the
    sample's metric missing with the reason naming it a worldeval bug
    (`where="unavailable"`), the sample among the scorecard's internal errors, the
    headline over the other samples only;
  - its importer: bad_import_values.ImportSuite (how to write its official files with
    one row's value replaced by each case's, and to import them) and ImportHarness.
"""

import contextlib
import dataclasses
import json
import math
import os
import pathlib
import shutil
from typing import Callable, ContextManager, Dict, FrozenSet, List, Optional, Sequence, Tuple

Key = Tuple[str, str]  # (split, sample id)
SCORECARD = "scorecard.json"
PER_SAMPLE = "per_sample_scores.jsonl"
WARNINGS_KEY = "input_warnings"  # sample_loop.WARNINGS (kept import-free: testonly)


@dataclasses.dataclass(frozen=True)
class Run:
    """What one invocation of a runner left."""

    exit_code: int
    message: str = ""                       # stderr's error line, or ""
    recomputed: FrozenSet[Key] = frozenset()  # samples a resume recomputed (inputs changed)


@dataclasses.dataclass(frozen=True)
class Defect:
    """One way to damage the clean tree, and what the run must do about it."""

    name: str
    mutate: Callable[[pathlib.Path], None]
    affected: Optional[Tuple[Key, ...]] = ()  # None: every sample
    absent: Tuple[Key, ...] = ()     # clean samples the damage hides from discovery
    exit_code: int = 0
    fragments: Tuple[str, ...] = ()  # each in the affected samples' error/warnings, or message
    where: str = "error"             # "error", "warning" (the sample is still scored) or
    metric: str = ""                 # "unavailable": this metric's reason (out of the mean)
    hook: Callable[[], ContextManager] = contextlib.nullcontext  # around the run
    resume: bool = False
    moved: bool = False              # resume defects: the tree is run from another path
    skip_if: Callable[[], Optional[str]] = lambda: None


@dataclasses.dataclass(frozen=True)
class Suite:
    build_clean: Callable[[pathlib.Path], None]
    invoke: Callable[[pathlib.Path, pathlib.Path, bool], Run]
    defects: Sequence[Defect]


def read_samples(out: pathlib.Path) -> Dict[Key, dict]:
    """per_sample_scores.jsonl's rows by (split, sample id)."""
    rows = [json.loads(line) for line in (out / PER_SAMPLE).read_text().splitlines() if line]
    return {(r.get("split", ""), r["sample_id"]): r for r in rows}


def root_reason() -> Optional[str]:
    """A skip reason where permissions cannot make a path unreadable (running as root)."""
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        return "runs as root: chmod 000 does not make a path unreadable to root"
    return None


def _copy(src: pathlib.Path, dst: pathlib.Path) -> pathlib.Path:
    shutil.copytree(src, dst, symlinks=True)
    return dst


class Harness:
    """Builds the clean tree and its run once; `check` runs one defect against it."""

    def __init__(self, suite: Suite, workdir: pathlib.Path):
        self.suite = suite
        self.workdir = pathlib.Path(workdir)
        self.clean_tree = self.workdir / "clean" / "tree"
        self.clean_tree.mkdir(parents=True)
        suite.build_clean(self.clean_tree)
        run = suite.invoke(self.clean_tree, self.workdir / "clean" / "out", False)
        assert run.exit_code == 0, f"the clean run failed: {run}"
        self.clean = read_samples(self.workdir / "clean" / "out")
        errors = {k: s["error"] for k, s in self.clean.items() if s.get("error")}
        assert not errors, f"the clean tree has failing samples: {errors}"

    def defect(self, name: str) -> Defect:
        return next(d for d in self.suite.defects if d.name == name)

    def check(self, defect: Defect) -> Run:
        """Runs `defect` (see the module docstring); returns its run for further checks."""
        base = self.workdir / defect.name
        if base.exists():  # checked before: start again from the clean tree
            _restore_permissions(base)
            shutil.rmtree(base)
        tree = _copy(self.clean_tree, base / "tree")
        out = base / "out"
        if defect.resume:
            return self._check_resume(defect, tree, out)
        defect.mutate(tree)
        try:
            with defect.hook():
                run = self.suite.invoke(tree, out, False)
        finally:
            _restore_permissions(tree)
        assert run.exit_code == defect.exit_code, (defect.name, run)
        if defect.exit_code == 2:
            for fragment in defect.fragments:
                assert fragment in run.message, (defect.name, fragment, run.message)
            assert not (out / SCORECARD).exists(), f"{defect.name}: refused, yet wrote a scorecard"
            return run
        assert (out / SCORECARD).is_file(), f"{defect.name}: no scorecard written"
        samples = read_samples(out)
        affected = set(self.clean) if defect.affected is None else set(defect.affected)
        for key in affected:
            assert key in samples, (defect.name, key, "missing from per_sample_scores")
            text = {"error": samples[key].get("error", ""),
                    "warning": samples[key].get("diagnostics", {}).get(WARNINGS_KEY, ""),
                    "unavailable": samples[key].get("unavailable", {}).get(defect.metric, "")
                    }[defect.where]
            assert text, (defect.name, key, f"no {defect.where} recorded", samples[key])
            if defect.where != "error":
                assert not samples[key].get("error"), (defect.name, key, samples[key]["error"])
            for fragment in defect.fragments:
                assert fragment in text, (defect.name, key, fragment, text)
        if defect.where == "unavailable":
            self._check_left_out(defect, out, samples, affected)
        untouched = set(self.clean) - affected - set(defect.absent)
        self._same_as(samples, self.clean, untouched, defect.name)
        return run

    def _check_left_out(self, defect: Defect, out: pathlib.Path, samples, affected) -> None:
        """The metric out of the affected samples (their other values the clean run's), each
        an internal error of the scorecard, and the headline over the others only."""
        for key in affected:
            assert defect.metric not in samples[key].get("metrics", {}), (defect.name, key)
            clean = dict(self.clean[key].get("metrics", {}))
            clean.pop(defect.metric, None)
            assert samples[key].get("metrics", {}) == clean, (defect.name, key)
        card = json.loads((out / SCORECARD).read_text())
        internal = card.get("coverage", {}).get("internal_error_sample_ids", [])
        assert {f"{s}/{i}" for s, i in affected} <= set(internal), (defect.name, internal)
        result = next(m for m in card["metrics"] if m["id"] == defect.metric)
        if result.get("available"):
            having = [k for k, s in samples.items()
                      if not s.get("error") and defect.metric in s.get("metrics", {})]
            assert result.get("sample_count") == len(having), (defect.name, result)
            assert math.isfinite(result["value"]), (defect.name, result)

    def _check_resume(self, defect: Defect, tree: pathlib.Path, out: pathlib.Path) -> Run:
        first = self.suite.invoke(tree, out, False)
        assert first.exit_code == 0, (defect.name, first)
        if defect.moved:
            tree = _copy(tree, tree.parent / "moved")
        defect.mutate(tree)
        run = self.suite.invoke(tree, out, True)
        assert run.exit_code == 0, (defect.name, run)
        want = set(self.clean) if defect.affected is None else set(defect.affected)
        assert set(run.recomputed) == want, (defect.name, sorted(run.recomputed), sorted(want))
        fresh_out = out.parent / "fresh"
        assert self.suite.invoke(tree, fresh_out, False).exit_code == 0
        fresh, resumed = read_samples(fresh_out), read_samples(out)
        assert set(resumed) == set(fresh), defect.name
        self._same_as(resumed, fresh, set(fresh), defect.name)
        return run

    @staticmethod
    def _same_as(samples, reference, keys, name):
        for key in sorted(keys):
            assert key in samples, (name, key, "missing")
            assert not samples[key].get("error"), (name, key, samples[key].get("error"))
            assert samples[key].get("metrics") == reference[key].get("metrics"), (name, key)


@dataclasses.dataclass(frozen=True)
class ValueCase:
    """One impossible value: `value(official_range)`, and what its refusal says."""

    name: str
    value: Callable[[Tuple[Optional[float], Optional[float]]], float]
    fragment: str
    bound: int = -1  # the side of the range it needs (0 low, 1 high; -1 none)


VALUE_CASES = (
    ValueCase("nan", lambda bounds: math.nan, "nan is not a finite number"),
    ValueCase("infinity", lambda bounds: math.inf, "inf is not a finite number"),
    ValueCase("above_official_range", lambda b: b[1] + max(1.0, abs(b[1])),
              "is outside its official range", bound=1),
    ValueCase("below_official_range", lambda b: b[0] - max(1.0, abs(b[0])),
              "is outside its official range", bound=0),
)
BUG_FRAGMENT = "a worldeval bug"  # in the reason of a computed value refused


def value_cases(bounds, cases: Sequence[ValueCase] = VALUE_CASES) -> List[ValueCase]:
    """The cases a metric of official range `bounds` can take (no "above" when unbounded
    above)."""
    bounds = bounds or (None, None)
    return [c for c in cases if c.bound < 0 or bounds[c.bound] is not None]


def computed_value_defects(sample: Key, metric: str, bounds) -> List[Defect]:
    """The runner-side cases, one run each: `sample`'s `metric`, as the runner's score
    hands it to the engine, replaced by NaN, then by a value outside `bounds` (above it
    where it has a top)."""
    cases = [VALUE_CASES[0]] + value_cases(bounds)[2:3]
    return [Defect(f"computed_{case.name}", lambda tree: None, (sample,), exit_code=1,
                   where="unavailable", metric=metric,
                   fragments=(BUG_FRAGMENT, f"{sample[0]}/{sample[1]}: {metric} ",
                              case.fragment),
                   hook=_computed(sample, metric, case.value(bounds)))
            for case in cases]


def _computed(key: Key, metric: str, value: float) -> Callable[[], ContextManager]:
    """A hook: every pass's score gives `key` this value of `metric` (the engine's screen
    of computed values, engine.Context.loop, sees it as the runner's own)."""

    @contextlib.contextmanager
    def hook():
        from benchmarks.common import engine  # pylint: disable=import-outside-toplevel
        real = engine.Context.loop

        def loop(self, store, p):
            def score(item, loaded):
                sample = p.score(item, loaded)
                if (sample.split, sample.sample_id) == key and not sample.error:
                    sample.metrics[metric] = value
                return sample
            return real(self, store, dataclasses.replace(p, score=score))

        engine.Context.loop = loop
        try:
            yield
        finally:
            engine.Context.loop = real
    return hook


def _restore_permissions(tree: pathlib.Path) -> None:
    """Makes a damaged tree removable again (a defect may chmod 000 a folder)."""
    for dirpath, dirnames, _ in os.walk(tree):  # top-down: children opened before descent
        for name in dirnames:
            path = os.path.join(dirpath, name)
            if not os.path.islink(path):
                os.chmod(path, 0o755)
