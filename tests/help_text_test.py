"""A runner's --help (its run.py docstring) is current and short: for every benchmark
whose catalog entry has a //benchmarks/<package>:run target (catalog_lib.package_of),
the docstring names no metric the runner computes as missing ("not in this version",
"this version computes ..."), every --metrics id it shows is in the benchmark's metric
table, and it shows the run command."""

import ast
import importlib
import pathlib
import re
from typing import Set

import pytest

from benchmarks.common import runtime_profiles
from tools.catalog import catalog_lib

MAX_LINES = 16
# Words that say the runner lacks something; the metrics a sentence with them names must
# be pending in the runtime profile (and there must be some pending metric at all).
LACKING = ("not in this version", "not computed", "not yet", "this version computes",
           "other metrics are reported unavailable", "to come", "pending")


def runnable():
    return catalog_lib.runnable_ids()


def package(benchmark_id: str) -> str:
    return catalog_lib.package_of(benchmark_id)


def docstring(benchmark_id: str) -> str:
    source = pathlib.Path(f"benchmarks/{package(benchmark_id)}/run.py").read_text()
    return ast.get_docstring(ast.parse(source)) or ""


def names(benchmark_id: str) -> Set[str]:
    """Every way a docstring may name a metric: the metric table's ids, the runtime
    profile's metric ids and the other names --metrics takes (upper-cased too)."""
    specs = importlib.import_module(f"benchmarks.{package(benchmark_id)}.metric_specs")
    short = specs.TABLE.alias_names
    profile = runtime_profiles.load_profile(benchmark_id)
    return (set(specs.TABLE.ids) | {r.metric_id for r in profile.metrics}
            | set(short) | {s.upper() for s in short})


def pending(benchmark_id: str) -> Set[str]:
    profile = runtime_profiles.load_profile(benchmark_id)
    return {r.metric_id for r in profile.metrics if r.pending}


def named_in(text: str, vocabulary: Set[str]) -> Set[str]:
    return {n for n in vocabulary
            if re.search(rf"(?<![\w.+-]){re.escape(n)}(?![\w+-])", text)}


def lacking_problems(doc: str, vocabulary: Set[str], waiting: Set[str]):
    """The sentences that claim something is missing that the runner computes."""
    problems = []
    for sentence in re.split(r"(?<=[.;])\s+", " ".join(doc.split())):
        if not any(word in sentence.lower() for word in LACKING):
            continue
        computed = named_in(sentence, vocabulary) - waiting
        if not waiting or computed:
            problems.append(f"{sentence!r} (computed: {sorted(computed) or 'every metric'})")
    return problems


def test_every_runnable_benchmark_is_checked():
    ids = runnable()
    assert len(ids) >= 4, ids
    for benchmark_id in ids:
        where = f"benchmarks/{package(benchmark_id)}/run.py"
        assert docstring(benchmark_id), f"{where} has no docstring"


@pytest.mark.parametrize("benchmark_id", runnable())
def test_docstring_claims_nothing_missing_that_runs(benchmark_id):
    problems = lacking_problems(docstring(benchmark_id), names(benchmark_id),
                                pending(benchmark_id))
    assert not problems, (f"benchmarks/{package(benchmark_id)}/run.py's docstring says the "
                          f"runner lacks what it computes: {problems}")


@pytest.mark.parametrize("benchmark_id", runnable())
def test_docstring_metric_ids_are_in_the_metric_table(benchmark_id):
    known = names(benchmark_id)
    for listed in re.findall(r"--metrics=([^\s\]]+)", docstring(benchmark_id)):
        unknown = [m for m in listed.split(",") if m not in known and m not in ("...", "A", "B")]
        assert not unknown, f"{benchmark_id}: --metrics names unknown ids {unknown}"


@pytest.mark.parametrize("benchmark_id", runnable())
def test_docstring_is_short_and_shows_the_command(benchmark_id):
    doc = docstring(benchmark_id)
    assert re.search(rf"bazelw? run //benchmarks/{package(benchmark_id)}:run", doc)
    assert len(doc.splitlines()) <= MAX_LINES, f"{benchmark_id}: {len(doc.splitlines())} lines"


def test_the_check_catches_a_stale_claim():
    vocabulary, waiting = {"ois", "OIS", "pas"}, set()
    assert lacking_problems("OIS is not in this version.", vocabulary, waiting)
    assert lacking_problems("This version computes pas; others unavailable.", vocabulary,
                            waiting)
    assert not lacking_problems("OIS is not in this version.", vocabulary, {"OIS"})
    assert not lacking_problems("Runs pas and OIS.", vocabulary, waiting)
