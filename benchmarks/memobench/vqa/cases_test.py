"""Parsing failure-cases.csv and the question banks as llm-vqa.py reads them."""

import json

import pytest

from benchmarks.common.errors import InputError
from benchmarks.memobench.vqa import cases
from tools.fixtures import memobench_vqa_bank as fixture


@pytest.fixture
def qdir(tmp_path):
    folder = tmp_path / "data" / "vqa_questions"
    banks = fixture.write_vqa_inputs(folder, fixture.official_cases(), seed=3)
    return folder, banks


def test_failure_cases_on_official_shaped_file(qdir):
    folder, _ = qdir
    rows = cases.read_failure_cases(folder / "failure-cases.csv")
    assert len(rows) == 45
    zen = next(c for c in rows if c.scene == "Zen_Garden" and c.video_id == "10")
    assert (zen.clip_id, zen.folder, zen.generated_id) == (
        "Zen_Garden-10", "ZenGarden_010", "ZenGarden_010")
    assert zen.finished == "Yes" and zen.hint and zen.prompt


def test_every_row_is_used_whatever_finished_says(tmp_path):
    path = tmp_path / "failure-cases.csv"
    # Hand-written, "\n" line ends and a BOM (a spreadsheet export).
    path.write_bytes("\ufeffscene,video_id,hint,folder,Finished,prompt\n"
                     "Barnyard,1,h,Barnyard_1,No,p\nNordic,3,,Nordic_003,,\n".encode())
    rows = cases.read_failure_cases(path)
    assert [(c.clip_id, c.generated_id, c.finished) for c in rows] == [
        ("Barnyard-1", "Barnyard_001", "No"), ("Nordic-3", "Nordic_003", "")]


def test_failure_cases_errors(tmp_path):
    with pytest.raises(InputError, match="no such file"):
        cases.read_failure_cases(tmp_path / "absent.csv")
    path = tmp_path / "bad.csv"
    path.write_text("scene,video_id,hint,folder,Finished,prompt\nBarnyard,1,h,,Yes,p\n")
    with pytest.raises(InputError, match="line 2 without folder"):
        cases.read_failure_cases(path)


def test_bank_raw_text_and_parsed_questions(qdir):
    folder, banks = qdir
    case = cases.FailureCase("Havana", "8", "", "Havana_008", "Yes", "")
    bank = cases.read_question_bank(folder, case)
    assert bank.path == folder / "Havana-8-questions.csv"
    assert bank.raw == json.dumps(banks["Havana-8"])  # the cell, not a re-serialisation
    assert bank.questions == banks["Havana-8"]


def _bank_file(folder, final_cell):
    path = folder / "X-1-questions.csv"
    fixture._write_dict_rows(path, fixture.BANK_COLUMNS, [
        {"scene": "X", "video_id": "1", "Final questions": final_cell}])
    return cases.FailureCase("X", "1", "", "X_001", "", "")


@pytest.mark.parametrize("cell, match", [
    ("", "Final questions' cell"),
    ("[{", "as JSON"),
    ('{"ID": 1}', "list of objects"),
    ('[{"Dimension": "Instruction Following"}]', "an ID on every question"),
])
def test_bank_errors(tmp_path, cell, match):
    case = _bank_file(tmp_path, cell)
    with pytest.raises(InputError, match=match):
        cases.read_question_bank(tmp_path, case)


def test_missing_bank(tmp_path):
    with pytest.raises(InputError, match="question bank of Miami-10"):
        cases.read_question_bank(tmp_path, cases.FailureCase("Miami", "10", "", "Miami_010",
                                                             "", ""))


def test_default_paths(qdir, tmp_path):
    folder, _ = qdir
    expected = (folder / "failure-cases.csv", folder)
    assert cases.default_paths(tmp_path) == expected          # a MemoBench checkout
    assert cases.default_paths(tmp_path / "data") == expected  # its data/ folder
    with pytest.raises(InputError, match="vqa_questions"):
        cases.default_paths(tmp_path / "data" / "vqa_questions")
