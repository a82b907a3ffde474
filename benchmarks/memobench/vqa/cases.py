"""MemoBench Step 3 inputs: failure-cases.csv (the clip list) and the question banks.

As MemoBench evaluation/vqa/llm-vqa.py reads them (rev 2c1be04, spec §7):
  - failure-cases.csv: csv.DictReader rows with scene, video_id, hint, folder, Finished,
    prompt; every row is evaluated (Finished is not consulted; only llm-judger.py filters
    on it); clip_id = f"{scene}-{video_id}" with both as written (e.g. "Zen_Garden-2").
  - {questions_dir}/{clip_id}-questions.csv: the first row's `Final questions` cell, a JSON
    list of {ID, Dimension, Dimension Polarity, Question}. The raw cell text goes into the
    prompt unchanged; the parsed list gives each question's polarity for scoring.
"""

import csv
import dataclasses
import json
import pathlib
from typing import List, Optional

from benchmarks.common.errors import InputError
from benchmarks.memobench import dataset

CASES_COLUMNS = ("scene", "video_id", "hint", "folder", "Finished", "prompt")
BANK_COLUMNS = ("scene", "video_id", "Start Questions", "Evaluation on ground truth",
                "Evaluation on failure", "Revised Evaluation on failure", "Final questions")
FINAL_QUESTIONS = "Final questions"
CASES_FILE = "failure-cases.csv"
QUESTIONS_DIR = "vqa_questions"


@dataclasses.dataclass(frozen=True)
class FailureCase:
    """One row of failure-cases.csv."""

    scene: str
    video_id: str
    hint: str
    folder: str
    finished: str
    prompt: str

    @property
    def clip_id(self) -> str:
        """llm-vqa.py: f"{scene}-{video_id}", the name of the bank and of the result CSV."""
        return f"{self.scene}-{self.video_id}"

    @property
    def generated_id(self) -> str:
        """The generated clip this case scores, as benchmarks/memobench/generated.py names
        clips ("ZenGarden_2" -> "ZenGarden_002"); `folder` as written if it has no number."""
        number = dataset.clip_number(self.folder)
        if not number:
            return self.folder
        return f"{self.folder.rsplit('_', 1)[0]}_{int(number):03d}"


@dataclasses.dataclass(frozen=True)
class QuestionBank:
    """The `Final questions` of one clip: the cell text and its parsed list."""

    path: pathlib.Path
    raw: str
    questions: list


def _read_rows(path: pathlib.Path, what: str) -> List[dict]:
    if not path.is_file():
        raise InputError(path, what, "no such file")
    with open(path, newline="", encoding="utf-8-sig") as f:
        return list(csv.DictReader(f))


def read_failure_cases(path: pathlib.Path) -> List[FailureCase]:
    """Every row of failure-cases.csv, in file order.

    Raises:
        InputError: The file is missing, lacks a column llm-vqa.py reads (scene, video_id,
            folder), or a row leaves one of them empty.
    """
    path = pathlib.Path(path)
    rows = _read_rows(path, "MemoBench's failure-cases.csv (columns " +
                      ", ".join(CASES_COLUMNS) + ")")
    cases = []
    for i, row in enumerate(rows, start=2):
        missing = [c for c in ("scene", "video_id", "folder") if not (row.get(c) or "").strip()]
        if missing:
            raise InputError(path, "scene, video_id and folder on every row",
                             f"line {i} without {', '.join(missing)}")
        cases.append(FailureCase(
            scene=row["scene"], video_id=row["video_id"], hint=row.get("hint") or "",
            folder=row["folder"], finished=row.get("Finished") or "",
            prompt=row.get("prompt") or ""))
    return cases


def bank_path(questions_dir: pathlib.Path, case: FailureCase) -> pathlib.Path:
    return pathlib.Path(questions_dir) / f"{case.clip_id}-questions.csv"


def read_question_bank(questions_dir: pathlib.Path, case: FailureCase) -> QuestionBank:
    """The clip's `Final questions`.

    Raises:
        InputError: No bank file, no `Final questions` on its first row (llm-vqa.py skips
            the clip), text that is not a JSON list of objects, or a question without an
            ID (llm-vqa.py's polarity map would raise KeyError).
    """
    path = bank_path(questions_dir, case)
    rows = _read_rows(path, f"the question bank of {case.clip_id}")
    raw: Optional[str] = rows[0].get(FINAL_QUESTIONS) if rows else None
    if not raw:
        raise InputError(path, f"a '{FINAL_QUESTIONS}' cell on the first row", "none")
    try:
        questions = json.loads(raw)
    except json.JSONDecodeError as e:
        raise InputError(path, f"'{FINAL_QUESTIONS}' as JSON", str(e)) from None
    if not isinstance(questions, list) or not all(isinstance(q, dict) for q in questions):
        raise InputError(path, f"'{FINAL_QUESTIONS}' as a JSON list of objects",
                         type(questions).__name__)
    if any("ID" not in q for q in questions):
        raise InputError(path, "an ID on every question", "a question without one")
    return QuestionBank(path=path, raw=raw, questions=questions)


def default_paths(data_root: pathlib.Path):
    """(failure-cases.csv, questions dir) under a MemoBench checkout or its data/ folder."""
    data_root = pathlib.Path(data_root)
    for root in (data_root, data_root / "data"):
        if (root / QUESTIONS_DIR).is_dir():
            return root / QUESTIONS_DIR / CASES_FILE, root / QUESTIONS_DIR
    raise InputError(data_root, f"MemoBench data with {QUESTIONS_DIR}/{CASES_FILE} "
                     f"(or data/{QUESTIONS_DIR}/)", "no vqa_questions folder")
