"""llm-vqa.py's per-clip CSV and overall.csv on a full disk (benchmarks/common/
full_disk.py): written whole or not at all, the error names the file (app_main: exit 2),
and a clean write is csv.DictWriter's bytes on a file opened with newline=""."""

import csv
import json

from benchmarks.common import full_disk
from benchmarks.memobench.vqa import results_csv


def _official(path, columns, rows) -> bytes:
    with open(path, "w", newline="", encoding="utf-8") as f:  # llm-vqa.py's writer
        writer = csv.DictWriter(f, fieldnames=columns)
        writer.writeheader()
        writer.writerows(rows)
    return path.read_bytes()


def test_clip_csv_on_a_full_disk(monkeypatch, tmp_path):
    evaluation = json.dumps([{"ID": 1, "Answer": "Oui", "Reasoning": 'a "quoted", wörd'}],
                            ensure_ascii=False)
    score = json.dumps({"Instruction Following": 0.5})
    path = tmp_path / "LTX-Video" / "Barnyard-1.csv"
    clean = full_disk.check_each_write(monkeypatch, lambda: results_csv.write_clip(
        path, "Barnyard", "1", "Barnyard_001", evaluation, score), path)
    assert clean == _official(tmp_path / "official.csv", list(results_csv.CLIP_COLUMNS), [
        {"scene": "Barnyard", "video_id": "1", "folder": "Barnyard_001",
         "Evaluation": evaluation, "score": score}])
    assert clean.endswith(b"\r\n") and "wörd".encode() in clean  # UTF-8, CRLF rows


def test_overall_csv_on_a_full_disk(monkeypatch, tmp_path):
    rows = [{"scene": "Barnyard", "video_id": "1", "Instruction Following": 0.5},
            {"scene": "Nordic", "video_id": "3", "Instruction Following": 1 / 3,
             "Continuity of Memory": 0.25}]
    path = tmp_path / results_csv.OVERALL
    clean = full_disk.check_each_write(
        monkeypatch, lambda: results_csv.write_overall(path, rows), path)
    columns = ["scene", "video_id", "Instruction Following", "Continuity of Memory"]
    assert clean == _official(tmp_path / "official.csv", columns, rows)
