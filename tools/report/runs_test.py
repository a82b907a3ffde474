"""The report's and compare's loader (runs.py) on damaged files: each is an
errors.InputError naming the file and what was expected (the binaries exit 2 on it,
report_lib_test), never a traceback and never an empty run."""

import pathlib

import pytest

from benchmarks.common import errors
from proto import schema
from tools.report import runs as runs_lib
from tools.report import testdata

_CARD = testdata.card("model-a", testdata.A_SCORE, testdata.A_ERR, "toy-backend")
_GOOD = schema.to_json(_CARD)
# (file content, what the message says was found)
DAMAGED_SCORECARDS = {
    "empty": ("", "found an empty file"),
    "whitespace": ("\n  \n", "found only whitespace"),
    "bare_nan": (_GOOD.replace('"value": 2.5', '"value": NaN', 1),
                 "found a bare NaN at metrics[0].value"),
    "bare_infinity": (_GOOD.replace('"expected": 5', '"expected": -Infinity', 1),
                      "found a bare -Infinity at coverage.expected"),
    "array": ("[]\n", "found a JSON array, not an object"),
    "number": ("3\n", "found a JSON number, not an object"),
    "null": ("null\n", "found a JSON null, not an object"),
    "empty_object": ("{}\n", "found a JSON object with no benchmark_id"),
    "cut_short": (_GOOD[:len(_GOOD) // 2], "found text that is not JSON"),
    "unknown_field": ('{"benchmark_id": "x", "headline": 1}\n',
                      "found JSON that is not a Scorecard"),
    "wrong_type": ('{"benchmark_id": "x", "coverage": {"expected": "many"}}\n',
                   "found JSON that is not a Scorecard"),
}


def test_the_good_card_is_what_the_damage_is_made_from():
    for name, (text, _) in DAMAGED_SCORECARDS.items():
        if name.startswith("bare_"):
            assert text != _GOOD, name  # the replacement hit


@pytest.mark.parametrize("name", sorted(DAMAGED_SCORECARDS))
def test_a_damaged_scorecard_is_an_input_error_naming_it(tmp_path, name):
    text, found = DAMAGED_SCORECARDS[name]
    path = tmp_path / "scorecard.json"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(errors.InputError) as raised:
        runs_lib.load_runs([path])
    message = str(raised.value)
    assert message.startswith(f"{path}: expected {runs_lib.SCORECARD_EXPECTED}, {found}"), \
        message
    assert "\n" not in message


def test_not_utf8_a_folder_and_a_missing_file(tmp_path):
    (tmp_path / "bin.json").write_bytes(b"\xff\xfe{}")
    cases = {tmp_path / "bin.json": "found bytes that are not UTF-8 text",
             tmp_path: "found a folder", tmp_path / "nope.json": "found no such file"}
    for path, found in cases.items():
        with pytest.raises(errors.InputError, match=found) as raised:
            runs_lib.load_run(path)
        assert raised.value.path == str(path)


def _run_with_samples(tmp_path: pathlib.Path, lines) -> pathlib.Path:
    path = testdata.write_run(tmp_path / "a", _CARD, None)
    (path.parent / runs_lib.PER_SAMPLE).write_text("".join(lines), encoding="utf-8")
    return path


def test_a_damaged_per_sample_line_names_the_file_and_line(tmp_path):
    good = [schema.to_json_line(s) for s in testdata.samples(testdata.A_SCORE, testdata.A_ERR)]
    bad = good[1].replace('"score":2.0', '"score":NaN')
    assert bad != good[1]
    path = _run_with_samples(tmp_path, [good[0], bad, *good[2:]])
    with pytest.raises(errors.InputError) as raised:
        runs_lib.load_run(path)
    assert str(raised.value).startswith(
        f"{path.parent / runs_lib.PER_SAMPLE}: expected {runs_lib.SAMPLES_EXPECTED}, found "
        "line 2: a bare NaN at metrics.score"), raised.value
    path = _run_with_samples(tmp_path, [good[0], "[]\n"])
    with pytest.raises(errors.InputError, match="line 2: a JSON array, not an object"):
        runs_lib.load_run(path)


def test_a_torn_last_per_sample_line_is_left_out_as_the_runner_does(tmp_path):
    good = [schema.to_json_line(s) for s in testdata.samples(testdata.A_SCORE, testdata.A_ERR)]
    path = _run_with_samples(tmp_path, [*good[:-1], good[-1][:10]])
    run = runs_lib.load_run(path)
    assert [s.sample_id for s in run.samples] == ["s1", "s2", "s3"]
