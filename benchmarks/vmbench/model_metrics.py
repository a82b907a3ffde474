"""The model-based VMBench metrics this version does not compute, and why, with the
commands that fetch their checkpoints (from runtime_profile.textproto).

A metric without a builder in official_models.py (its loaders are not part of this
version) is reported unavailable with what it needs, present or not.
"""

import os
from typing import Dict, Iterable, Optional

from benchmarks.common import runtime_profiles

BENCHMARK_ID = "vmbench"


def _present(checkpoint_dir: Optional[str], ckpt) -> bool:
    if not checkpoint_dir:
        return False
    for path in (os.path.join(checkpoint_dir, ckpt.name, ckpt.file),
                 os.path.join(checkpoint_dir, ckpt.file)):
        if os.path.isfile(path):
            return True
    return False


def reasons(metric_ids: Iterable[str], checkpoint_dir: Optional[str] = None,
            what: str = "") -> Dict[str, str]:
    """{metric id: why it is unavailable}, each naming its models' checkpoints with the
    fetch command (<checkpoint_dir> filled in when --checkpoint_dir is given)."""
    profile = runtime_profiles.load_profile(BENCHMARK_ID)
    by_id = {m.metric_id: m for m in profile.metrics}
    out = {}
    for metric_id in metric_ids:
        req = by_id[metric_id]
        parts = []
        for ckpt in req.checkpoints:
            state = "present" if _present(checkpoint_dir, ckpt) else "missing"
            command = ckpt.fetch_command
            if checkpoint_dir:
                command = command.replace("<checkpoint_dir>", checkpoint_dir)
            parts.append(f"{ckpt.file} ({state}; fetch: {command})")
        out[metric_id] = (
            f"{what or 'its official models'} are not loaded by this worldeval version "
            f"(they come with VMBench part 2); checkpoints it needs: "
            + "; ".join(parts))
    return out
