"""Official-shaped MemoBench outputs for tests: eval_*.csv, ors_scores.csv and VQA CSVs.

Shaped as run_eval.py, compute_ors.py and llm-vqa.py write them (spec §5-§7: column
sets and order, failed clips as id/scene/data_type/error rows, a JSON `score` per VQA
file, an overall.csv beside them), filled with seeded random values and some gaps.
"""

import json
import math
import os
import pathlib
from typing import Sequence, Tuple

import numpy as np
import pandas as pd

from benchmarks.memobench import eval_csv

Clip = Tuple[str, str]  # (split, clip id)
VQA_DIMENSIONS = ("Instruction Following", "Object and Background", "Continuity of Memory",
                  "Physics Adherence")
SOME_CLIPS = (("synthetic", "Barnyard_001"), ("synthetic", "Barnyard_002"),
              ("synthetic", "ZenGarden_002"), ("synthetic", "Middle_Age_004"),
              ("real", "001"), ("real", "036"), ("real", "273"))


def _scene(split: str, clip_id: str) -> str:
    return clip_id.rsplit("_", 1)[0] if split == "synthetic" else "real"


def write_eval_csv(path: pathlib.Path, clips: Sequence[Clip], seed: int,
                   camera_scale: float = 100.0, failed: Sequence[str] = (),
                   drop_columns: Sequence[str] = ()) -> pathlib.Path:
    """An eval_*.csv; `failed` clips get error rows; every 3rd clip lacks ImageReward (as
    a clip without a prompt) and every 4th lacks GT_ALL_LPIPS."""
    rng = np.random.default_rng(seed)
    rows = []
    for i, (split, clip_id) in enumerate(clips):
        base = {"id": clip_id, "scene": _scene(split, clip_id), "data_type": split}
        if clip_id in failed:
            rows.append({**base, "error": f"Failed to read frame 7 of {clip_id}"})
            continue
        row = dict(base)
        row.update({c: float(rng.uniform(0, 100)) for c in eval_csv.COLUMNS[3:]})
        row.update(num_frames=81, h_start=20, r_start=50, gt_frames=300)
        # run_eval.py overwrites ImageRewardScore with the 0-100 _pct; a different 0-100
        # value here shows which of the two columns is read.
        row["ImageRewardScore"] = float(rng.uniform(0, 100))
        row["CameraControllability"] = camera_scale * float(rng.uniform(0, 1))
        for phase in ("O", "H", "R"):  # SSIM and LPIPS are 0-1 (spec §4.7)
            row[f"GT_{phase}_SSIM"] /= 100
            row[f"GT_{phase}_LPIPS"] /= 100
        row["GT_ALL_SSIM"], row["GT_ALL_LPIPS"] = rng.uniform(0, 1, 2)
        if i % 3 == 1:
            row["ImageRewardScore_pct"] = row["ImageRewardScore"] = np.nan
        if i % 4 == 2:
            row["GT_ALL_LPIPS"] = np.nan
        rows.append(row)
    df = pd.DataFrame(rows).drop(columns=list(drop_columns))
    path.parent.mkdir(parents=True, exist_ok=True)
    df.to_csv(path, index=False)
    return path


def write_ors_csv(path: pathlib.Path, clips: Sequence[Clip], seed: int) -> pathlib.Path:
    """compute_ors.py's ors_scores.csv; ors = detection_rate * mean_confidence (4 dp)."""
    rng = np.random.default_rng(seed)
    rows = []
    for split, clip_id in clips:
        n_r = int(rng.integers(10, 40))
        n_detected = int(rng.integers(0, n_r + 1))
        rate, confidence = round(n_detected / n_r, 4), round(float(rng.uniform(0.2, 1)), 4)
        rows.append({"clip_id": clip_id, "data_type": split, "scene": _scene(split, clip_id),
                     "n_gen": 81, "r_start": 81 - n_r, "ors": round(rate * confidence, 4),
                     "detection_rate": rate, "mean_confidence": confidence,
                     "n_r_frames": n_r, "n_detected": n_detected})
    path.parent.mkdir(parents=True, exist_ok=True)
    pd.DataFrame(rows).to_csv(path, index=False)
    return path


def write_vqa_dir(folder: pathlib.Path, clip_ids: Sequence[str], seed: int) -> pathlib.Path:
    """llm-vqa.py's {Scene}-{id}.csv per clip plus overall.csv; the 2nd clip's answer
    lacks Physics Adherence (Gemini dropped those questions)."""
    rng = np.random.default_rng(seed)
    folder.mkdir(parents=True, exist_ok=True)
    overall = []
    for i, clip_id in enumerate(clip_ids):
        scene, number = clip_id.rsplit("_", 1)
        scene = "Zen_Garden" if scene == "ZenGarden" else scene  # as the VQA files spell it
        score = {d: round(int(rng.integers(0, 7)) / 6, 4) for d in VQA_DIMENSIONS}
        if i == 1:
            del score["Physics Adherence"]
        row = {"scene": scene, "video_id": int(number), "folder": clip_id,
               "Evaluation": json.dumps([{"ID": 1, "Answer": "Yes"}]), "score": json.dumps(score)}
        pd.DataFrame([row]).to_csv(folder / f"{scene}-{int(number)}.csv", index=False)
        overall.append({"scene": scene, "video_id": int(number), **score})
    pd.DataFrame(overall).to_csv(folder / "overall.csv", index=False)
    return folder


def set_mtime(path: pathlib.Path, seconds: float) -> None:
    os.utime(path, (seconds, seconds))


def build_tree(root: pathlib.Path) -> dict:
    """Per-step roots for several models, with every case leaderboard.py treats specially.

    eval/: LingBot-World (map alias), wan2.2 with two eval CSVs (the newer, eval_both.csv,
    sorts first by name), MyModel (0-1 CameraControllability, no ImageRewardScore_pct),
    an empty folder and a stray file. ors/: LingBot-World, wan2.2 and StableVirtualCamera
    (an ORS-only model). vqa/: lingbot-world, the stale alias Lingbot, wan2.2 and wan2.2_old.
    """
    vqa_clips = ["Barnyard_001", "Barnyard_002", "ZenGarden_002"]
    eval_root, ors_root, vqa_root = root / "eval", root / "ors", root / "vqa"
    write_eval_csv(eval_root / "LingBot-World" / "eval_both.csv", SOME_CLIPS, 1,
                   failed=("Barnyard_002",))
    old = write_eval_csv(eval_root / "wan2.2" / "eval_zzz.csv", SOME_CLIPS, 2)
    new = write_eval_csv(eval_root / "wan2.2" / "eval_both.csv", SOME_CLIPS, 3)
    set_mtime(old, 1_600_000_000)
    set_mtime(new, 1_700_000_000)
    write_eval_csv(eval_root / "MyModel" / "eval_real.csv", SOME_CLIPS[4:], 4, camera_scale=1.0,
                   drop_columns=("ImageRewardScore_pct",))
    (eval_root / "Empty").mkdir()
    (eval_root / "notes.txt").write_text("not a model\n")
    write_ors_csv(ors_root / "LingBot-World" / "ors_scores.csv", SOME_CLIPS, 5)
    write_ors_csv(ors_root / "wan2.2" / "ors_scores.csv", SOME_CLIPS[:5], 6)
    write_ors_csv(ors_root / "StableVirtualCamera" / "ors_scores.csv", SOME_CLIPS, 7)
    write_vqa_dir(vqa_root / "lingbot-world", vqa_clips, 8)
    write_vqa_dir(vqa_root / "Lingbot", vqa_clips, 9)
    write_vqa_dir(vqa_root / "wan2.2", vqa_clips[:2], 10)
    write_vqa_dir(vqa_root / "wan2.2_old", vqa_clips, 11)
    return {"eval_dir": eval_root, "ors_dir": ors_root, "vqa_dir": vqa_root}


def official_csv(path, camera_scale=100.0):
    """An official-shaped eval CSV of three scored clips and one error row."""
    rng = np.random.default_rng(0)
    rows = []
    for i, clip in enumerate(["Barnyard_001", "Barnyard_002", "001"]):
        row = {c: float(rng.uniform(0, 1)) for c in eval_csv.COLUMNS[3:]}
        row.update(id=clip, scene="real" if clip == "001" else "Barnyard",
                   data_type="real" if clip == "001" else "synthetic", num_frames=81)
        row["CameraControllability"] = camera_scale * float(rng.uniform(0, 1))
        if i == 1:
            row["ImageRewardScore_pct"] = np.nan  # a clip without prompt
        rows.append(row)
    rows.append({"id": "Barnyard_003", "scene": "Barnyard", "data_type": "synthetic",
                 "error": "Failed to read frame"})
    df = pd.DataFrame(rows)
    df.to_csv(path, index=False)
    return df


def leaderboard_mean(df, column):
    """leaderboard.py: plain mean over clips, skipna."""
    return float(pd.to_numeric(df[column], errors="coerce").mean(skipna=True))


def metric_values(card):
    """{metric id: value, NaN when unavailable}."""
    return {m.id: (m.value if m.available else math.nan) for m in card.metrics}
