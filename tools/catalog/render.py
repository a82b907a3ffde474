"""The catalog as a terminal table and as docs/catalog.md (both from the same data)."""

from typing import List

from proto import catalog_pb2
from proto import runtime_profile_pb2
from proto import scorecard_pb2
from tools.catalog import catalog_lib

COMMAND = "./bazelw run //tools:catalog -- --format=markdown --output=docs/catalog.md"

_FAMILY = {catalog_pb2.VIDEO_GENERATION: "VG", catalog_pb2.WORLD_MODEL: "WM"}
_ENV = {runtime_profile_pb2.UNIFIED: "U", runtime_profile_pb2.UNIFIED_SERVICE: "U",
        runtime_profile_pb2.UNIFIED_METRIC_STACK: "U + metric stack",
        runtime_profile_pb2.DEDICATED: "Dedicated"}
_DATA = {catalog_pb2.BUNDLED_SAMPLE: "bundled sample, not official data",
         catalog_pb2.OFFICIAL_SUBSET: "part of the official data",
         catalog_pb2.OFFICIAL_FULL: "the whole official data"}


def environment(entry: catalog_pb2.BenchmarkEntry) -> str:
    text = _ENV[entry.environment]
    return text + " + service" if entry.needs_service else text


def implementation(entry: catalog_pb2.BenchmarkEntry) -> str:
    return catalog_pb2.ImplementationStatus.Name(entry.implementation)


def verification(entry: catalog_pb2.BenchmarkEntry) -> str:
    """The scope, qualified by the data of its evidence."""
    text = scorecard_pb2.VerificationScope.Name(entry.verification)
    kinds = sorted({_DATA[e.data] for e in entry.evidence})
    return f"{text} ({'; '.join(kinds)})" if kinds else text


def runnable(catalog: catalog_pb2.Catalog) -> List[catalog_pb2.BenchmarkEntry]:
    """The entries with a runner (catalog_lib.runnable_ids), in catalog order."""
    ids = set(catalog_lib.runnable_ids(catalog))
    return [e for e in catalog.benchmarks if e.id in ids]


def table(catalog: catalog_pb2.Catalog) -> str:
    """A fixed-width table for a terminal."""
    header = ("id", "set", "environment", "implementation", "verification")
    rows = [(e.id, _FAMILY[e.task_family], environment(e), implementation(e), verification(e))
            for e in catalog.benchmarks]
    widths = [max(len(r[i]) for r in [header] + rows) for i in range(len(header))]
    lines = ["  ".join(cell.ljust(w) for cell, w in zip(row, widths)).rstrip()
             for row in [header] + rows]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines + ["", summary(catalog)]) + "\n"


def summary(catalog: catalog_pb2.Catalog) -> str:
    entries = list(catalog.benchmarks)

    def count(predicate) -> int:
        return sum(1 for e in entries if predicate(e))

    video = count(lambda e: e.task_family == catalog_pb2.VIDEO_GENERATION)
    world = count(lambda e: e.task_family == catalog_pb2.WORLD_MODEL)
    runners = count(lambda e: e.implementation in (catalog_pb2.PARTIAL_RUNNER,
                                                   catalog_pb2.FULL_RUNNER))
    complete = count(lambda e: e.implementation == catalog_pb2.FULL_RUNNER)
    official = count(lambda e: any(ev.data != catalog_pb2.BUNDLED_SAMPLE for ev in e.evidence))
    return (f"{len(entries)} benchmarks ({video} video generation, {world} world model); "
            f"with a worldeval runner: {runners} ({complete} complete); verified on official "
            f"data: {official}.")


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ") if text else "—"


def _link(repo: str) -> str:
    return f"[{repo[len('github.com/'):]}](https://{repo})" if repo else "—"


def _paper(paper: str) -> str:
    if paper.startswith("arXiv:"):
        number = paper[len("arXiv:"):].split()[0]
        return f"[{paper}](https://arxiv.org/abs/{number})"
    return _cell(paper)


def _section(title: str, entries) -> List[str]:
    columns = ("id", "Name", "Measures", "Environment", "Implementation", "Verification",
               "Paper", "Upstream")
    lines = [f"## {title} ({len(entries)})", "", "| " + " | ".join(columns) + " |",
             "|" + "---|" * len(columns)]
    for e in entries:
        cells = (f"[`{e.id}`](#{e.id.replace('.', '')})", _cell(e.name), _cell(e.measures),
                 environment(e), implementation(e), verification(e), _paper(e.paper),
                 _link(e.upstream_repository))
        lines.append("| " + " | ".join(cells) + " |")
    return lines + [""]


def details(e: catalog_pb2.BenchmarkEntry) -> List[str]:
    lines = [f"### {e.id}", "", f"**{e.name}** — {e.measures}", ""]
    if e.metrics:
        lines.append(f"- Metrics ({len(e.metrics)}): " + ", ".join(f"`{m}`" for m in e.metrics))
    if e.targets:
        lines.append("- Targets: " + ", ".join(f"`{t}`" for t in e.targets))
    for ev in e.evidence:
        lines.append(f"- Evidence: [`{ev.scorecard_path}`](../{ev.scorecard_path}) (sha256 "
                     f"`{ev.scorecard_sha256[:12]}…`, {_DATA[ev.data]}), written by "
                     f"`{ev.bazel_target}`" + (f": {ev.note}" if ev.note else ""))
    if e.runtime_profile:
        lines.append(f"- Runtime profile: [`{e.runtime_profile}`](../{e.runtime_profile})")
    lines.append(f"- WorldFoundry's docs claim (theirs, not ours): {_cell(e.upstream_claim)}")
    if e.notes:
        lines.append(f"- Notes: {_cell(e.notes)}")
    return lines + [""]


def markdown(catalog: catalog_pb2.Catalog) -> str:
    """docs/catalog.md."""
    entries = list(catalog.benchmarks)
    lines = [
        "# Benchmark catalog", "",
        "<!-- Generated from tools/catalog/catalog.textproto; do not edit. Regenerate with:",
        f"     {COMMAND}",
        "     //tools/catalog:render_test fails when this page and the data differ. -->",
        "",
        f"The {len(entries)} benchmarks of the WorldFoundry benchmark hub and what worldeval "
        "does with each.",
        f"worldeval runs {len(runnable(catalog))} of them today: "
        + ", ".join(f"[`{e.id}`](#{e.id.replace('.', '')})" for e in runnable(catalog))
        + " (`./bazelw run //benchmarks/<id>:run`); the others have no runner yet.",
        "**Implementation** is what worldeval has built; **verification** is what a committed",
        "scorecard shows (its Verification scope and the data it ran on). NOT_EXECUTED means",
        "nothing has been verified.",
        "Environment: U is worldeval's locked environment; + metric stack adds packages not on",
        "PyPI or CUDA builds; + service an outside API; Dedicated its own environment.", "",
        summary(catalog), ""]
    for title, family in (("Video generation", catalog_pb2.VIDEO_GENERATION),
                          ("World models", catalog_pb2.WORLD_MODEL)):
        lines += _section(title, [e for e in entries if e.task_family == family])
    lines += ["## Details", ""]
    for e in entries:
        lines += details(e)
    return "\n".join(lines).rstrip("\n") + "\n"
