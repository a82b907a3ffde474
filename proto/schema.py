"""The one place that versions, writes and reads worldeval.v1 messages as JSON.

Every output file is a proto in its JSON mapping: whole messages for `*.json`, one
message per line for `*.jsonl`. Field names keep their proto spelling
(`preserving_proto_field_name`) so that files read the same as the .proto.
"""

import json
import os
import pathlib
from typing import Iterator, Type, TypeVar

from google.protobuf import json_format
from google.protobuf import message as message_lib

from proto import manifest_pb2
from proto import preflight_pb2
from proto import runtime_profile_pb2
from proto import scorecard_pb2

SCORECARD_SCHEMA = "worldeval.v1.Scorecard/1"
ARTIFACT_MANIFEST_SCHEMA = "worldeval.v1.ArtifactManifest/1"
ASSET_MANIFEST_SCHEMA = "worldeval.v1.AssetManifest/1"
RUNTIME_PROFILE_SCHEMA = "worldeval.v1.RuntimeProfile/1"
PREFLIGHT_REPORT_SCHEMA = "worldeval.v1.PreflightReport/1"
CHECKPOINT_LOCK_SCHEMA = "worldeval.v1.CheckpointLock/1"

_SCHEMAS = {
        scorecard_pb2.Scorecard: SCORECARD_SCHEMA,
        manifest_pb2.ArtifactManifest: ARTIFACT_MANIFEST_SCHEMA,
        manifest_pb2.AssetManifest: ASSET_MANIFEST_SCHEMA,
        runtime_profile_pb2.RuntimeProfile: RUNTIME_PROFILE_SCHEMA,
        preflight_pb2.PreflightReport: PREFLIGHT_REPORT_SCHEMA,
        manifest_pb2.CheckpointLock: CHECKPOINT_LOCK_SCHEMA,
}

M = TypeVar("M", bound=message_lib.Message)


def to_dict(msg: message_lib.Message) -> dict:
    return json_format.MessageToDict(msg, preserving_proto_field_name=True)


def to_json(msg: message_lib.Message) -> str:
    """Deterministic, indented JSON (sorted keys) for whole-file messages."""
    return json.dumps(to_dict(msg), indent=2, sort_keys=True) + "\n"


def to_json_line(msg: message_lib.Message) -> str:
    return json.dumps(to_dict(msg), sort_keys=True, separators=(",", ":")) + "\n"


def from_json(text: str, cls: Type[M]) -> M:
    """Parses JSON into `cls`; unknown fields are an error (a newer schema, or a typo)."""
    msg = json_format.Parse(text, cls())
    expected = _SCHEMAS.get(cls)
    version = getattr(msg, "schema_version", "")
    if expected and version and version.split("/")[0] != expected.split("/")[0]:
        raise ValueError(f"expected a {expected} message, got schema_version {version!r}")
    return msg


def stamp(msg: M) -> M:
    """Sets schema_version on the top-level messages that carry one."""
    if type(msg) in _SCHEMAS:
        msg.schema_version = _SCHEMAS[type(msg)]
    return msg


def write_json(path: os.PathLike, msg: message_lib.Message) -> None:
    """Writes atomically: a reader never sees half a file."""
    path = pathlib.Path(path)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(to_json(stamp(msg)))
    os.replace(tmp, path)


def read_json(path: os.PathLike, cls: Type[M]) -> M:
    return from_json(pathlib.Path(path).read_text(), cls)


def read_jsonl(path: os.PathLike, cls: Type[M]) -> Iterator[M]:
    """Yields each complete line; a torn last line (an interrupted write) is skipped."""
    with open(path, encoding="utf-8") as f:
        for line in f:
            if not line.endswith("\n"):
                break
            if line.strip():
                yield json_format.Parse(line, cls())
