"""Preflight imports modules in the environment a runner gets: LOCKED_RUNTIME in
tools/preflight/BUILD.bazel must carry every runtime requirement of requirements.in
(all but the test-only and build-time ones), or preflight reports a locked package as
missing."""

import pathlib
import re

_SKIP = ("test-only", "build-time only", "test runner")


def _runtime_requirements():
    names = set()
    for line in pathlib.Path("third_party/python/requirements.in").read_text().splitlines():
        requirement, _, reason = line.partition("#")
        if not requirement.strip() or reason.strip().startswith(_SKIP):
            continue
        name = re.split(r"[=<>\[ ]", requirement.strip(), maxsplit=1)[0]
        names.add(re.sub(r"[-.]", "_", name.lower()))
    return names


def _locked_runtime():
    text = pathlib.Path("tools/preflight/BUILD.bazel").read_text()
    block = text[text.index("LOCKED_RUNTIME = ["):]
    block = block[:block.index("]")]
    return set(re.findall(r'"//third_party/py:(\w+)"', block))


def test_every_runtime_requirement_is_in_preflights_environment():
    runtime = _runtime_requirements()
    assert {"torch", "segment_anything", "lpips"} <= runtime
    assert _locked_runtime() == runtime
