"""Where tests find VMBench's official prompt suite (never committed: not ours).

$VMBENCH_SHARED_DATA (a folder holding prompts.json), else the project's shared data
folder beside the checkout: <checkout>/../shared/data/vmbench, found through the real
path of this file (Bazel's runfiles link back to the source tree). Tests that need the
official file skip with the reason when neither exists.
"""

import os
import pathlib

import pytest

ENV = "VMBENCH_SHARED_DATA"
PROMPTS_SHA256 = "373ae5547abb6dd56c2d314c40b091510f7631891cf1465aa7774a35747a3b19"


def data_dir() -> pathlib.Path:
    if os.environ.get(ENV):
        return pathlib.Path(os.environ[ENV])
    checkout = pathlib.Path(os.path.realpath(__file__)).parents[2]
    return checkout.parent / "shared" / "data" / "vmbench"


def prompts_json() -> pathlib.Path:
    """The official prompts.json, or a pytest skip naming where it was looked for."""
    path = data_dir() / "prompts.json"
    if not path.is_file():
        pytest.skip(f"VMBench's prompts.json not found at {path}; set ${ENV} to its folder")
    return path
