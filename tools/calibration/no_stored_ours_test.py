"""No calibration or parity test reads a stored "ours" value.

A parity check is evidence only when CI recomputes our side: a stored "ours" compared
with a stored official number still passes after our code drifted. So a stored "ours"
(our side of a comparison, written once by a run outside CI) may stay in the data only as
a declared record (RECORDS below), and code reads it only where that record says so, and
then only for rows that parity.csv marks `recorded` (never verified parity).

The test reads the working tree its own source file lives in (as //tools/lint:ruff_test
does), so a new data file or test is scanned without being listed; it is tagged
`external` in its BUILD file so that Bazel never serves a cached pass.

(a) Data: every json / jsonl / csv / textproto / npz file under a `calibration/` or
    `testdata/` folder. A stored "ours" is a name with the word `ours` in it (`ours`,
    `ours_seeded`, `cosine_ours`, `views_ours`; `_` separates words, so `hours` or
    `contours` are not): a JSON key whose value holds a number, a JSON string value, CSV
    column or CSV cell that is an identifier (`implementation` = `ours_seeded`, `tensor` =
    `pose_ours`), a textproto field name or quoted identifier, an npz array name. Each
    file's names must equal its RECORDS entry's.
(b) Code: every Python file but those in NOT_SCANNED. A string literal without
    whitespace that has the word `ours` in it (`"ours_seeded"`, `"_ours"`,
    `f"{x}_ours"`; not `f"{ours}"`, whose `ours` is code) is a read of a stored "ours",
    and none is allowed: a record is kept, never read (MapAnything's recorded rows are
    carried in parity.csv, not rebuilt from its stored "ours").
"""

import csv
import dataclasses
import io
import json
import os
import pathlib
import re
import tokenize
from typing import Dict, FrozenSet, Iterator, List, Set, Tuple

import numpy as np


@dataclasses.dataclass(frozen=True)
class Record:
    """A data file's stored "ours" names, kept as the record of a run outside CI."""
    names: FrozenSet[str]
    why: str


RECORDS: Dict[str, Record] = {
    "tools/calibration/mapanything_official.csv": Record(
        names=frozenset({"views_ours", "pose_ours"}),
        why="map-anything cannot be installed here, so CI cannot run our MapAnything glue: "
        "the preprocess and features rows compared two stored runs; parity.csv carries them "
        "as recorded (not verified) and no code rebuilds them; the score row is recomputed"),
    "benchmarks/mirabench/calibration/consistency_3d_official.csv": Record(
        names=frozenset({"ours_seeded"}),
        why="our seeded values beside the official spread, as the producing run wrote them; "
        "consistency_3d_test recomputes seed 0 and compares it with the official call 0"),
    "metrics/iqa/testdata/musiq_parity.json": Record(
        names=frozenset({
            "ours_frame_scores", "ours_max_abs_diff", "ours_batched_max_abs_diff",
            "antialias_ours_frame_scores", "antialias_ours_max_abs_diff",
            "antialias_ours_batched_max_abs_diff"}),
        why="what the scratch run saw; musiq_test recomputes ours against the official scores"),
    "metrics/frame_interpolation/testdata/amt_s_parity.json": Record(
        names=frozenset({"max_abs_diff_ours_vs_official"}),
        why="what the scratch run saw; amt_test recomputes ours against the official samples"),
    "metrics/viclip/testdata/decord_decode.json": Record(
        names=frozenset({"vlen_ours"}),
        why="the frame count our decoder found in the scratch run; no test reads the file"),
}

# Python files not scanned, each with why.
NOT_SCANNED = {
    "tools/calibration/no_stored_ours_test.py": "this check (it names the records)",
    "tools/calibration/official_runs/": "the scripts that write the stored numbers, run "
    "outside the repository; no test imports them",
    "tools/bench/": "the speed benches: their 'ours' is the live worldeval run they time "
    "(or the folder of weights they write for it), never a stored value; no test reads them",
    "tools/gpu/": "the GPU session: its 'ours' is the weight folder it writes for the live "
    "worldeval run it times",
}

_WORD = re.compile(r"(?<![A-Za-z0-9])ours(?![A-Za-z0-9])", re.IGNORECASE)
_IDENTIFIER = re.compile(r"^[\w.:{}\-\[\]]+$")
_DATA_SUFFIXES = (".json", ".jsonl", ".csv", ".textproto", ".txtpb", ".pbtxt", ".npz")
_DATA_FOLDERS = ("calibration", "testdata")


def _workspace() -> pathlib.Path:
    root = pathlib.Path(os.path.realpath(__file__)).parents[2]
    assert (root / "WORKSPACE").is_file() and (root / "tools/calibration").is_dir(), root
    return root


def _files(root: pathlib.Path) -> Iterator[pathlib.Path]:
    for folder, dirs, names in os.walk(root):
        dirs[:] = sorted(d for d in dirs if not d.startswith((".", "bazel-")))
        for name in sorted(names):
            yield pathlib.Path(folder) / name


def _ours(text: str) -> bool:
    return bool(_WORD.search(text))


def _is_number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _holds_number(value) -> bool:
    if _is_number(value):
        return True
    if isinstance(value, list):
        return any(_holds_number(v) for v in value)
    if isinstance(value, dict):
        return any(_holds_number(v) for v in value.values())
    return False


def _json_names(value) -> Iterator[str]:
    if isinstance(value, dict):
        for key, item in value.items():
            if _ours(key) and _holds_number(item):
                yield key
            yield from _json_names(item)
    elif isinstance(value, list):
        for item in value:
            yield from _json_names(item)
    elif isinstance(value, str) and _IDENTIFIER.match(value) and _ours(value):
        yield value


def _csv_names(text: str) -> Iterator[str]:
    for row in csv.reader(io.StringIO(text)):
        for cell in row:
            if _ours(cell) and _IDENTIFIER.match(cell):
                yield cell


def _textproto_names(text: str) -> Iterator[str]:
    for line in text.splitlines():
        line = line.split("#", 1)[0]
        field = re.match(r"\s*([A-Za-z_]\w*)\s*[:{<]", line)
        if field and _ours(field.group(1)):
            yield field.group(1)
        for quoted in re.findall(r'"([^"]*)"', line):
            if _ours(quoted) and _IDENTIFIER.match(quoted):
                yield quoted


def data_names(path: pathlib.Path) -> Set[str]:
    """The stored "ours" names in one data file (module doc, (a))."""
    if path.suffix == ".npz":
        with np.load(path, allow_pickle=False) as arrays:
            return {name for name in arrays.files if _ours(name)}
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".json":
        return set(_json_names(json.loads(text)))
    if path.suffix == ".jsonl":
        return {n for line in text.splitlines() if line.strip()
                for n in _json_names(json.loads(line))}
    if path.suffix == ".csv":
        return set(_csv_names(text))
    return set(_textproto_names(text))


def _literal_body(token: str) -> str:
    """The literal's text; an f-string's replacement fields as "{}" (`{ours}` is code)."""
    prefix = re.match(r"^[A-Za-z]*", token).group(0)
    body = token[len(prefix):]
    quote = body[:3] if body[:3] in ('"""', "'''") else body[:1]
    body = body[len(quote):len(body) - len(quote)]
    return re.sub(r"\{[^{}]*\}", "{}", body) if "f" in prefix.lower() else body


def code_reads(source: str) -> List[Tuple[int, str]]:
    """(line, literal) of each string literal that names a stored "ours" (module doc, (b))."""
    found = []
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type != tokenize.STRING:
            continue
        body = _literal_body(token.string)
        if body and not re.search(r"\s", body) and _ours(body):
            found.append((token.start[0], body))
    return found


def _scanned(rel: str) -> bool:
    return not any(rel == skip or (skip.endswith("/") and rel.startswith(skip))
                   for skip in NOT_SCANNED)


def _data_files(root: pathlib.Path) -> Iterator[Tuple[str, pathlib.Path]]:
    for path in _files(root):
        rel = path.relative_to(root).as_posix()
        if path.suffix in _DATA_SUFFIXES and any(
                part in _DATA_FOLDERS for part in pathlib.PurePosixPath(rel).parts[:-1]):
            yield rel, path


def data_violations(root: pathlib.Path) -> List[str]:
    bad = []
    seen = set()
    for rel, path in _data_files(root):
        names = data_names(path)
        if rel in RECORDS:
            seen.add(rel)
            if names != RECORDS[rel].names:
                bad.append(f"{rel}: stored ours {sorted(names)}, its RECORDS entry says "
                           f"{sorted(RECORDS[rel].names)}")
        elif names:
            bad.append(f"{rel}: stored ours {sorted(names)}: recompute our side in the test "
                       "and drop them, or declare them a record in RECORDS")
    bad += [f"{rel}: a RECORDS entry for a file that is not there" for rel in
            sorted(set(RECORDS) - seen)]
    return bad


def code_violations(root: pathlib.Path) -> List[str]:
    bad = []
    for path in _files(root):
        rel = path.relative_to(root).as_posix()
        if path.suffix != ".py" or not _scanned(rel):
            continue
        for line, literal in code_reads(path.read_text(encoding="utf-8")):
            bad.append(f"{rel}:{line}: reads a stored ours ({literal!r}); recompute our "
                           "side instead (tools/calibration/README.md, 'Verified or recorded')")
    return bad


def test_no_stored_ours_outside_the_declared_records():
    assert not data_violations(_workspace())


def test_no_code_reads_a_stored_ours():
    assert not code_violations(_workspace())


# The check can fail: the cases issue 37 fixed, as they were.
_OLD_CONSISTENCY_3D_TEST = '''
    official = next(r for r in rows if r["implementation"] == "official")
    ours_then = next(r for r in rows if r["implementation"] == "ours_seeded")
'''


def test_the_old_consistency_3d_assertion_is_caught(tmp_path):
    """The stored-ours assertion consistency_3d_test had, put back in a scratch tree."""
    (tmp_path / "benchmarks/mirabench").mkdir(parents=True)
    (tmp_path / "benchmarks/mirabench/consistency_3d_test.py").write_text(
        _OLD_CONSISTENCY_3D_TEST)
    bad = code_violations(tmp_path)
    assert len(bad) == 1 and "consistency_3d_test.py:3" in bad[0] and "ours_seeded" in bad[0]


def test_what_counts_as_reading_a_stored_ours():
    source = (
        '"""Ours with seed 0 equals the official call (prose is not a read)."""\n'
        'a = row["cosine_ours"]\n'
        'b = video[flavour + "ours_frame_scores"]\n'
        'c = table[f"{name}_ours"]\n'
        'd = strength["ours"]\n'
        'e = ["hours", "contours", "yours", "official", f"{src}{ours}.{part}"]\n')
    assert code_reads(source) == [(2, "cosine_ours"), (3, "ours_frame_scores"),
                                  (4, "{}_ours"), (5, "ours")]


def test_reading_a_records_name_is_a_read_too():
    assert code_reads('x = official[(i, "views_ours")]\n') == [(1, "views_ours")]


def test_undeclared_stored_ours_in_data_is_caught(tmp_path):
    folder = tmp_path / "metrics/thing/testdata"
    folder.mkdir(parents=True)
    (folder / "parity.json").write_text(json.dumps({
        "ours": "metrics.thing.score(frames) (how ours was computed: prose, no number)",
        "cases": [{"official": 1.0, "ours": 1.0}, {"side": "ours_seeded", "value": 2.0}],
        "hours": 3.0}))
    (folder / "official.csv").write_text(
        "pair,implementation,mean_err\n0-10,official,0.1\n0-10,ours_seeded,0.1\n")
    (folder / "cosine.csv").write_text("frame,cosine_official,cosine_ours\n0,0.5,0.5\n")
    np.savez(folder / "tensors.npz", pose_ours=np.zeros(3), pose_official=np.zeros(3))
    assert data_names(folder / "parity.json") == {"ours", "ours_seeded"}
    assert data_names(folder / "official.csv") == {"ours_seeded"}
    assert data_names(folder / "cosine.csv") == {"cosine_ours"}
    assert data_names(folder / "tensors.npz") == {"pose_ours"}
    bad = data_violations(tmp_path)
    assert sum("metrics/thing/testdata/" in b for b in bad) == 4, bad
