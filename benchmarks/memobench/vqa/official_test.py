"""llm-vqa.py's prompt, extract_json and compute_scores, against hand-worked answers."""

import hashlib
import json

import pytest

from benchmarks.memobench.vqa import official

IF, OB, CM, PA = official.DIMENSION_METRICS  # the four official dimension names


def _q(qid, dim, polarity):
    return {"ID": qid, "Dimension": dim, "Dimension Polarity": polarity, "Question": "?"}


def _a(qid, dim, answer, verdict="Pass"):
    return {"ID": qid, "Dimension": dim, "Answer": answer, "Verdict": verdict,
            "Reasoning": "r"}


def test_prompt_is_the_official_text():
    # Golden digest of the template transcribed from llm-vqa.py evaluate_video().
    assert hashlib.sha256(official.PROMPT_TEMPLATE.encode()).hexdigest() == (
        "38844035df2febd0241449e1d911b1be8419056e23620b102e8e0907267e79a1")
    raw = '[{"ID": 1, "Dimension": "Instruction Following", "Question": "{x}?"}]'
    prompt = official.build_prompt(raw)
    assert prompt.startswith("\nSystem Role:\nYou are an expert LLM judger, specializing in "
                             '"World Model" evaluation.\n')
    assert f"- Questions: {raw}\n  (use ID, Dimension, Dimension Polarity, and Question " \
           "columns)\n" in prompt  # the bank's cell text, unchanged, braces included
    assert "- For Negative polarity questions: Yes = Fail, No = Pass\n" in prompt
    assert prompt.endswith("JSON only \u2014 columns: [ID, Dimension, Dimension Polarity, "
                           "Question, Answer (Yes/No), Verdict (Pass/Fail), Reasoning]\n")


@pytest.mark.parametrize("text", [
    '[{"ID": 1}]',
    '  \n[{"ID": 1}]\n ',
    '```json\n[{"ID": 1}]\n```',
    '```\n[{"ID": 1}]\n```',
    'Here is my evaluation:\n```json\n[{"ID": 1}]\n```\nDone.',
])
def test_extract_json_accepts(text):
    assert official.extract_json(text) == [{"ID": 1}]


@pytest.mark.parametrize("text", [
    '```json [{"ID": 1}]```',        # one line: the line after the first fence is not JSON
    '```json\n[{"ID": 1}]',          # one fence: start after it, end before it -> ""
    "I cannot judge this video.",
    '[{"ID": 1},]',
])
def test_extract_json_rejects_as_upstream(text):
    with pytest.raises(json.JSONDecodeError):
        official.extract_json(text)


BANK = [_q(1, IF, "Positive"), _q(2, IF, "Negative"), _q(3, IF, "Positive"),
        _q(4, IF, "Negative"), _q(5, OB, "Positive"), _q(6, OB, "Negative"),
        _q(7, OB, "Negative"), _q(8, CM, "Positive"), _q(9, CM, "Negative"),
        _q(10, PA, "Negative"), _q(11, PA, "Positive"), _q(12, PA, "positive")]


def test_compute_scores_hand_worked():
    # Verdicts are all "Fail": scoring must ignore them.
    answers = [
        _a(1, IF, "Yes", "Fail"),    # Positive, yes -> pass
        _a(2, IF, "no", "Fail"),     # Negative, no -> pass
        _a(3, IF, " YES ", "Fail"),  # stripped and lower-cased -> pass
        _a(4, IF, "Yes", "Fail"),    # Negative, yes -> fail            IF: 3/4
        _a(5, OB, "No", "Fail"),     # Positive, no -> fail
        # 6 dropped by the judge: not counted
        _a(7, OB, "NO", "Fail"),     # Negative, "NO" lower-cased -> pass  OB: 1/2
        _a(8, CM, "yes", "Fail"),    # pass
        _a(9, CM, "Yes", "Fail"),    # Negative, yes -> fail
        _a(99, CM, "Yes", "Fail"),   # not in the bank -> Positive -> pass  CM: 2/3
        _a(10, PA, "No", "Fail"),    # Negative, no -> pass
        _a(11, PA, "Y", "Fail"),     # not exactly "yes" -> fail
        _a(12, PA, "Yes", "Fail"),   # bank says "positive" (lower case): not "Positive",
    ]                                # so scored as Negative -> fail       PA: 1/3
    assert official.compute_scores(answers, BANK) == {IF: 0.75, OB: 0.5, CM: 0.6667,
                                                      PA: 0.3333}


def test_case_quirk_applies_to_both_polarities():
    # llm-vqa.py lower-cases the answer before both comparisons (all three revisions).
    bank = [_q(1, IF, "Positive"), _q(2, IF, "Negative")]
    for yes, no in (("YES", "NO"), ("Yes", "No"), (" yes\n", "\tno ")):
        assert official.compute_scores([_a(1, IF, yes), _a(2, IF, no)], bank) == {IF: 1.0}
    assert official.compute_scores([_a(1, IF, "Yes."), _a(2, IF, "No.")], bank) == {IF: 0.0}


def test_ids_are_matched_by_json_value():
    bank = [_q(1, IF, "Negative")]
    assert official.compute_scores([_a(1, IF, "Yes")], bank) == {IF: 0.0}
    # "1" is not 1: the polarity lookup misses and defaults to Positive.
    assert official.compute_scores([_a("1", IF, "Yes")], bank) == {IF: 1.0}


def test_dimension_as_echoed_and_missing_answer():
    bank = [_q(1, IF, "Positive"), _q(2, IF, "Negative")]
    answer = [_a(1, "Instruction following", "Yes"),
              {"ID": 2, "Dimension": IF, "Answer (Yes/No)": "No", "Verdict": "Pass"}]
    # The echoed spelling makes its own key; an item without "Answer" never passes.
    assert official.compute_scores(answer, bank) == {"Instruction following": 1.0, IF: 0.0}


def test_missing_polarity_in_bank_is_positive():
    bank = [{"ID": 1, "Dimension": IF, "Question": "?"}]
    assert official.compute_scores([_a(1, IF, "yes")], bank) == {IF: 1.0}


def test_empty_bank_trusts_the_verdict():
    answer = [_a(1, IF, "Yes", "Pass"), _a(2, IF, "Yes", "Fail"), _a(3, IF, "No", "Pass")]
    assert official.compute_scores(answer, []) == {IF: 0.6667}


def test_rounding_to_four_places():
    bank = [_q(i, OB, "Positive") for i in range(7)]
    answers = [_a(i, OB, "Yes" if i < 5 else "No") for i in range(7)]
    assert official.compute_scores(answers, bank) == {OB: round(5 / 7, 4)} == {OB: 0.7143}


@pytest.mark.parametrize("evaluation, match", [
    ({"ID": 1, "Dimension": IF}, "JSON object"),
    ("Yes", "str"),
    ([["ID", 1]], "no Dimension"),
    ([{"ID": 1, "Answer": "Yes"}], "no Dimension"),
    ([{"Dimension": IF, "Answer": "Yes"}], "no ID"),
    ([{"ID": 1, "Dimension": IF, "Answer": None}], "not text"),
    ([{"ID": 1, "Dimension": IF, "Answer": True}], "not text"),
    ([{"ID": [1], "Dimension": IF, "Answer": "Yes"}], "cannot be looked up"),
    ([{"ID": 1, "Dimension": [IF], "Answer": "Yes"}], "not text"),
])
def test_answers_upstream_would_crash_on_are_errors(evaluation, match):
    with pytest.raises(official.ScoringError, match=match):
        official.compute_scores(evaluation, BANK)
