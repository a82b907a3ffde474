"""py_pytest: a py_test whose module is run by pytest through one shared main."""

def py_pytest(name, srcs = None, deps = [], data = [], size = "small", **kwargs):
    """Declares `name` running pytest on `srcs` (default: `<name>.py`).

    Args:
      name: target name; the test module is `<name>.py` unless `srcs` says otherwise.
      srcs: the test modules.
      deps: what the test imports (pytest is added).
      data: runtime files.
      size: Bazel test size.
      **kwargs: passed to py_test.
    """
    srcs = srcs or [name + ".py"]
    native.py_test(
        name = name,
        srcs = srcs + ["//tools/testing:pytest_main.py"],
        main = "//tools/testing:pytest_main.py",
        args = ["$(rootpath %s)" % s for s in srcs],
        deps = deps + ["//third_party/py:pytest"],
        data = data,
        size = size,
        python_version = "PY3",
        **kwargs
    )
