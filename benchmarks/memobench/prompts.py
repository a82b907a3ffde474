"""The prompt of each clip, for ImageRewardScore, read as run_eval.py reads it (spec §4.6).

* Synthetic: `--prompt_src_syn`, a CSV with `video_folder` and `prompt` columns
  (load_prompt_map_synthetic: rows with skip == "yes", an empty prompt or the text
  "nan" are left out). A clip the CSV does not give, or every clip when there is no
  CSV, takes the `prompt` cell of the synthetic phase sheet (`str(cell).strip()`, so an
  empty cell reads as "nan" and is scored as that text; dataset.GroundTruth.prompt).
* Real: only `--prompt_src_real` (load_prompt_map_real), a CSV whose id column is
  `video_folder`, else `id` (values read as `str(int(float(v))).zfill(3)`), plus
  `prompt`. There is no other source: without it real clips have no prompt and no
  ImageRewardScore. MemoBench's own data/sam3_metadata/real_metadata.csv names its
  column `video_id`, which this reader does not accept: passed as --prompt_src_real it
  yields no prompt at all, upstream and here.

A file that cannot be read as CSV, or lacks the columns, gives no prompts (upstream
swallows the error); the table's `note` says why. A path that does not exist is an
InputError here (upstream ignores it silently).
"""

import dataclasses
import pathlib
from typing import Dict, Optional, Tuple

import pandas as pd

from benchmarks.common.errors import InputError

SYNTHETIC = "synthetic"
REAL = "real"
REAL_ID_COLUMNS = ("video_folder", "id")  # load_prompt_map_real's order


@dataclasses.dataclass(frozen=True)
class PromptTable:
    """Prompts read from one CSV: {clip id: prompt}, and why it is empty when it is."""

    source: Optional[pathlib.Path]
    prompts: Dict[str, str]
    note: str = ""


def _read_csv(path: Optional[pathlib.Path]):
    """(DataFrame or None, note). InputError for a path that does not exist."""
    if path is None:
        return None, "no prompt CSV given"
    if not path.is_file():
        raise InputError(path, "a prompt CSV", "no such file")
    try:
        return pd.read_csv(path), ""
    except Exception as e:  # pylint: disable=broad-except  (run_eval.py: except Exception)
        return None, f"{path}: not readable as CSV ({type(e).__name__}), so no prompts"


def _missing(path, df, columns) -> str:
    return (f"{path}: no {' / '.join(columns)} column (columns: "
            f"{', '.join(map(str, df.columns))}), so no prompts")


def read_synthetic_prompts(path: Optional[pathlib.Path]) -> PromptTable:
    """load_prompt_map_synthetic: {"Barnyard_001": prompt} from a CSV (or nothing)."""
    df, note = _read_csv(path)
    if df is None:
        return PromptTable(path, {}, note)
    for column in ("video_folder", "prompt"):
        if column not in df.columns:
            return PromptTable(path, {}, _missing(path, df, [column]))
    prompts = {}
    for _, row in df.iterrows():
        clip = str(row["video_folder"]).strip()
        prompt = str(row["prompt"]).strip()
        skip = str(row.get("skip", "no")).strip().lower()
        if clip and prompt and prompt.lower() != "nan" and skip != "yes":
            prompts[clip] = prompt
    return PromptTable(path, prompts, "" if prompts else f"{path}: no usable rows")


def read_real_prompts(path: Optional[pathlib.Path]) -> PromptTable:
    """load_prompt_map_real: {"001": prompt} from a CSV with video_folder or id (or nothing)."""
    df, note = _read_csv(path)
    if df is None:
        return PromptTable(path, {}, note)
    id_column = next((c for c in REAL_ID_COLUMNS if c in df.columns), None)
    if id_column is None:
        return PromptTable(path, {}, _missing(path, df, REAL_ID_COLUMNS))
    if "prompt" not in df.columns:
        return PromptTable(path, {}, _missing(path, df, ["prompt"]))
    prompts = {}
    for _, row in df.iterrows():
        try:
            clip = str(int(float(str(row[id_column]).strip()))).zfill(3)
        except (ValueError, TypeError, OverflowError):  # upstream: ValueError, TypeError
            continue
        prompt = str(row["prompt"]).strip()
        if prompt and prompt.lower() != "nan":
            prompts[clip] = prompt
    return PromptTable(path, prompts, "" if prompts else f"{path}: no usable rows")


@dataclasses.dataclass(frozen=True)
class PromptSources:
    """Both splits' prompt tables; `prompt_for` applies run_eval.py's precedence."""

    synthetic: PromptTable
    real: PromptTable

    def prompt_for(self, split: str, clip_id: str, sheet_prompt: str) -> Tuple[str, str]:
        """(prompt, where it came from); "" when the clip has none.

        Args:
            split: "synthetic" or "real".
            clip_id: "Barnyard_001" or "001".
            sheet_prompt: The phase sheet's prompt cell (synthetic; "" for real).
        """
        if split == SYNTHETIC:
            if clip_id in self.synthetic.prompts:
                return self.synthetic.prompts[clip_id], str(self.synthetic.source)
            origin = "the synthetic phase sheet's prompt column"
            if not sheet_prompt.strip():
                origin += (f" (empty for {clip_id}, and "
                           f"{self.synthetic.source or 'no --prompt_src_syn'} gives none)")
            return sheet_prompt, origin
        if clip_id in self.real.prompts:
            return self.real.prompts[clip_id], str(self.real.source)
        reason = self.real.note or f"{self.real.source} has no row for {clip_id}"
        return "", f"no real prompt ({reason}); only --prompt_src_real gives real prompts"

    def describe(self) -> str:
        """One line for the scorecard: where prompts come from."""
        syn = (f"{self.synthetic.source} ({len(self.synthetic.prompts)} prompts), else the "
               "phase sheet's prompt column" if self.synthetic.source else
               "the synthetic phase sheet's prompt column")
        real = (f"{self.real.source} ({len(self.real.prompts)} prompts)"
                + (f": {self.real.note}" if self.real.note else "")
                if self.real.source else "none (no --prompt_src_real): real clips are not scored")
        return f"prompts: synthetic from {syn}; real from {real}"


def load_prompt_sources(synthetic_csv: Optional[pathlib.Path],
                        real_csv: Optional[pathlib.Path]) -> PromptSources:
    """Reads --prompt_src_syn and --prompt_src_real (either may be None)."""
    return PromptSources(read_synthetic_prompts(synthetic_csv), read_real_prompts(real_csv))
