"""`worldeval merge`: N shard output dirs -> the inputs of one run's outputs.

Each shard ran `<benchmark>:run --num_shards=N --shard_index=I --output_dir=O_I`. Merging
checks that the shards are one run split up (same benchmark, code, locked environment,
flags and checkpoints; every shard index once) and that each shard's stores are the
files its run wrote (the sha256 its scorecard records in `output_sha256`: a store edited
or damaged after the run is refused), concatenates their per-sample stores
(every `*.jsonl` file of SampleScore lines carrying their config digest, with the
samples' attachments) into --output_dir, and returns the runner arguments that write
the outputs from those samples alone: the shards' own flags with
`--stored_only`, so nothing is recomputed and a sample no shard holds is recorded as
not covered, by name. The runner then writes the same files a single run writes.
"""

import dataclasses
import json
import pathlib
import shlex
import shutil
from typing import Dict, List, Sequence, Tuple

from google.protobuf import json_format

from benchmarks.common import outputs as outputs_lib
from benchmarks.common import provenance
from benchmarks.common import sample_store
from metrics import cli_support
from proto import scorecard_pb2

# Flags that differ between the shards of one run, or that the merge sets itself.
# Executor settings (and what the executor recorded) never change a number: shards may
# differ in them.
PER_SHARD_FLAGS = ("output_dir", "shard_index", "num_shards", "resume", "stored_only",
                   "executor", "ray_address", "gpus_per_worker", "num_workers",
                   "max_sample_retries", "decode_workers", "ray_workers", "ray_gpus_per_worker",
                   "ray_cluster")
BOOLEAN_PER_SHARD = ("resume", "stored_only")


class MergeError(Exception):
    """The inputs are not the shards of one run; the message says which differs."""


@dataclasses.dataclass
class Shard:
    path: pathlib.Path
    card: scorecard_pb2.Scorecard

    @property
    def index(self) -> int:
        return int(self.card.run.flags.get("shard_index", "0"))

    @property
    def count(self) -> int:
        return int(self.card.run.flags.get("num_shards", "1"))


def read_shard(path: pathlib.Path) -> Shard:
    card_path = path / outputs_lib.SCORECARD
    if not card_path.is_file():
        raise MergeError(f"{path}: no {outputs_lib.SCORECARD}, so not a finished shard run "
                         "(rerun that shard with --resume to finish it)")
    try:
        card = json_format.Parse(card_path.read_text(encoding="utf-8"),
                                 scorecard_pb2.Scorecard())
    except (ValueError, json_format.ParseError) as e:
        raise MergeError(f"{card_path}: not a worldeval scorecard ({e})") from e
    return Shard(path, card)


def _identity(shard: Shard) -> Dict[str, object]:
    """What must be equal across the shards of one run, by name."""
    prov = shard.card.provenance
    return {
        "benchmark": shard.card.benchmark_id,
        "code": (prov.code_revision, prov.code_dirty),
        "locked environment": (prov.lock_digest, sorted(prov.package_versions.items())),
        "flags": sorted((k, v) for k, v in shard.card.run.flags.items()
                        if k not in PER_SHARD_FLAGS),
        "checkpoints": sorted((c.metric_id, c.id, c.revision, c.sha256)
                              for c in prov.checkpoints),
        "shard count": shard.count,
    }


def check_shards(shards: Sequence[Shard], benchmark: str,
                 allow_missing: bool = False) -> List[int]:
    """MergeError unless the shards are one run of `benchmark`; returns the missing
    shard indices (empty unless `allow_missing`)."""
    first = _identity(shards[0])
    if first["benchmark"] != benchmark:
        raise MergeError(f"{shards[0].path} is a {first['benchmark']} run, not {benchmark}")
    for shard in shards[1:]:
        ident = _identity(shard)
        for what, value in ident.items():
            if value != first[what]:
                raise MergeError(f"{shard.path} and {shards[0].path} were made with different "
                                 f"{what}: {value} vs {first[what]}")
    code, dirty = provenance.code_revision()
    if (code, dirty) != first["code"]:
        raise MergeError(f"the shards were made by worldeval {first['code'][0]} (dirty: "
                         f"{first['code'][1]}), this is {code} (dirty: {dirty}): merge with "
                         "the checkout that made them")
    seen: Dict[int, pathlib.Path] = {}
    for shard in shards:
        if shard.index in seen:
            raise MergeError(f"shard {shard.index} is given twice: {seen[shard.index]} and "
                             f"{shard.path}")
        seen[shard.index] = shard.path
    missing = sorted(set(range(shards[0].count)) - set(seen))
    if missing and not allow_missing:
        raise MergeError(f"shards {missing} of {shards[0].count} are missing; give their "
                         "output dirs, or --allow_missing_shards to merge without them (their "
                         "samples are then listed as not covered)")
    return missing


def check_stores(shards: Sequence[Shard]) -> None:
    """MergeError unless every *.jsonl file of each shard is the one its run wrote: the
    sha256 its scorecard recorded when it was written (Scorecard.output_sha256) for each
    file it recorded, and a recorded one for every per-sample store merge would take."""
    for shard in shards:
        recorded = dict(shard.card.output_sha256)
        present = {p.name: p for p in shard.path.glob("*.jsonl") if p.is_file()}
        where = f"shard {shard.index} ({shard.path})"
        for name in sorted(set(recorded) | set(present)):
            if name not in present:
                raise MergeError(f"{where}: {name} is missing, and its "
                                 f"{outputs_lib.SCORECARD} records it (restore it, or rerun "
                                 "that shard)")
            if name not in recorded:
                if _store_lines(present[name]):
                    raise MergeError(
                        f"{where}: {name} has no sha256 in its {outputs_lib.SCORECARD}, so "
                        "nothing shows this per-sample store is the one its run wrote "
                        "(rerun that shard)")
                continue
            got = outputs_lib.file_sha256(present[name])
            if got != recorded[name]:
                raise MergeError(
                    f"{where}: {name} changed after the shard's run wrote it (sha256 "
                    f"{got[:16]}..., its {outputs_lib.SCORECARD} records "
                    f"{recorded[name][:16]}...): an edited or damaged per-sample store is not "
                    "merged (restore it, or rerun that shard into a new --output_dir)")


def _store_lines(path: pathlib.Path) -> List[Tuple[Tuple[str, str], str]]:
    """((split, sample id), line) of a per-sample store; [] for a jsonl of another kind."""
    out = []
    with open(path, encoding="utf-8", errors="replace") as f:  # bad bytes: a bad line
        for line in f:
            if not line.strip():
                continue
            try:
                row = json.loads(line)
            except ValueError:
                continue  # a torn line: the runner drops it too
            if not isinstance(row, dict) or "sample_id" not in row or \
                    "config_digest" not in row.get("diagnostics", {}):
                return []  # not a per-sample store (e.g. raw_metric_table.jsonl)
            out.append(((row.get("split", ""), row["sample_id"]), line))
    return out


def combine_stores(shards: Sequence[Shard], output_dir: pathlib.Path) -> Dict[str, int]:
    """Writes each store file of the shards, concatenated, into output_dir, with their
    attachment folders (benchmarks/common/sample_store.py) joined beside it; returns
    {file name: samples}. MergeError when a sample is in two shards."""
    names = sorted({p.name for s in shards for p in s.path.glob("*.jsonl")})
    written = {}
    for name in names:
        owner: Dict[Tuple[str, str], pathlib.Path] = {}
        lines = []
        for shard in sorted(shards, key=lambda s: s.index):
            path = shard.path / name
            if not path.is_file():
                continue
            for key, line in _store_lines(path):
                if key in owner and owner[key] != shard.path:
                    raise MergeError(f"sample {'/'.join(filter(None, key))} is in two shards "
                                     f"({owner[key]} and {shard.path}): not one split run")
                owner[key] = shard.path
                lines.append(line)
        if lines:
            (output_dir / name).write_text("".join(lines), encoding="utf-8")
            written[name] = len(lines)
            for shard in sorted(set(owner.values())):
                folder = sample_store.attachments_dir(shard / name)
                if folder.is_dir():  # one folder per sample: the shards' never collide
                    shutil.copytree(folder, sample_store.attachments_dir(output_dir / name),
                                    dirs_exist_ok=True)
    return written


def _drop_per_shard(args: List[str]) -> List[str]:
    """`args` without the flags PER_SHARD_FLAGS names (--x=v, --x v, --x, --nox)."""
    out, skip = [], False
    for arg in args:
        if skip:
            skip = False
            continue
        if not arg.startswith("--"):
            out.append(arg)
            continue
        name = arg[2:].split("=", 1)[0]
        if name in BOOLEAN_PER_SHARD or (name.startswith("no") and name[2:] in BOOLEAN_PER_SHARD):
            continue
        if name in PER_SHARD_FLAGS:
            skip = "=" not in arg  # its value is the next argument
            continue
        out.append(arg)
    return out


def runner_args(shard: Shard, output_dir: pathlib.Path) -> List[str]:
    """The shard's own command line without its per-shard flags, writing the merged
    outputs from the stored samples only."""
    args = shlex.split(shard.card.run.command)[1:]
    return _drop_per_shard(args) + [f"--output_dir={output_dir}", "--stored_only"]


def prepare(inputs: Sequence[str], output_dir: str, benchmark: str,
            allow_missing: bool = False) -> List[str]:
    """Checks the shards, combines their stores into output_dir; returns the runner's
    arguments. MergeError for anything that is not one split run."""
    if not inputs:
        raise MergeError("--inputs: give the shards' output dirs, comma-separated")
    out = cli_support.user_path(output_dir).resolve()
    paths = [cli_support.user_path(p).resolve() for p in inputs]
    if out in paths:
        raise MergeError(f"--output_dir {out} is one of the shards: merge into a new directory")
    if out.exists() and any(out.iterdir()):
        raise MergeError(f"--output_dir {out} is not empty: merge into a new directory")
    shards = [read_shard(p) for p in paths]
    missing = check_shards(shards, benchmark, allow_missing)
    check_stores(shards)
    out.mkdir(parents=True, exist_ok=True)
    written = combine_stores(shards, out)
    print(f"merge: {len(shards)} of {shards[0].count} shards"
          + (f" (shards {missing} missing)" if missing else "") + "; "
          + ", ".join(f"{name}: {count} samples" for name, count in written.items()),
          flush=True)
    return runner_args(shards[0], out)
