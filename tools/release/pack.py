"""Writes each runner's release file from Bazel's own plan for its zip, each file compressed once.

    pack --actions=A.json --execroot=E --output_base=O --out_dir=dist --sums=S \
        //benchmarks/a:run ...

A is `bazel aquery --output=jsonproto 'mnemonic("PythonZipper", ...)'` for the runners
(built with --define=worldeval_runfiles=per_file): each action's argument list is the
zipper's `name=path` list, in its order. The release file of a runner is
`#!/usr/bin/env python3` and then that zip, byte for byte what the zipper would write
(zip_members.py), so the release is unchanged; what changes is the cost: the runners
share ~6.6 GB of wheels, compressed once here (on every core) instead of once per
runner, and each later zip copies the compressed bytes from the first that has them.

`__main__.py` is the runner's zip stub (`<runner>.temp`), which Bazel makes only for its
own zip action. It is Bazel's launcher `<runner>` with `IsRunningFromZip()` answering
True: it is derived from the launcher, and the derivation refuses a launcher that does
not have exactly the one line it changes.
"""

import argparse
import dataclasses
import hashlib
import json
import multiprocessing
import os
import pathlib
import sys
import tempfile
import time
import zipfile

from tools.release import zip_members

SHEBANG = b"#!/usr/bin/env python3\n"
LAUNCHER_LINE = "def IsRunningFromZip():\n  return False\n"
ZIP_STUB_LINE = "def IsRunningFromZip():\n  return True\n"
COPY_CHUNK = 8 << 20


@dataclasses.dataclass(frozen=True)
class Plan:
    """One runner's zip: its label, release file name and (member name, source path) list."""

    label: str
    release_name: str
    members: list


def release_name(label: str) -> str:
    """//benchmarks/vbench:run -> vbench-run (the name release.sh has always published)."""
    package, _, name = label.lstrip("/").partition(":")
    return f"{package.rsplit('/', 1)[-1]}-{name}"


def read_plans(actions_json: pathlib.Path, labels: list) -> list:
    """The zipper actions of `labels` from aquery's jsonproto, in the order of `labels`."""
    data = json.loads(actions_json.read_text())
    by_id = {t["id"]: t["label"] for t in data.get("targets", [])}
    found = {}
    for action in data.get("actions", []):
        if action.get("mnemonic") != "PythonZipper":
            continue
        args = action["arguments"]
        if len(args) < 3 or args[1] != "cC":
            raise ValueError(f"{actions_json}: unexpected zipper command line {args[:3]}")
        members = [tuple(arg.partition("=")[::2]) for arg in args[3:]]
        found[by_id.get(action["targetId"], "?")] = members
    missing = [label for label in labels if label not in found]
    if missing:
        raise ValueError(f"{actions_json}: no PythonZipper action for {missing} "
                         f"(found {sorted(found)})")
    return [Plan(label, release_name(label), found[label]) for label in labels]


def zip_stub(temp_path: pathlib.Path, workdir: pathlib.Path, index: int) -> pathlib.Path:
    """`<runner>.temp` where Bazel made it, else derived from the launcher beside it."""
    if temp_path.is_file():
        return temp_path
    launcher = temp_path.with_suffix("")
    text = launcher.read_text()
    if text.count(LAUNCHER_LINE) != 1:
        raise ValueError(f"{launcher}: Bazel's launcher no longer has exactly one "
                         f"{LAUNCHER_LINE!r}: derive the zip stub anew (tools/release/pack.py)")
    out = workdir / f"zip_stub_{index}.py"
    out.write_text(text.replace(LAUNCHER_LINE, ZIP_STUB_LINE))
    return out


def resolve(plans: list, execroot: pathlib.Path, output_base: pathlib.Path,
            workdir: pathlib.Path) -> list:
    """Source paths made absolute; the zip stub derived where Bazel did not build it.

    A path is relative to the execution root, whose `external/<repo>` links Bazel lays
    out only for the command that runs an action: external files are read where Bazel
    keeps them, `<output_base>/external/`.
    """
    resolved = []
    for index, plan in enumerate(plans):
        members = []
        for name, path in plan.members:
            if path:
                path = (output_base if path.startswith("external/") else execroot) / path
                if name == "__main__.py":
                    path = zip_stub(path, workdir, index)
                path = str(path)
            members.append((name, path))
        resolved.append(dataclasses.replace(plan, members=members))
    return resolved


class HashingFile:
    """A release file being written: its sha256 and the zip offset (after the shebang)."""

    def __init__(self, path: pathlib.Path):
        self.path = path
        self.file = open(path, "wb")
        self.sha = hashlib.sha256()
        self.file.write(SHEBANG)
        self.sha.update(SHEBANG)
        self.offset = 0

    def write(self, data: bytes) -> None:
        self.file.write(data)
        self.sha.update(data)
        self.offset += len(data)

    def copy_from(self, source: pathlib.Path, start: int, length: int) -> None:
        self.file.flush()
        with open(source, "rb") as f:
            f.seek(start)
            while length:
                chunk = f.read(min(COPY_CHUNK, length))
                if not chunk:
                    raise IOError(f"{source}: ended before the member copied from it")
                self.write(chunk)
                length -= len(chunk)


def write_all(plans: list, out_dir: pathlib.Path, jobs: int) -> list:
    """Writes every release file; returns [(sha256, release name)] in plan order."""
    done = {}  # source path -> (release file, data start in it, Compressed without data)
    sums = []
    with multiprocessing.get_context("fork").Pool(jobs) as pool:
        for plan in plans:
            out = HashingFile(out_dir / plan.release_name)
            todo, seen = [], set()
            for _, path in plan.members:
                if path not in done and path not in seen:
                    seen.add(path)
                    todo.append(path)
            fresh = pool.imap(zip_members.compress, todo, chunksize=4)
            directory = []
            for name, path in plan.members:
                encoded = name.encode()
                header_offset = out.offset
                if path in done:
                    source, start, member = done[path]
                    out.write(zip_members.local_header(encoded, member))
                    out.copy_from(source, start, member.compressed_size)
                else:
                    member = next(fresh)
                    out.write(zip_members.local_header(encoded, member))
                    start = len(SHEBANG) + out.offset
                    out.write(member.data)
                    member = dataclasses.replace(member, data=b"")
                    done[path] = (out.path, start, member)
                directory.append(zip_members.central_header(encoded, member, header_offset))
            directory_offset = out.offset
            for entry in directory:
                out.write(entry)
            zip_members.check_limits(plan.release_name, len(directory), out.offset)
            out.write(zip_members.end_record(len(directory), out.offset - directory_offset,
                                             directory_offset))
            out.file.close()
            os.chmod(out.path, 0o755)
            with zipfile.ZipFile(out.path) as check:  # the central directory reads back
                if len(check.infolist()) != len(plan.members):
                    raise ValueError(f"{out.path}: wrote {len(plan.members)} members, "
                                     f"reads back {len(check.infolist())}")
            sums.append((out.sha.hexdigest(), plan.release_name))
    return sums


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--actions", type=pathlib.Path, required=True)
    parser.add_argument("--execroot", type=pathlib.Path, required=True)
    parser.add_argument("--output_base", type=pathlib.Path, required=True)
    parser.add_argument("--out_dir", type=pathlib.Path, required=True)
    parser.add_argument("--sums", type=pathlib.Path, required=True)
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("labels", nargs="+")
    args = parser.parse_args(argv)
    started = time.monotonic()
    args.out_dir.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as workdir:
        plans = resolve(read_plans(args.actions, args.labels), args.execroot,
                        args.output_base, pathlib.Path(workdir))
        sums = write_all(plans, args.out_dir, args.jobs)
    args.sums.write_text("".join(f"{digest}  {name}\n" for digest, name in sums))
    distinct = len({path for plan in plans for _, path in plan.members})
    print(f"pack: {len(plans)} release files, {distinct} distinct files compressed once, "
          f"{time.monotonic() - started:.0f} s", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
