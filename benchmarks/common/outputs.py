"""The files of --output_dir, each a worldeval.v1 proto in its JSON mapping."""

import os
import pathlib
import tempfile
from typing import Iterable, Sequence

from benchmarks.common.errors import InputError

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

    def write_scorecard(self, card: scorecard_pb2.Scorecard) -> pathlib.Path:
        schema.write_json(self.path(SCORECARD), card)
        return self.path(SCORECARD)

    def write_artifact_manifest(self, manifest: manifest_pb2.ArtifactManifest) -> pathlib.Path:
        schema.write_json(self.path(ARTIFACT_MANIFEST), manifest)
        return self.path(ARTIFACT_MANIFEST)

    def write_per_sample(self, samples: Iterable[scorecard_pb2.SampleScore]) -> pathlib.Path:
        """per_sample_scores.jsonl, rewritten whole (atomically) from `samples`."""
        path = self.path(PER_SAMPLE)
        tmp = path.with_name(path.name + ".tmp")
        with open(tmp, "w", encoding="utf-8") as f:
            for sample in samples:
                f.write(schema.to_json_line(sample))
        os.replace(tmp, path)
        return path

    def write_raw_table(self, samples: Iterable[scorecard_pb2.SampleScore],
                        metric_ids: Sequence[str]) -> pathlib.Path:
        """One row per (sample, metric): the value, or why it is missing."""
        path = self.path(RAW_TABLE)
        tmp = path.with_name(path.name + ".tmp")
        with open(tmp, "w", encoding="utf-8") as f:
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
        os.replace(tmp, path)
        return path
