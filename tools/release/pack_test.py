"""pack writes the zip Bazel's zipper writes, byte for byte, and the release file runs."""

import json
import os
import pathlib
import random
import subprocess
import sys
import zipfile

import pytest

from tools.release import pack, zip_members

ZIPPER = pathlib.Path(os.environ.get("TEST_SRCDIR", ""), "bazel_tools/tools/zip/zipper/zipper")

LAUNCHER = """#!/usr/bin/env python3
import sys

def IsRunningFromZip():
  return False

def Main():
  print('from zip' if IsRunningFromZip() else 'from runfiles')
  import hello
  hello.greet()

Main()
"""


def _tree(root: pathlib.Path) -> dict:
    """Files covering every way the zipper writes a member: name -> path (relative)."""
    rng = random.Random(7)
    files = {
        "bin/run": LAUNCHER,                                       # the runner's launcher
        "pkg/hello.py": "def greet():\n    print('hello from the zip')\n",
        "pkg/empty.txt": "",                                       # empty: stored
        "pkg/noise.bin": bytes(rng.getrandbits(8) for _ in range(5000)),   # stored
        "pkg/tiny.txt": "a",                                       # deflate is not smaller
        "pkg/text.txt": "the same line again\n" * 20000,           # deflated
        "pkg/lib.so": bytes(rng.choice(b"\0\0\0\1abc") for _ in range(300_000)),
        "pkg/tool": "#!/bin/sh\necho tool\n",                      # executable
        "pkg/readonly.py": "X = 1\n",                              # mode 0555
    }
    for name, content in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(content.encode() if isinstance(content, str) else content)
    os.chmod(root / "pkg/tool", 0o755)
    os.chmod(root / "pkg/readonly.py", 0o555)
    return files


def _members(stub_path: str) -> list:
    return [
        ("__main__.py", stub_path),
        ("__init__.py", ""),
        ("runfiles/worldeval/__init__.py", ""),
        ("runfiles/worldeval/hello.py", "pkg/hello.py"),
        ("runfiles/worldeval/data/empty.txt", "pkg/empty.txt"),
        ("runfiles/worldeval/data/noise.bin", "pkg/noise.bin"),
        ("runfiles/worldeval/data/tiny.txt", "pkg/tiny.txt"),
        ("runfiles/worldeval/data/text.txt", "pkg/text.txt"),
        ("runfiles/pypi__x/site/lib.so", "pkg/lib.so"),
        ("runfiles/pypi__x/site/bin/tool", "pkg/tool"),
        ("runfiles/pypi__x/site/readonly.py", "pkg/readonly.py"),
    ]


def _aquery(plans: dict) -> dict:
    """aquery's jsonproto shape: targets with ids, PythonZipper actions with arguments."""
    targets, actions = [], []
    for i, (label, members) in enumerate(plans.items(), start=1):
        targets.append({"id": i, "label": label})
        actions.append({"targetId": i, "mnemonic": "PythonZipper",
                        "arguments": ["external/bazel_tools/tools/zip/zipper/zipper", "cC",
                                      f"bazel-out/{i}.zip"] + [f"{n}={p}" for n, p in members]})
    actions.append({"targetId": 1, "mnemonic": "Middleman", "arguments": []})
    return {"targets": targets, "actions": actions}


@pytest.fixture()
def execroot(tmp_path):
    root = tmp_path / "execroot"
    _tree(root)
    stub = (root / "bin/run").read_text().replace("  return False", "  return True")
    (root / "bin/run.zip_stub").write_text(stub)  # what Bazel's run.temp would hold
    return root


def _bazel_zip(execroot: pathlib.Path, members: list, out: pathlib.Path) -> bytes:
    assert ZIPPER.is_file(), f"Bazel's zipper is not in the test's runfiles: {ZIPPER}"
    subprocess.run([str(ZIPPER), "cC", str(out)] + [f"{n}={p}" for n, p in members],
                   cwd=execroot, check=True)
    return out.read_bytes()


def test_release_file_is_shebang_plus_bazels_zip_and_shared_members_are_copied(
        execroot, tmp_path):
    # Two runners: the second lists most files again (copied, not recompressed) and one of
    # its own; the launcher's zip stub is derived (Bazel did not build run.temp).
    first = _members("bin/run.temp")
    second = _members("bin/run.temp")[:6] + [("runfiles/worldeval/own.txt", "pkg/text.txt"),
                                              ("runfiles/pypi__x/site/lib.so", "pkg/lib.so")]
    actions = tmp_path / "actions.json"
    actions.write_text(json.dumps(_aquery({"//benchmarks/a:run": first,
                                           "//benchmarks/b:run": second})))
    out_dir, sums = tmp_path / "dist", tmp_path / "SUMS"
    assert pack.main([f"--actions={actions}", f"--execroot={execroot}", f"--output_base={execroot}",
                      f"--out_dir={out_dir}", f"--sums={sums}", "--jobs=2",
                      "//benchmarks/b:run", "//benchmarks/a:run"]) == 0

    with_stub = lambda ms: [(n, "bin/run.zip_stub" if n == "__main__.py" else p)
                            for n, p in ms]
    for name, members in (("a-run", first), ("b-run", second)):
        bazel = _bazel_zip(execroot, with_stub(members), tmp_path / f"{name}.zip")
        ours = (out_dir / name).read_bytes()
        assert ours == pack.SHEBANG + bazel, name
        assert os.access(out_dir / name, os.X_OK)
    lines = sums.read_text().splitlines()
    assert [line.split("  ")[1] for line in lines] == ["b-run", "a-run"]  # the labels' order

    # The zipper's choices this pins: empty and incompressible members stored, modes kept.
    with zipfile.ZipFile(out_dir / "a-run") as z:
        info = {i.filename: i for i in z.infolist()}
        assert info["runfiles/worldeval/data/noise.bin"].compress_type == zipfile.ZIP_STORED
        assert info["runfiles/worldeval/data/tiny.txt"].compress_type == zipfile.ZIP_STORED
        assert info["runfiles/worldeval/data/text.txt"].compress_type == zipfile.ZIP_DEFLATED
        assert info["__init__.py"].external_attr >> 16 == 0o666
        assert info["runfiles/pypi__x/site/bin/tool"].external_attr >> 16 == 0o100755
        assert info["runfiles/pypi__x/site/readonly.py"].external_attr >> 16 == 0o100555
        assert z.testzip() is None


def test_release_file_runs_from_the_zip(execroot, tmp_path):
    members = [("__main__.py", "bin/run.temp"),
               ("hello.py", "pkg/hello.py")]  # zipimport finds it at the zip's root
    actions = tmp_path / "actions.json"
    actions.write_text(json.dumps(_aquery({"//x:run": members})))
    pack.main([f"--actions={actions}", f"--execroot={execroot}", f"--output_base={execroot}", f"--out_dir={tmp_path}",
               f"--sums={tmp_path / 'S'}", "//x:run"])
    run = subprocess.run([sys.executable, str(tmp_path / "x-run")], capture_output=True,
                         text=True, check=True)
    assert run.stdout.splitlines() == ["from zip", "hello from the zip"]


def test_a_launcher_without_the_one_line_is_refused(execroot, tmp_path):
    (execroot / "bin/run").write_text(LAUNCHER.replace("return False", "return is_zip"))
    with pytest.raises(ValueError, match="no longer has exactly one"):
        pack.zip_stub(execroot / "bin/run.temp", tmp_path, 0)


def test_a_runner_without_a_zip_action_is_named(tmp_path):
    actions = tmp_path / "a.json"
    actions.write_text(json.dumps(_aquery({"//a:run": []})))
    with pytest.raises(ValueError, match=r"//b:run"):
        pack.read_plans(actions, ["//a:run", "//b:run"])


def test_past_the_classic_zip_limits_is_refused():
    with pytest.raises(ValueError, match="ZIP64"):
        zip_members.check_limits("big-run", 70_000, 100)
    with pytest.raises(ValueError, match="ZIP64"):
        zip_members.check_limits("big-run", 10, 5 << 30)
    zip_members.check_limits("ok-run", 38_389, 3_412_461_242)
