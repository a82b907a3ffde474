"""Repository rules: the CPython 3.11 toolchain and hash-locked wheels, offline.

- `python_interpreter` finds CPython 3.11 on this machine (or $WORLDEVAL_PYTHON) and
  registers it as the Python toolchain, started with `-S` so that the system's
  site-packages (which has numpy, pytest, ...) stays off sys.path: a target imports
  only what it declares.
- `pip_lock` reads requirements_lock.txt and writes `requirements.bzl`, whose
  `install_deps()` declares one lazy `pip_wheel` repository per distribution and whose
  `pypi_targets()` defines `//third_party/py:<name>` for each.
- `pip_wheel` installs one locked wheel with
  `pip install --require-hashes --no-deps --only-binary=:all: --target`, and exposes
  it as `@pypi__<name>//:pkg`, depending on the wheels its lock entry lists.

Wheels come from the package registry (or the machine's pip wheel store); nothing is
fetched from Bazel's or GitHub's servers.
"""

_PY_VERSION = "3.11"

def _find_python(rctx):
    """Returns the path of a CPython 3.11 interpreter, or fails with a clear message."""
    override = rctx.os.environ.get("WORLDEVAL_PYTHON", "")
    candidates = [override] if override else ["python3.11", "python3"]
    tried = []
    for name in candidates:
        path = rctx.which(name) if "/" not in name else rctx.path(name)
        if path == None or not path.exists:
            tried.append("%s (not found)" % name)
            continue
        res = rctx.execute([path, "-S", "-c", "import sys, platform; print('%d.%d' % sys.version_info[:2], platform.python_implementation())"])
        found = res.stdout.strip()
        if res.return_code == 0 and found == _PY_VERSION + " CPython":
            return path
        tried.append("%s is %s" % (path, found or res.stderr.strip()))
    fail(("worldeval needs CPython %s, found none: %s. Install python3.11 (Debian: " +
          "apt-get install python3.11) or set WORLDEVAL_PYTHON=/path/to/python3.11.") %
         (_PY_VERSION, "; ".join(tried)))

def _python_interpreter_impl(rctx):
    python = _find_python(rctx)
    rctx.file("python3", """#!/bin/sh
# CPython {v} without site-packages: only declared deps import. The interpreter found
# when the workspace was set up, else python{v} on PATH (a release zip on another machine).
py='{python}'
[ -x "$py" ] || py=$(command -v python{v}) || {{
  echo "worldeval needs CPython {v}: install python{v} or put it on PATH" >&2
  exit 2
}}
exec "$py" -S "$@"
""".format(v = _PY_VERSION, python = python), executable = True)
    rctx.file("python_path.txt", str(python) + "\n")
    rctx.file("BUILD.bazel", """\
load("@bazel_tools//tools/python:toolchain.bzl", "py_runtime_pair")

exports_files(["python3", "python_path.txt"])

py_runtime(
    name = "runtime",
    interpreter = ":python3",
    python_version = "PY3",
    visibility = ["//visibility:public"],
)

py_runtime_pair(name = "runtime_pair", py3_runtime = ":runtime")

toolchain(
    name = "toolchain",
    toolchain = ":runtime_pair",
    toolchain_type = "@bazel_tools//tools/python:toolchain_type",
)
""".format(python = python))

python_interpreter = repository_rule(
    implementation = _python_interpreter_impl,
    environ = ["WORLDEVAL_PYTHON", "PATH"],
    local = True,
)

def _repo_name(dist):
    return "pypi__" + dist.replace("-", "_").replace(".", "_")

def _target_name(dist):
    return dist.replace("-", "_").replace(".", "_")

def parse_lock(content):
    """Parses requirements_lock.txt into a list of structs (name, version, sha256, deps)."""
    entries = []
    current = None
    for raw in content.splitlines():
        line = raw.strip()
        if not line or (line.startswith("#") and not line.startswith("# deps:")):
            continue
        if line.startswith("# deps:"):
            if current == None:
                fail("requirements_lock.txt: '# deps:' before any requirement")
            deps = [d for d in line[len("# deps:"):].strip().split(" ") if d]
            entries.append(struct(name = current[0], version = current[1], sha256 = current[2], deps = deps))
            current = None
        elif line.startswith("--hash=sha256:"):
            current = (current[0], current[1], line[len("--hash=sha256:"):].strip(" \\"))
        else:
            spec = line.rstrip(" \\")
            if "==" not in spec:
                fail("requirements_lock.txt: expected name==version, got " + spec)
            name, version = spec.split("==")
            current = (name, version, None)
    return entries

def _pip_lock_impl(rctx):
    lock = rctx.read(rctx.attr.lock)
    entries = parse_lock(lock)
    repos = []
    targets = []
    for e in entries:
        repos.append("""    pip_wheel(
        name = "{repo}",
        requirement = "{name}=={version}",
        sha256 = "{sha256}",
        deps = {deps},
    )""".format(repo = _repo_name(e.name), name = e.name, version = e.version, sha256 = e.sha256,
                deps = repr(["@%s//:pkg" % _repo_name(d) for d in e.deps])))
        targets.append("""    native.py_library(
        name = "{target}",
        deps = ["@{repo}//:pkg"],
        visibility = ["//visibility:public"],
    )""".format(target = _target_name(e.name), repo = _repo_name(e.name)))
    rctx.file("requirements.bzl", """\
# Generated from {lock}. DO NOT EDIT.
load("@worldeval//third_party/python:repositories.bzl", "pip_wheel")

LOCKED = {locked}

def install_deps():
    \"\"\"Declares one lazily installed repository per locked wheel.\"\"\"
{repos}

def pypi_targets():
    \"\"\"Defines one py_library per locked distribution (use from //third_party/py).\"\"\"
{targets}
""".format(
        lock = rctx.attr.lock,
        locked = repr({e.name: e.version for e in entries}),
        repos = "\n".join(repos) or "    pass",
        targets = "\n".join(targets) or "    pass",
    ))
    rctx.file("BUILD.bazel", "exports_files(['requirements.bzl'])\n")

pip_lock = repository_rule(
    implementation = _pip_lock_impl,
    attrs = {"lock": attr.label(allow_single_file = True, mandatory = True)},
)

def _pip_wheel_impl(rctx):
    python = _find_python(rctx)
    rctx.file("requirement.txt", "%s --hash=sha256:%s\n" % (rctx.attr.requirement, rctx.attr.sha256))
    rctx.report_progress("pip install " + rctx.attr.requirement)
    res = rctx.execute(
        [python, "-m", "pip", "install", "--quiet", "--no-deps", "--require-hashes",
         "--only-binary=:all:", "--disable-pip-version-check", "--no-warn-script-location",
         "--no-compile",
         "--target", "site", "-r", "requirement.txt"],
        timeout = 3600,
        quiet = True,
    )
    if res.return_code != 0:
        fail("pip could not install %s (sha256 %s) from the package registry:\n%s" %
             (rctx.attr.requirement, rctx.attr.sha256, res.stderr))

    # Bytecode keyed by source hash, not install time: identical on every machine, so
    # release zips are reproducible, and imports need no compile at run time.
    rctx.execute(
        [python, "-m", "compileall", "-q", "-j", "0", "--invalidation-mode", "unchecked-hash", "site"],
        timeout = 3600,
        quiet = True,
    )
    rctx.file("BUILD.bazel", """\
# {req}, installed by pip_wheel from the hash-locked requirements.
# Runfiles: the whole site/ directory as ONE symlink (Bazel warns that a directory's
# contents are not tracked: the wheel is hash-locked and never changes in place).
# File by file (torch alone ~25k symlinks) every test's runfiles tree cost ~100 MB of
# disk and every sandbox ~26k symlinks. The release build (--define
# worldeval_runfiles=per_file) keeps the file-by-file form its zips are made from.
py_library(
    name = "pkg",
    srcs = select({{
        "@worldeval//third_party/python:per_file_runfiles": glob(
            ["site/**/*.py"], exclude = ["site/**/* *"]),
        "//conditions:default": [],
    }}),
    data = select({{
        "@worldeval//third_party/python:per_file_runfiles": glob(
            ["site/**"], exclude = ["site/**/*.py", "site/**/* *", "site/bin/**"]),
        "//conditions:default": ["site"],
    }}),
    imports = ["site"],
    deps = {deps},
    visibility = ["//visibility:public"],
)

# The installed files one by one, for build rules that read some of them (the torch
# headers and libraries of //tools/cuda).
filegroup(
    name = "files",
    srcs = glob(["site/**"], exclude = ["site/**/* *", "site/bin/**"]),
    visibility = ["//visibility:public"],
)
""".format(req = rctx.attr.requirement, deps = repr(rctx.attr.deps)))

pip_wheel = repository_rule(
    implementation = _pip_wheel_impl,
    attrs = {
        "requirement": attr.string(mandatory = True),
        "sha256": attr.string(mandatory = True),
        "deps": attr.string_list(),
    },
    environ = ["WORLDEVAL_PYTHON"],
)
