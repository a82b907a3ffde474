"""The one main of every py_test: runs pytest on the test files given as arguments.

Under `bazel test` it keeps pytest out of the source tree (no cache directory,
temporary files under $TEST_TMPDIR) and writes the JUnit XML that Bazel asks for.
"""

import os
import sys

import pytest


def main(argv: list) -> int:
    args = ["-q", "-p", "no:cacheprovider", "--import-mode=importlib"]
    if os.environ.get("TEST_TMPDIR"):
        args += ["--basetemp", os.path.join(os.environ["TEST_TMPDIR"], "pytest")]
    if os.environ.get("XML_OUTPUT_FILE"):
        args += ["--junitxml", os.environ["XML_OUTPUT_FILE"]]
    return pytest.main(args + argv)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
