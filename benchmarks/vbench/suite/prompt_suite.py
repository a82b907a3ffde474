"""VBench's prompt suite: the official `VBench_full_info.json` (spec §2).

The official file is a JSON list of 946 objects `{prompt_en, dimension[, auxiliary_info]}`
(944 distinct prompts: two appearance_style prompts come back with aesthetic, imaging and
overall consistency). It is not committed: it is read at run time out of the published wheel
vbench==0.1.5, which Bazel downloads at build time with its sha256 pinned (the WORKSPACE
repository @vbench_wheel) and ships as a data dependency; the member's own sha256 is pinned
here. A user may give another full-info file (the runner's --full_info_json, as upstream's
--full_json_dir); it is read the same way, and `Suite.official` says whether its digest is
the official one, so the scorecard can say "not the official suite".
"""

import dataclasses
import hashlib
import json
import os
import pathlib
import zipfile
from typing import Dict, Mapping, Optional, Tuple, Union

from benchmarks.common.errors import InputError

WHEEL_NAME = "vbench-0.1.5-py3-none-any.whl"
# Where the @vbench_wheel repository's file sits in a target's runfiles (external
# repositories are siblings of the main one: .bazelrc sets --nolegacy_external_runfiles).
WHEEL_RUNFILE = f"vbench_wheel/file/{WHEEL_NAME}"
WHEEL_MEMBER = "vbench/VBench_full_info.json"
OFFICIAL_SHA256 = "5dd2de80ee43cda750b2b72ea7023657c0b90d3702041c7e4608c65dbe50dccd"
OFFICIAL_ENTRIES = 946

PathLike = Union[str, os.PathLike]


@dataclasses.dataclass(frozen=True)
class Entry:
    """One object of the full-info list.

    Attributes:
      prompt_en: the prompt; standard mode looks for `{prompt_en}-{i}{suffix}`.
      dimension: the dimensions the prompt serves, in the file's order.
      auxiliary_info: as in the JSON, doubly nested per dimension
        (`{"scene": {"scene": "alley"}}`), or None when the object has no such key.
      raw: the object as read, its keys in the file's order: upstream writes it back into
        `{name}_full_info.json` with `video_list` added (read-only by convention).
    """

    prompt_en: str
    dimension: Tuple[str, ...]
    auxiliary_info: Optional[Dict[str, Dict[str, object]]]
    raw: Dict[str, object]


@dataclasses.dataclass(frozen=True)
class Suite:
    """A parsed full-info list and where it came from.

    Attributes:
      entries: every object, in the file's order (duplicated prompts included).
      source: the file read (`<wheel>!vbench/VBench_full_info.json` for the official one).
      sha256: the digest of the JSON file's bytes.
      official: whether `sha256` is the official suite's (OFFICIAL_SHA256).
    """

    entries: Tuple[Entry, ...]
    source: str
    sha256: str
    official: bool


def official_wheel() -> pathlib.Path:
    """The pinned wheel in the running target's runfiles (data: @vbench_wheel//file)."""
    roots = [pathlib.Path(__file__).parents[4]]  # <runfiles>/worldeval/benchmarks/vbench/suite
    if os.environ.get("RUNFILES_DIR"):
        roots.insert(0, pathlib.Path(os.environ["RUNFILES_DIR"]))
    for root in roots:
        if (root / WHEEL_RUNFILE).is_file():
            return root / WHEEL_RUNFILE
    raise FileNotFoundError(f"{WHEEL_RUNFILE} is not in this target's runfiles (add "
                            "@vbench_wheel//file to its data)")


def _entry(obj, where: str, source: str) -> Entry:
    if not isinstance(obj, dict):
        raise InputError(source, f"{where} to be an object", type(obj).__name__)
    prompt = obj.get("prompt_en")
    if not isinstance(prompt, str) or not prompt:
        raise InputError(source, f"{where} to have a non-empty string prompt_en",
                         repr(prompt) if "prompt_en" in obj else "no prompt_en")
    dims = obj.get("dimension")
    if not isinstance(dims, list) or not all(isinstance(d, str) for d in dims):
        raise InputError(source, f"{where} ({prompt!r}) to have dimension as a list of "
                         "dimension names", repr(dims) if "dimension" in obj else "no dimension")
    aux = obj.get("auxiliary_info")
    if "auxiliary_info" in obj and not (
            isinstance(aux, dict) and all(isinstance(v, dict) for v in aux.values())):
        raise InputError(source, f"{where} ({prompt!r}): auxiliary_info as an object of "
                         "objects per dimension ({\"scene\": {\"scene\": \"alley\"}})", repr(aux))
    return Entry(prompt, tuple(dims), aux, obj)


def parse(data, source: str) -> Tuple[Entry, ...]:
    """The entries of an already-parsed full-info list; InputError naming `source` and
    what was expected when the shape is not the official one."""
    if not isinstance(data, list):
        raise InputError(source, "a JSON list of {prompt_en, dimension[, auxiliary_info]} "
                         "objects (VBench_full_info.json)", type(data).__name__)
    if not data:
        raise InputError(source, "at least one full-info entry", "an empty list")
    return tuple(_entry(obj, f"entry {i}", source) for i, obj in enumerate(data))


def _decode(raw: bytes, source: str):
    try:
        return json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise InputError(source, "a UTF-8 JSON file (VBench full info)",
                         f"{type(e).__name__}: {e}") from e


def _read_wheel(wheel: pathlib.Path) -> Tuple[bytes, str]:
    source = f"{wheel}!{WHEEL_MEMBER}"
    try:
        with zipfile.ZipFile(wheel) as archive:
            raw = archive.read(WHEEL_MEMBER)
    except (OSError, KeyError, zipfile.BadZipFile) as e:
        raise InputError(wheel, f"the vbench wheel holding {WHEEL_MEMBER}",
                         f"{type(e).__name__}: {e}") from e
    digest = hashlib.sha256(raw).hexdigest()
    if digest != OFFICIAL_SHA256:
        raise InputError(source, f"the official suite (sha256 {OFFICIAL_SHA256})",
                         f"sha256 {digest}")
    return raw, source


def load(full_info_json: Optional[PathLike] = None) -> Suite:
    """The official suite from the pinned wheel, or the user's full-info file.

    Args:
      full_info_json: a user's full-info JSON (upstream's --full_json_dir); None reads the
        official one. A user file whose digest differs from the official one is accepted
        (Suite.official False); one that is unreadable or malformed is an InputError.
    """
    if full_info_json is None:
        raw, source = _read_wheel(official_wheel())
    else:
        source = str(full_info_json)
        try:
            raw = pathlib.Path(full_info_json).read_bytes()
        except FileNotFoundError as e:
            raise InputError(source, "a VBench full-info JSON file", "no such file") from e
        except OSError as e:
            raise InputError(source, "a readable VBench full-info JSON file",
                             f"{type(e).__name__}: {e}") from e
    digest = hashlib.sha256(raw).hexdigest()
    entries = parse(_decode(raw, source), source)
    return Suite(entries, source, digest, digest == OFFICIAL_SHA256)


def dimension_counts(entries) -> Mapping[str, int]:
    """Entries per dimension (an entry counts once per dimension it lists)."""
    counts: Dict[str, int] = {}
    for entry in entries:
        for dim in entry.dimension:
            counts[dim] = counts.get(dim, 0) + 1
    return counts
