"""leaderboard.py's aggregation, checked against an independent transcription of it.

The transcription below reads the same official-shaped files with the csv module and
numpy, following leaderboard/leaderboard.py (MemoBench HEAD) line by line: newest
eval_*.csv per folder, _CANONICAL_KEY, skipped VQA folders, nanmean over clips, the
CameraControllability x100 heuristic, ORS x100, VQA x100, and to_csv's "%.4f".
"""

import csv
import fnmatch
import json
import math
import os
import warnings

import numpy as np
import pytest

from benchmarks.common.errors import InputError
from benchmarks.memobench import leaderboard
from benchmarks.memobench import leaderboard_files as files_lib
from benchmarks.memobench import leaderboard_fixture as fixture

# The official maps, transcribed for the names the fixture uses (plus a few more).
_OFFICIAL_KEY = {"LingBot-World": "lingbot-world", "lingbot-world": "lingbot-world",
                 "Lingbot": "lingbot-world", "wan2.2": "wan2.2", "Wan2.2": "wan2.2",
                 "StableVirtualCamera": "stable-virtual-camera", "CogVideoX": "cogvideo"}
_OFFICIAL_SHOWN = {"lingbot-world": "LingBot-World", "wan2.2": "Wan2.2",
                   "stable-virtual-camera": "SVC", "cogvideo": "CogVideoX"}
_STEP1 = ["VisualQuality", "MotionSmoothness", "ObjIdentityConsistency", "Geo3DConsistency",
          "CameraControllability", "ImageRewardScore", "GT_ALL_PSNR", "GT_ALL_SSIM",
          "GT_ALL_LPIPS"]
_VQA = {"Instruction Following": "InstructionFollowing",
        "Object and Background": "ObjectBackground",
        "Continuity of Memory": "ContinuityOfMemory", "Physics Adherence": "PhysicsAdherence"}
_ORDER = ["VisualQuality", "MotionSmoothness", "ObjIdentityConsistency", "Geo3DConsistency",
          "CameraControllability", "ImageRewardScore", "ORS", "GT_ALL_PSNR", "GT_ALL_SSIM",
          "GT_ALL_LPIPS", "InstructionFollowing", "ObjectBackground", "ContinuityOfMemory",
          "PhysicsAdherence"]


def _key(name):
    return _OFFICIAL_KEY.get(name, name.lower())


def _rows(path):
    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def _nanmean(values):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # all-NaN: nan, as pandas gives
        return float(np.nanmean(np.array(values, dtype=float))) if values else math.nan


def _column(rows, name):
    return _nanmean([float(r[name]) if r.get(name) else math.nan for r in rows])


def _folders(root):
    return [d for d in sorted(os.listdir(root)) if os.path.isdir(os.path.join(root, d))]


def transcribed_leaderboard(eval_dir=None, ors_dir=None, vqa_dir=None):
    """{model key: {column: value}} and the leaderboard.csv text, by the official rules."""
    data = {}
    for d in _folders(eval_dir) if eval_dir else []:
        names = fnmatch.filter(os.listdir(os.path.join(eval_dir, d)), "eval_*.csv")
        if names:
            newest = max(names, key=lambda n: os.path.getmtime(os.path.join(eval_dir, d, n)))
            data.setdefault(_key(d), {})["eval"] = _rows(os.path.join(eval_dir, d, newest))
    for d in _folders(ors_dir) if ors_dir else []:
        if os.path.exists(os.path.join(ors_dir, d, "ors_scores.csv")):
            data.setdefault(_key(d), {})["ors"] = _rows(os.path.join(ors_dir, d, "ors_scores.csv"))
    for d in _folders(vqa_dir) if vqa_dir else []:
        if d.endswith("_old") or d == "Lingbot":
            continue
        clips = []
        for name in sorted(fnmatch.filter(os.listdir(os.path.join(vqa_dir, d)), "*.csv")):
            for r in _rows(os.path.join(vqa_dir, d, name)):
                if "score" in r:
                    score = json.loads(r["score"])
                    clips.append({v: score[k] * 100 if k in score else math.nan
                                  for k, v in _VQA.items()})
        if clips:
            data.setdefault(_key(d), {})["vqa"] = clips
    table = {}
    for key in sorted(data):
        row, found = {}, data[key]
        if "eval" in found:
            for m in _STEP1:
                column = ("ImageRewardScore_pct" if m == "ImageRewardScore"
                          and "ImageRewardScore_pct" in found["eval"][0] else m)
                row[m] = _column(found["eval"], column) if column in found["eval"][0] else math.nan
                if m == "CameraControllability" and row[m] < 1:
                    row[m] *= 100
        row["ORS"] = _column(found["ors"], "ors") * 100 if "ors" in found else math.nan
        for m in _VQA.values():
            row[m] = _nanmean([c[m] for c in found["vqa"]]) if "vqa" in found else math.nan
        table[key] = row
    columns = [c for c in _ORDER if any(c in row for row in table.values())]
    lines = [",".join(["Model"] + columns)]
    for key, row in table.items():
        cells = ["" if math.isnan(row.get(c, math.nan)) else "%.4f" % row[c] for c in columns]
        lines.append(",".join([_OFFICIAL_SHOWN.get(key, key)] + cells))
    return table, "\n".join(lines) + "\n"


def _ours(roots, tmp_path):
    table = leaderboard.build_table(files_lib.load_all(**roots))
    return table, leaderboard.write_csv(table, tmp_path / "leaderboard.csv").read_text()


def test_csv_is_the_transcription_byte_for_byte(tmp_path):
    roots = fixture.build_tree(tmp_path)
    table, text = _ours(roots, tmp_path)
    expected_values, expected_text = transcribed_leaderboard(**roots)
    assert text == expected_text
    assert list(table["Model"]) == ["LingBot-World", "mymodel", "SVC", "Wan2.2"]
    for (_, ours), (key, theirs) in zip(table.iterrows(), expected_values.items(), strict=True):
        for column, value in theirs.items():
            assert ours[column] == pytest.approx(value, rel=1e-12, nan_ok=True), (key, column)


def test_the_official_choices_show_in_the_numbers(tmp_path):
    roots = fixture.build_tree(tmp_path)
    table = leaderboard.build_table(files_lib.load_all(**roots)).set_index("Model")
    wan_new = _rows(roots["eval_dir"] / "wan2.2" / "eval_both.csv")  # newer, sorts first
    assert table.loc["Wan2.2", "VisualQuality"] == pytest.approx(_column(wan_new, "VisualQuality"))
    assert table.loc["Wan2.2", "ImageRewardScore"] == pytest.approx(
        _column(wan_new, "ImageRewardScore_pct"))  # not the ImageRewardScore column
    mine = _rows(roots["eval_dir"] / "MyModel" / "eval_real.csv")  # 0-1 camera, no _pct
    assert table.loc["mymodel", "CameraControllability"] == pytest.approx(
        100 * _column(mine, "CameraControllability"))
    assert table.loc["mymodel", "ImageRewardScore"] == pytest.approx(
        _column(mine, "ImageRewardScore"))
    assert math.isnan(table.loc["SVC", "VisualQuality"])  # an ORS-only model
    kept = files_lib.read_vqa_dir(roots["vqa_dir"] / "lingbot-world").frame
    assert table.loc["LingBot-World", "PhysicsAdherence"] == pytest.approx(
        kept["PhysicsAdherence"].mean())  # not the stale Lingbot folder's
    assert len(kept) == 3  # overall.csv has no score column: ignored


def test_plain_mean_over_clips_pools_the_splits(tmp_path):
    folder = tmp_path / "eval" / "m"
    folder.mkdir(parents=True)
    (folder / "eval_both.csv").write_text(
        "id,scene,data_type,VisualQuality,CameraControllability,GT_ALL_PSNR\n"
        "Barnyard_001,Barnyard,synthetic,10,0.5,20\n"
        "Barnyard_002,Barnyard,synthetic,20,0.25,\n"
        "001,real,real,60,0.75,14\n"
        "002,real,real,,,\n")
    (tmp_path / "ors" / "m").mkdir(parents=True)
    (tmp_path / "ors" / "m" / "ors_scores.csv").write_text(
        "clip_id,data_type,scene,ors\nBarnyard_001,synthetic,Barnyard,0.25\n001,real,real,0.5\n")
    table, text = _ours({"eval_dir": tmp_path / "eval", "ors_dir": tmp_path / "ors"}, tmp_path)
    row = table.iloc[0]
    assert row["VisualQuality"] == 30.0  # (10 + 20 + 60) / 3, not the mean of split means
    assert row["CameraControllability"] == 50.0  # 0.5 mean < 1: x100
    assert row["GT_ALL_PSNR"] == 17.0 and row["ORS"] == 37.5
    assert math.isnan(row["MotionSmoothness"])  # no such column
    assert text.splitlines()[1] == "m,30.0000,,,,50.0000,,37.5000,17.0000,,,,,,"


def test_ors_alone_gives_ors_and_empty_vqa_columns_as_leaderboard_py_does(tmp_path):
    roots = fixture.build_tree(tmp_path)
    _, text = _ours({"ors_dir": roots["ors_dir"]}, tmp_path)
    assert text.splitlines()[0] == ("Model,ORS,InstructionFollowing,ObjectBackground,"
                                    "ContinuityOfMemory,PhysicsAdherence")
    assert text == transcribed_leaderboard(ors_dir=roots["ors_dir"])[1]


def test_no_model_and_bad_roots_are_input_errors(tmp_path):
    (tmp_path / "empty").mkdir()
    with pytest.raises(InputError, match="No model results found"):
        leaderboard.build_table(files_lib.load_all(eval_dir=tmp_path / "empty"))
    with pytest.raises(InputError, match="no such folder"):
        files_lib.load_all(ors_dir=tmp_path / "absent")


def test_text_in_a_metric_column_names_the_file(tmp_path):
    folder = tmp_path / "m"
    folder.mkdir()
    (folder / "eval_both.csv").write_text("id,data_type,VisualQuality\na,synthetic,high\n")
    with pytest.raises(InputError, match=r"eval_both\.csv.*VisualQuality"):
        leaderboard.build_table(files_lib.load_all(eval_dir=tmp_path))
