"""The per-clip rows of official MemoBench outputs (eval CSV, ors_scores.csv, VQA CSVs)
merged by (split, clip id) into one SampleScore per clip, with per-step coverage."""

import math
from typing import Dict, List, Optional

import pandas as pd

from benchmarks.common.metric_table import ValueChecks
from benchmarks.memobench import eval_csv
from benchmarks.memobench import leaderboard
from benchmarks.memobench import leaderboard_files as files_lib
from benchmarks.memobench import metric_specs
from benchmarks.memobench import official_clips
from benchmarks.memobench import verification
from proto import scorecard_pb2

STEPS = {"eval": verification.STEP1, "ors": verification.ORS, "vqa": verification.VQA}
# Step 1 diagnostics (not leaderboard columns) -> the eval-CSV column holding them.
DIAGNOSTIC_COLUMNS = {"GTRevisitSim": "GTRevisitSim", "AestheticScore": "AestheticScore",
                      **{f"GT_{p}_{m}": f"GT_{p}_{m}" for p in ("O", "H", "R")
                         for m in ("PSNR", "SSIM", "LPIPS")}}
RAW_ORS_PREFIX = "raw_ors:"
_SCENES = {c.rsplit("_", 1)[0].replace("_", "").lower(): c.rsplit("_", 1)[0]
           for c in official_clips.SYNTHETIC}


def step_kind(metric_id: str) -> str:
    return next((k for k, s in STEPS.items() if metric_id in s.metric_ids), "eval")


def _clip_id(split: str, raw) -> str:
    text = str(raw).strip()
    return f"{int(text):03d}" if split == verification.REAL and text.isdigit() else text


def vqa_clip_id(scene, video_id, folder) -> str:
    """The official clip id of a VQA row ({scene}-{video_id}, "Zen_Garden" for ZenGarden)."""
    scene_key = str(scene).replace("_", "").lower()
    if scene_key in _SCENES and str(video_id).strip().isdigit():
        return f"{_SCENES[scene_key]}_{int(str(video_id).strip()):03d}"
    return folder if isinstance(folder, str) and folder else f"{scene}-{video_id}"


def _numbers(row: pd.Series, skip) -> Dict[str, float]:
    """The row's finite numbers by column (an infinity is no value: screen names it)."""
    values = {}
    for column, cell in row.items():
        value = pd.to_numeric(cell, errors="coerce")
        if column not in skip and pd.notna(value) and math.isfinite(value):
            values[column] = float(value)
    return values


def checked_columns(kind: str, columns) -> Dict[str, str]:
    """{file column: metric id} of the per-clip values a step's file gives (VQA: the
    0-1 "score:" columns as llm-vqa.py wrote them)."""
    if kind == "eval":
        found = {metric: leaderboard.eval_column(metric, columns)
                 for metric in leaderboard.STEP1_METRICS}
        found.update(DIAGNOSTIC_COLUMNS)
        return {column: metric for metric, column in found.items() if column in columns}
    if kind == "ors":
        return {"ors": "ORS"} if "ors" in columns else {}
    return {files_lib.SCORE_PREFIX + m: m for m in leaderboard.VQA_METRICS
            if files_lib.SCORE_PREFIX + m in columns}


def _row_name(step: files_lib.StepResults, kind: str, number: int, record) -> str:
    if kind == "vqa":
        return f"{record['file']} (clip {record['scene']}-{record['video_id']})"
    clip = record["id" if kind == "eval" else "clip_id"]
    return f"{step.path.name} row {number + 2} (clip {clip})"  # the header is row 1


def screen(kind: str, step: files_lib.StepResults, checks: ValueChecks) -> Dict:
    """Checks every per-clip value of a step's file against the metric table: a value
    that is not finite or outside its metric's official range becomes empty in
    `step.frame` (so leaderboard.py's mean is over the valid rows) and is returned as
    {row index: {metric: reason}}; NaN cells are the official empty cells, not errors."""
    rejected, frame = {}, step.frame
    columns = checked_columns(kind, frame.columns)
    names = {index: _row_name(step, kind, number, record) for number, (index, record)
             in enumerate(frame.iterrows())} if columns else {}
    for column, metric in columns.items():
        numbers = pd.to_numeric(frame[column], errors="coerce")
        for index in frame.index:
            value = numbers[index]
            if pd.isna(value):
                continue
            reason = checks.check(names[index], metric, float(value))
            if reason:
                if pd.api.types.is_integer_dtype(frame[column]):
                    frame[column] = frame[column].astype(float)
                frame.at[index, column] = math.nan
                if kind == "vqa":
                    frame.at[index, metric] = math.nan  # its 0-100 twin
                rejected.setdefault(index, {})[metric] = reason
    return rejected


class RowMerge:
    """Per-clip rows of every step merged into SampleScores, with per-step coverage.

    Each step's file is screened (`screen`) first: `rejected` holds, per metric, the
    clips whose value was refused and why."""

    def __init__(self, checks: Optional[ValueChecks] = None):
        self.samples: Dict[str, scorecard_pb2.SampleScore] = {}
        self.evaluated = {s.name: set() for s in STEPS.values()}
        self.failed = {s.name: {} for s in STEPS.values()}
        self.notes: List[str] = []
        self.checks = checks or ValueChecks(metric_specs.TABLE)
        self.rejected: Dict[str, Dict[str, str]] = {}  # metric -> {clip key: reason}
        self._rows = {s.name: {} for s in STEPS.values()}

    def add(self, kind: str, step: files_lib.StepResults):
        """Screens the step's file (in place), then merges its rows."""
        refused = screen(kind, step, self.checks)
        for index, record in step.frame.iterrows():
            sample = {"eval": self.add_eval, "ors": self.add_ors,
                      "vqa": self.add_vqa}[kind](record)
            for metric, reason in refused.get(index, {}).items():
                sample.unavailable[metric] = reason
                key = verification.clip_key(sample.split, sample.sample_id)
                self.rejected.setdefault(metric, {})[key] = reason

    def sample(self, step, split: str, clip_id: str, scene) -> scorecard_pb2.SampleScore:
        key = verification.clip_key(split, clip_id)
        self._rows[step.name][key] = self._rows[step.name].get(key, 0) + 1
        if key not in self.samples:
            self.samples[key] = scorecard_pb2.SampleScore(
                sample_id=clip_id, split=split, scene="" if pd.isna(scene) else str(scene))
        return self.samples[key]

    def done(self, step, sample, ok: bool, reason: str = ""):
        key = verification.clip_key(sample.split, sample.sample_id)
        if ok:
            self.evaluated[step.name].add(key)
        else:
            self.failed[step.name][key] = reason

    def add_eval(self, row: pd.Series) -> scorecard_pb2.SampleScore:
        split = str(row["data_type"])
        sample = self.sample(verification.STEP1, split, _clip_id(split, row["id"]),
                             row.get("scene", ""))
        error = row.get("error")
        if isinstance(error, str) and error:
            sample.diagnostics["step1_error"] = error
            self.done(verification.STEP1, sample, False, error)
            return sample
        raw = _numbers(row, ("id", "scene", "data_type", "error"))
        sample.metrics.update({eval_csv.RAW_KEY_PREFIX + c: v for c, v in raw.items()})
        for column, metric in checked_columns("eval", row.index).items():
            if column in raw:
                sample.metrics[metric] = raw[column]
        self.done(verification.STEP1, sample, True)
        return sample

    def add_ors(self, row: pd.Series) -> scorecard_pb2.SampleScore:
        split = str(row["data_type"])
        sample = self.sample(verification.ORS, split, _clip_id(split, row["clip_id"]),
                             row.get("scene", ""))
        raw = _numbers(row, ("clip_id", "data_type", "scene"))
        sample.metrics.update({RAW_ORS_PREFIX + c: v for c, v in raw.items()})
        if "ors" in raw:
            sample.metrics["ORS"] = raw["ors"]  # the file's 0-1 value
        self.done(verification.ORS, sample, "ors" in raw, "no ors value")
        return sample

    def add_vqa(self, row: pd.Series) -> scorecard_pb2.SampleScore:
        clip = vqa_clip_id(row["scene"], row["video_id"], row["folder"])
        sample = self.sample(verification.VQA, verification.SYNTHETIC, clip, row["scene"])
        values = {m: float(row[files_lib.SCORE_PREFIX + m]) for m in leaderboard.VQA_METRICS
                  if pd.notna(row[m])}  # the file's 0-1 values
        sample.metrics.update(values)
        sample.diagnostics["vqa_file"] = str(row["file"])
        self.done(verification.VQA, sample, bool(values), "no VQA dimension in its score")
        return sample

    def duplicate_notes(self) -> List[str]:
        return [f"{step}: {len(dups)} clips have several rows ({', '.join(sorted(dups)[:5])}"
                f"{' ...' if len(dups) > 5 else ''}); leaderboard.py averages every row, the "
                "per-clip rows keep the last values"
                for step, rows in self._rows.items()
                for dups in [[k for k, n in rows.items() if n > 1]] if dups]

    def finish(self) -> List[scorecard_pb2.SampleScore]:
        """A clip that failed Step 1 and has no other value is a failed sample."""
        for sample in self.samples.values():
            error = sample.diagnostics.get("step1_error")
            if error and not sample.metrics:
                sample.error = error
            elif error:
                for metric in verification.STEP1.metric_ids:
                    sample.unavailable[metric] = "Step 1 failed: " + error
        return list(self.samples.values())
