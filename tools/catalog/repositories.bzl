"""`worldeval_catalog`: the catalog's runnable benchmarks as a Starlark list.

BUILD files load `RUNNABLE` (the ids of the catalog entries with a
`targets: "//benchmarks/<id>:run"`) from `@worldeval_catalog//:benchmarks.bzl` instead of
naming benchmarks, so a benchmark added to tools/catalog/catalog.textproto is picked up by
every cross-benchmark test and by the release without another edit. The repository is
written again whenever the catalog changes (it is read through its label).
"""

_PREFIX = "//benchmarks/"

def _runnable(text):
    ids = []
    for line in text.splitlines():
        line = line.strip()
        if not line.startswith("targets:"):
            continue
        target = line.split('"')[1] if '"' in line else ""
        if target.startswith(_PREFIX) and target.endswith(":run"):
            ids.append(target[len(_PREFIX):target.index(":")])
    return sorted({i: None for i in ids}.keys())

def _catalog_repository_impl(rctx):
    ids = _runnable(rctx.read(rctx.path(rctx.attr.catalog)))
    if not ids:
        fail("%s lists no //benchmarks/<id>:run target" % rctx.attr.catalog)
    rctx.file("BUILD.bazel", 'exports_files(["benchmarks.bzl"])\n')
    rctx.file("benchmarks.bzl", "\n".join([
        '"""Generated from %s by tools/catalog/repositories.bzl."""' % rctx.attr.catalog,
        "",
        "# The catalog's benchmarks that have a runner (//benchmarks/<id>:run).",
        "RUNNABLE = %s" % repr(ids),
        "",
        "def per_benchmark(target):",
        '    """["//benchmarks/<id>:<target>" for each runnable benchmark]."""',
        '    return ["//benchmarks/%s:%s" % (b, target) for b in RUNNABLE]',
        "",
    ]))

catalog_repository = repository_rule(
    implementation = _catalog_repository_impl,
    attrs = {"catalog": attr.label(allow_single_file = True, mandatory = True)},
    local = True,
)
