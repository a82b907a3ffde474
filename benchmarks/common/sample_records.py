"""What the sample loop records beside a sample's values: its named input digests (and
which stored samples they invalidate), and the inputs it read only in part.

Resume is keyed by (split, sample id) and, where the step gives `digest(item)`, by the
sample's input digests (see benchmarks/common/sample_loop.py); `discard_changed` drops
the stored samples whose inputs changed since. These are re-exported by sample_loop.
"""

import zipfile
from typing import Callable, Dict, List, Mapping, Optional, Sequence

from absl import logging

from benchmarks.common.errors import InputError
from benchmarks.common.sample_store import SampleStore
from metrics.video.frames import FrameInputError
from proto import scorecard_pb2

DIGEST_PREFIX = "input_digest:"  # diagnostics key prefix: a named input digest
GENERATED = "generated"  # the named digest kept in SampleScore.input_digest
WARNINGS = "input_warnings"  # diagnostics key: inputs read only in part, one per line

# A sample's inputs cannot be read or are not what the benchmark expects (a truncated
# npz is a BadZipFile or an EOFError).
INPUT_ERRORS = (InputError, FrameInputError, OSError, ValueError, zipfile.BadZipFile,
                EOFError)


def record_digests(sample: scorecard_pb2.SampleScore, digests: Mapping[str, str]) -> None:
    """Stores a sample's named input digests (see the module docstring)."""
    for name, value in digests.items():
        if name == GENERATED:
            sample.input_digest = value
        else:
            sample.diagnostics[DIGEST_PREFIX + name] = value


def stored_digests(sample: scorecard_pb2.SampleScore) -> Dict[str, str]:
    """The named input digests `record_digests` stored."""
    found = {k[len(DIGEST_PREFIX):]: v for k, v in sample.diagnostics.items()
             if k.startswith(DIGEST_PREFIX)}
    if sample.input_digest:
        found[GENERATED] = sample.input_digest
    return found


def add_warning(sample: scorecard_pb2.SampleScore, warning: str) -> None:
    """Records that an input was used though read only in part (the message names it)."""
    old = sample.diagnostics.get(WARNINGS, "")
    if warning not in old.split("\n"):
        sample.diagnostics[WARNINGS] = (old + "\n" + warning) if old else warning


def warnings_of(sample: scorecard_pb2.SampleScore) -> List[str]:
    return [w for w in sample.diagnostics.get(WARNINGS, "").split("\n") if w]


def discard_changed(items: Sequence, ref: Callable, store: SampleStore,
                    digest: Optional[Callable[[object], object]], label: str) -> List[str]:
    """Drops from `store` every stored sample whose inputs changed (logged); returns their
    "split/id". `run` does this first; a step that must know what is left to compute
    before the loop (to load a model only when needed) may call it earlier."""
    dropped = []
    if digest is None:
        return dropped
    for item in items:
        r = ref(item)
        if r.key in store:
            changed = _changed_inputs(store.get(r.key), _safe_digest(digest, item))
            if changed:
                logging.info("%s %s/%s: %s since it was stored; recomputing",
                             label, r.split, r.sample_id, changed)
                store.discard(r.key)
                dropped.append(f"{r.split}/{r.sample_id}")
    return dropped


def _safe_digest(digest, item):
    try:
        return digest(item)
    except INPUT_ERRORS:
        return None  # unreadable now: the sample is recomputed, and fails with the reason


def _changed_inputs(stored: scorecard_pb2.SampleScore, current) -> str:
    """Why a stored sample cannot be reused ("" when it can)."""
    if current is None:
        return "its inputs cannot be read"
    if isinstance(current, str):
        return "" if stored.input_digest == current else "its inputs changed"
    before = stored_digests(stored)
    changed = sorted(n for n in set(current) | set(before) if current.get(n) != before.get(n))
    return f"its {', '.join(changed)} inputs changed" if changed else ""
