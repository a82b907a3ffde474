"""The files of --output_dir, each a worldeval.v1 proto in its JSON mapping."""

import os
import pathlib
import tempfile
from typing import Dict, Iterable, Sequence

from benchmarks.common.errors import InputError
from benchmarks.common.sample_store import atomic_file
from metrics.checkpoints import resolver

from proto import manifest_pb2
from proto import schema
from proto import scorecard_pb2

SCORECARD = "scorecard.json"
PER_SAMPLE = "per_sample_scores.jsonl"
RAW_TABLE = "raw_metric_table.jsonl"
ARTIFACT_MANIFEST = "artifact_manifest.json"


def check_output_dir(output_dir: os.PathLike) -> pathlib.Path:
    """Creates --output_dir if needed and checks it is a writable directory; InputError
    (exit 2) naming the path otherwise, before any work starts."""
    path = pathlib.Path(output_dir)
    expected = "a directory for the run's outputs (existing, or one that can be created)"
    if path.exists() and not path.is_dir():
        raise InputError(path, expected, "a file")
    ancestor = next((p for p in [path, *path.parents] if p.exists()), None)
    if ancestor is not None and not ancestor.is_dir():
        raise InputError(path, expected, f"{ancestor} is a file")
    try:
        path.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=path, prefix=".write-check-"):
            pass
    except OSError as e:
        raise InputError(path, "a writable directory for the run's outputs",
                         f"{type(e).__name__}: {e.strerror or e}") from e
    return path


class RunOutputs:
    """Paths and writers of one run's output directory."""

    def __init__(self, output_dir: os.PathLike):
        self.dir = pathlib.Path(output_dir)
        self.dir.mkdir(parents=True, exist_ok=True)

    def path(self, name: str) -> pathlib.Path:
        return self.dir / name

    def _write_json(self, name: str, msg) -> pathlib.Path:
        """schema.write_json's file (stamped, atomic), with no .tmp left on a full disk."""
        with atomic_file(self.path(name), fsync=False) as f:
            f.write(schema.to_json(schema.stamp(msg)))
        return self.path(name)

    def write_scorecard(self, card: scorecard_pb2.Scorecard) -> pathlib.Path:
        """scorecard.json, recording (output_sha256) the digest of every *.jsonl beside it
        as it is now: the per-sample stores that `worldeval merge` then checks."""
        card.output_sha256.clear()
        card.output_sha256.update(jsonl_digests(self.dir))
        return self._write_json(SCORECARD, card)

    def write_artifact_manifest(self, manifest: manifest_pb2.ArtifactManifest) -> pathlib.Path:
        return self._write_json(ARTIFACT_MANIFEST, manifest)

    def write_per_sample(self, samples: Iterable[scorecard_pb2.SampleScore]) -> pathlib.Path:
        """per_sample_scores.jsonl, rewritten whole (atomically) from `samples`."""
        path = self.path(PER_SAMPLE)
        with atomic_file(path, fsync=False) as f:
            for sample in samples:
                f.write(schema.to_json_line(sample))
        return path

    def write_raw_table(self, samples: Iterable[scorecard_pb2.SampleScore],
                        metric_ids: Sequence[str]) -> pathlib.Path:
        """One row per (sample, metric): the value, or why it is missing."""
        path = self.path(RAW_TABLE)
        with atomic_file(path, fsync=False) as f:
            for sample in sorted(samples, key=lambda s: (s.split, s.sample_id)):
                for metric_id in metric_ids:
                    row = scorecard_pb2.RawMetricRow(
                        sample_id=sample.sample_id, split=sample.split, metric_id=metric_id)
                    if sample.error:
                        row.unavailable_reason = "sample failed: " + sample.error
                    elif metric_id in sample.metrics:
                        row.value = sample.metrics[metric_id]
                    else:
                        row.unavailable_reason = sample.unavailable.get(metric_id, "not computed")
                    f.write(schema.to_json_line(row))
        return path


file_sha256 = resolver.sha256_of  # one file reader for every digest


def jsonl_digests(output_dir: os.PathLike) -> Dict[str, str]:
    """{file name: sha256} of every *.jsonl file in `output_dir` (not below it): what
    Scorecard.output_sha256 records and what `worldeval merge` reads from a shard."""
    return {p.name: file_sha256(p) for p in sorted(pathlib.Path(output_dir).glob("*.jsonl"))
            if p.is_file()}
