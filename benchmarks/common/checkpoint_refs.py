"""Resolving a family's checkpoints with the run's settings, for provenance.

`settings` is any object with `checkpoints` ({spec name: explicit path}, may be empty),
`checkpoint_dir` and `offline` (a runner's config or a small adapter of it).
"""

from typing import List, Sequence, Tuple

from absl import logging

from metrics.checkpoints import resolver
from proto import scorecard_pb2


def resolve(spec: resolver.CheckpointSpec, settings,
            metric_id: str) -> Tuple[resolver.ResolvedCheckpoint, scorecard_pb2.CheckpointRef]:
    """Finds `spec` (explicit flag path, --checkpoint_dir, caches, pinned download).

    Raises:
      resolver.CheckpointUnavailable: with the reason and the command that fetches it.
    """
    explicit = (getattr(settings, "checkpoints", None) or {}).get(spec.name)
    try:
        found = resolver.resolve(spec, explicit_path=explicit,
                                 checkpoint_dir=settings.checkpoint_dir, offline=settings.offline)
    except resolver.CheckpointUnavailable as e:
        logging.warning("%s: %s", metric_id, e)  # one line, before the first clip
        raise
    ref = scorecard_pb2.CheckpointRef(
        metric_id=metric_id, id=spec.hf_repo or spec.url or spec.filename,
        revision=found.revision, sha256=found.sha256, path=str(found.path),
        pinned_digest_matched=bool(spec.sha256),  # resolve() refuses a mismatch
        pin=found.pin, lock_file=found.lock_file)  # "sha256", "lock" (verified) or ""
    return found, ref


def resolve_all(specs: Sequence[resolver.CheckpointSpec], settings, metric_id: str
                ) -> Tuple[List, Tuple[scorecard_pb2.CheckpointRef, ...]]:
    """(paths, refs) of `specs`, in order; CheckpointUnavailable (with its fetch command)
    for the first one absent."""
    found = [resolve(spec, settings, metric_id) for spec in specs]
    return [f.path for f, _ in found], tuple(ref for _, ref in found)
