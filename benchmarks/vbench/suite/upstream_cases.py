"""Test data: folders on which upstream's build_full_info_json was run, and what it wrote.

testdata/upstream_layouts.json (its `upstream` and `how` keys say which code and how) holds
per case the inputs (mode, dimensions, file names, special_str, prompt, prompt file,
category prompts) and per listing order upstream's `{name}_full_info.json`: its sha256, its
length and the entries with videos, or the exception it raised. Video paths in it are
relative to the folder holding `videos/`, so a test builds that folder and works in it.
"""

import hashlib
import json
import pathlib
from typing import Dict, List

from benchmarks.common import paths

DATA = "benchmarks/vbench/suite/testdata/upstream_layouts.json"


def cases() -> Dict[str, dict]:
    """The cases by name."""
    data = json.loads(paths.runfile(DATA).read_text(encoding="utf-8"))
    return {case["name"]: case for case in data["cases"]}


def build(case: dict, root: pathlib.Path) -> None:
    """Lays the case out under `root` (empty video files, its folders, prompts.json,
    category/<category>.txt); the caller works in `root` (monkeypatch.chdir)."""
    videos = root / "videos"
    videos.mkdir()
    for name in case["files"]:
        (videos / name).write_bytes(b"")
    for name in case.get("dirs", []):
        (videos / name).mkdir()
    if case.get("prompt_file") is not None:
        keys = {k.replace("{cwd}", str(root)): v for k, v in case["prompt_file"].items()}
        (root / "prompts.json").write_text(json.dumps(keys), encoding="utf-8")
    if case.get("category_prompts") is not None:
        (root / "category").mkdir()
        (root / "category" / f"{case['category']}.txt").write_text(
            "".join(p + "\n" for p in case["category_prompts"]), encoding="utf-8")


def with_videos(full_info: List[dict]) -> List[list]:
    """[index, entry] for the entries with videos, as the test data stores them."""
    return [[i, e] for i, e in enumerate(full_info) if e["video_list"]]


def digest(text: str) -> str:
    """sha256 of the file upstream's save_json writes (open(path, 'w') encodes UTF-8 here;
    the text is ASCII anyway: json.dump escapes the rest)."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()

