"""Reads the JUnit XML of the GPU checks' pytest run; fails where a CUDA case did not run.

    python3 -m tools.gpu.checks --junit=checks.xml [--allow_cuda_skips]

The CUDA cases of the GPU checks (tools/gpu/session.sh step "checks") are the cases
parametrised by a CUDA device (`test_lookup_matches_pytorch[cuda]`, metrics/slam/cuda/
cuda_test.py) and those that skip with "needs a GPU" where torch sees none (the *autocast_test
files' "[cuda] needs a GPU", cuda_test's "needs a GPU: ..."). Cases parametrised by a
device name among other values (`[cuda-True-True]`) only check a policy and run anywhere.
On a GPU machine nothing may be skipped except the CPU-only cases that skip because "a GPU
is present": a CUDA case skipped means torch did not see the GPU, a `[cpu]` case of
cuda_test skipped means the extension was not built; and at least one `[cuda]` case must
have run. Then the check fails, as metrics/slam/cuda/gpu_check.sh did. Prints one summary
line and the skipped cases; exit 0 when all passed and nothing was skipped that must run
(skips allowed with --allow_cuda_skips, for the CPU dry run), 1 otherwise.
"""

import argparse
import re
import sys
import xml.etree.ElementTree as ET
from typing import Dict, List

_CUDA_PARAM = re.compile(r"\[cuda(?::\d+)?\]$")
GPU_REASON = "needs a GPU"
CPU_ONLY_REASON = "a GPU is present"


def is_cuda_case(name: str, skip_message: str = "") -> bool:
    """Whether a test case is one of the CUDA cases (module docstring)."""
    return bool(_CUDA_PARAM.search(name)) or GPU_REASON in skip_message


def read(path) -> List[Dict[str, str]]:
    """Every <testcase> of the file: {file, name, outcome (passed / failed / error /
    skipped), message}."""
    cases = []
    for case in ET.parse(path).getroot().iter("testcase"):
        outcome, message = "passed", ""
        for tag in ("failure", "error", "skipped"):
            child = case.find(tag)
            if child is not None:
                outcome = "failed" if tag == "failure" else tag
                message = child.get("message") or (child.text or "")
                break
        cases.append({"file": case.get("classname", ""), "name": case.get("name", ""),
                      "outcome": outcome, "message": message.strip()})
    return cases


def summarize(cases: List[Dict[str, str]]) -> Dict:
    """Counts per outcome, the CUDA cases that ran and those skipped, and the failures."""
    counts: Dict[str, int] = {}
    for c in cases:
        counts[c["outcome"]] = counts.get(c["outcome"], 0) + 1
    cuda = [c for c in cases if is_cuda_case(c["name"], c["message"])]
    return {
        "counts": counts,
        "cuda_ran": sorted(f"{c['file']}::{c['name']}" for c in cuda
                           if c["outcome"] in ("passed", "failed", "error")),
        "cuda_skipped": sorted(f"{c['file']}::{c['name']} ({c['message']})" for c in cuda
                               if c["outcome"] == "skipped"),
        "other_skipped": sorted(f"{c['file']}::{c['name']} ({c['message']})" for c in cases
                                if c["outcome"] == "skipped" and c not in cuda
                                and CPU_ONLY_REASON not in c["message"]),
        "failed": sorted(f"{c['file']}::{c['name']}: {c['message'][:300]}" for c in cases
                         if c["outcome"] in ("failed", "error")),
    }


def verdict(summary: Dict, allow_cuda_skips: bool) -> List[str]:
    """The reasons the check fails (empty: it passed)."""
    reasons = [f"failed: {f}" for f in summary["failed"]]
    if not allow_cuda_skips:
        reasons += [f"CUDA case skipped: {s}" for s in summary["cuda_skipped"]]
        reasons += [f"skipped: {s}" for s in summary["other_skipped"]]
        if not summary["cuda_ran"]:
            reasons.append("no CUDA case ran at all")
    if not summary["counts"]:
        reasons.append("the JUnit file holds no test case")
    return reasons


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", maxsplit=1)[0])
    parser.add_argument("--junit", required=True)
    parser.add_argument("--allow_cuda_skips", action="store_true")
    args = parser.parse_args()
    summary = summarize(read(args.junit))
    print(f"test cases: {summary['counts']}; CUDA cases run: {len(summary['cuda_ran'])}, "
          f"skipped: {len(summary['cuda_skipped'])}")
    for line in summary["cuda_skipped"]:
        print(f"  skipped CUDA case: {line}")
    for line in summary["other_skipped"]:
        print(f"  skipped: {line}")
    reasons = verdict(summary, args.allow_cuda_skips)
    for r in reasons:
        print(f"FAIL: {r}")
    return 1 if reasons else 0


if __name__ == "__main__":
    sys.exit(main())
