"""MemoBench's VQA protocol: the judge prompt, answer parsing and per-dimension scoring.

Transcribed from MemoBench evaluation/vqa/llm-vqa.py (github.com/MemoBench-Team/MemoBench,
read at revisions cd6f881, 8822e27 and 2c1be04; these three functions are identical in all):
  - `evaluate_video`: the prompt text (below, verbatim, whitespace included), with the
    bank's raw `Final questions` string inserted;
  - `extract_json`: strip; if "```" occurs, keep the text from the line after the first
    fence to the last fence; json.loads;
  - `compute_scores`: per item, dim = item["Dimension"] as the judge echoes it; polarity
    from the bank by item["ID"] (dict lookup on the JSON values, so 1 and "1" differ),
    "Positive" when the ID is unknown; answer = item.get("Answer", "").strip().lower();
    pass = answer == "yes" if polarity == "Positive" else answer == "no" (the polarity
    comparison is case-sensitive: anything but "Positive" scores as Negative); the judge's
    Verdict is used only when the bank is empty; questions the judge drops do not count,
    extra ones do; score[dim] = round(passes / count, 4).
Where the official code would raise (an item that is not an object, no Dimension or ID,
a non-text Answer, an unhashable ID) `ScoringError` is raised instead, so that the clip is
recorded as failed, never scored.
"""

import hashlib
import json
from typing import Dict, List

# llm-vqa.py evaluate_video(), verbatim; {questions} is the raw `Final questions` cell.
PROMPT_TEMPLATE = """
System Role:
You are an expert LLM judger, specializing in "World Model" evaluation.
Your task is to audit AI-generated videos against specific text instructions.

Input Data:
- Test Video: attached
- Questions: {questions}
  (use ID, Dimension, Dimension Polarity, and Question columns)

Task:
Watch the Test Video and answer each Yes/No question.
IMPORTANT: Some questions have "Negative" polarity, meaning they describe a failure.
- For Positive polarity questions: Yes = Pass, No = Fail
- For Negative polarity questions: Yes = Fail, No = Pass

Output Format:
JSON only \u2014 columns: [ID, Dimension, Dimension Polarity, Question, Answer (Yes/No), Verdict (Pass/Fail), Reasoning]
"""
PROMPT_SOURCE = ("verbatim from MemoBench evaluation/vqa/llm-vqa.py evaluate_video() "
                 "(revisions cd6f881, 8822e27, 2c1be04)")

# leaderboard.py load_vqa_results VQA_KEY_MAP: the dimension key -> the leaderboard column.
DIMENSION_METRICS = {
    "Instruction Following": "InstructionFollowing",
    "Object and Background": "ObjectBackground",
    "Continuity of Memory": "ContinuityOfMemory",
    "Physics Adherence": "PhysicsAdherence",
}


class ScoringError(ValueError):
    """The judge's answer cannot be scored (where llm-vqa.py would crash)."""


def build_prompt(questions_raw: str) -> str:
    """The prompt evaluate_video() sends, for a bank's raw `Final questions` text."""
    return PROMPT_TEMPLATE.format(questions=questions_raw)


def prompt_digest() -> str:
    return hashlib.sha256(PROMPT_TEMPLATE.encode("utf-8")).hexdigest()[:16]


def extract_json(text: str):
    """llm-vqa.py extract_json: JSON from a ``` fenced block or from the plain text.

    Raises:
        json.JSONDecodeError: As the official code, for text that is not JSON.
    """
    text = text.strip()
    if "```" in text:
        start = text.find("```")
        start = text.find("\n", start) + 1
        end = text.rfind("```")
        text = text[start:end].strip()
    return json.loads(text)


def compute_scores(evaluation, questions: List[dict]) -> Dict[str, float]:
    """llm-vqa.py compute_scores(evaluation_json, questions_json): dim -> pass rate."""
    polarity_map = {}
    if questions:
        for q in questions:
            try:
                polarity_map[q["ID"]] = q.get("Dimension Polarity", "Positive")
            except TypeError:
                raise ScoringError(f"bank question ID {q['ID']!r} is not hashable") from None
    if isinstance(evaluation, dict):
        # Iterating a dict yields its keys; item["Dimension"] on a str raises upstream.
        raise ScoringError("the answer is a JSON object, not a list of answered questions")
    if not isinstance(evaluation, list):
        raise ScoringError(f"the answer is a JSON {type(evaluation).__name__}, not a list")
    score: Dict[str, int] = {}
    count: Dict[str, int] = {}
    for i, item in enumerate(evaluation):
        if not isinstance(item, dict) or "Dimension" not in item:
            raise ScoringError(f"answer item {i} has no Dimension: {str(item)[:120]}")
        dim = item["Dimension"]
        try:
            score.setdefault(dim, 0)
            count.setdefault(dim, 0)
        except TypeError:
            raise ScoringError(f"answer item {i}: Dimension {dim!r} is not text") from None
        count[dim] += 1
        if polarity_map:
            if "ID" not in item:
                raise ScoringError(f"answer item {i} has no ID: {str(item)[:120]}")
            try:
                polarity = polarity_map.get(item["ID"], "Positive")
            except TypeError:
                raise ScoringError(f"answer item {i}: ID {item['ID']!r} "
                                   "cannot be looked up") from None
            answer = item.get("Answer", "")
            if not isinstance(answer, str):
                raise ScoringError(f"answer item {i}: Answer {answer!r} is not text")
            answer = answer.strip().lower()
            passed = answer == "yes" if polarity == "Positive" else answer == "no"
        else:
            if "Verdict" not in item:
                raise ScoringError(f"answer item {i} has no Verdict (the bank is empty)")
            passed = item["Verdict"] == "Pass"
        if passed:
            score[dim] += 1
    return {dim: round(score[dim] / count[dim], 4) for dim in score}
