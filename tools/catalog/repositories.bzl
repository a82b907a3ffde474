"""`worldeval_catalog`: the catalog's runnable benchmarks as a Starlark list.

BUILD files load `RUNNABLE` (the packages of the catalog entries with a
`targets: "//benchmarks/<package>:run"`) from `@worldeval_catalog//:benchmarks.bzl`
instead of naming benchmarks, so a benchmark added to tools/catalog/catalog.textproto is
picked up by every cross-benchmark test and by the release without another edit. The
repository is written again whenever the catalog changes (it is read through its label).
A benchmark's package is its id with every "-" as "_" (catalog_lib.package_of; the same
rule here, as Starlark cannot call it).
"""

_PREFIX = "//benchmarks/"

def _package_of(benchmark_id):
    """tools/catalog/catalog_lib.py's package_of: the id with every "-" and "." replaced by
    "_", and "_" before a leading digit."""
    package = benchmark_id.replace("-", "_").replace(".", "_")
    return "_" + package if package[:1].isdigit() else package

def _quoted(line):
    return line.split('"')[1] if '"' in line else ""

def _runnable(text):
    """The packages of the entries whose targets include //benchmarks/<package>:run, sorted
    (catalog_lib.runnable_ids); each entry's `id:` line comes before its `targets:`."""
    packages = []
    package = None
    for line in text.splitlines():
        line = line.strip()
        if line.startswith("id:"):
            package = _package_of(_quoted(line))
        elif line.startswith("targets:") and package:
            if _quoted(line) == "%s%s:run" % (_PREFIX, package):
                packages.append(package)
    return sorted({p: None for p in packages}.keys())

def _catalog_repository_impl(rctx):
    packages = _runnable(rctx.read(rctx.path(rctx.attr.catalog)))
    if not packages:
        fail("%s lists no //benchmarks/<package>:run target" % rctx.attr.catalog)
    rctx.file("BUILD.bazel", 'exports_files(["benchmarks.bzl"])\n')
    rctx.file("benchmarks.bzl", "\n".join([
        '"""Generated from %s by tools/catalog/repositories.bzl."""' % rctx.attr.catalog,
        "",
        "# The packages of the catalog's benchmarks that have a runner",
        "# (//benchmarks/<package>:run; a package is the id with every - as _).",
        "RUNNABLE = %s" % repr(packages),
        "",
        "def per_benchmark(target):",
        '    """["//benchmarks/<package>:<target>" for each runnable benchmark]."""',
        '    return ["//benchmarks/%s:%s" % (b, target) for b in RUNNABLE]',
        "",
    ]))

catalog_repository = repository_rule(
    implementation = _catalog_repository_impl,
    attrs = {"catalog": attr.label(allow_single_file = True, mandatory = True)},
    local = True,
)
