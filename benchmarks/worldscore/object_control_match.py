"""object_control's phrase matching (spec §4.2), as ObjectDetectionMetric._compute_scores
counts it (worldscore/benchmark/metrics/third_party/object_detection_metrics.py).

Pure Python: the noun extractor is a parameter (object_control_nouns gives spaCy's).

- A detected phrase arrives as the official `get_grounding_output(with_logits=True)`
  builds it: the decoded tokens + "(" + str(max sigmoid)[:4] + ")" (`with_logits`).
- `standardize`: `re.sub(r"\\(.*?\\)", "", phrase).strip().lower()`, then the spaces
  around `_ - * / +` removed (`standardize_string`). Quirk: the regex removes ANY
  parenthesised text, not only the score suffix.
- Pass 1 (exact): each phrase equal to a not-yet-matched object counts once and
  removes it; phrases so matched go into a cache.
- Pass 2 (for every phrase not in that cache, duplicates included): a phrase holding
  "##" loses the "##" and matches the first remaining object that CONTAINS it as a
  substring (no spaCy then, even without a match); any other phrase matches the first
  remaining object that shares a noun with it (spaCy NOUN/PROPN token texts,
  lower-cased). A match counts 1 and removes that object.
- Score of one image: `min(count / len(objects), 1)`. The objects are deduplicated by
  the official `set(prompt_list)` but `len` counts duplicates, so "chair, chair" scores
  at most 0.5 (pinned); no objects raise ZeroDivisionError as officially.

Deviation (documented, unavoidable): the official pass 2 scans `list(remaining)`, a
Python set of strings, whose order depends on the process's hash seed (PYTHONHASHSEED
is random by default); when one phrase could match several remaining objects, which
one it removes, and so a later phrase's match, depends on that seed. Here the
remaining objects are scanned in caption order, which is one of the official orders.
"""

import re
from typing import Callable, List, Sequence

LOGITS = re.compile(r"\(.*?\)")
AROUND_SYMBOLS = re.compile(r"\s*([_\-*/+])\s*")
SUBWORD = "##"
Nouns = Callable[[str], List[str]]


def with_logits(phrase: str, score: float) -> str:
    """The official phrase string: `pred_phrase + f"({str(logit.max().item())[:4]})"`."""
    return f"{phrase}({str(float(score))[:4]})"


def standardize(phrase: str) -> str:
    return AROUND_SYMBOLS.sub(r"\1", LOGITS.sub("", phrase).strip().lower())


def _second_pass_match(result: str, remaining: Sequence[str], nouns: Nouns):
    """get_match_point: the object `result` matches among `remaining`, or None."""
    if SUBWORD in result:
        piece = result.replace(SUBWORD, "")
        return next((o for o in remaining if piece in o), None)
    found = nouns(result)
    for candidate in remaining:
        theirs = nouns(candidate)
        if any(n in theirs for n in found):
            return candidate
    return None


def count_matches(phrases: Sequence[str], objects: Sequence[str], nouns: Nouns) -> int:
    """The official `count` for one image's phrases (with or without the logits suffix)."""
    results = [standardize(p) for p in phrases]
    remaining = list(dict.fromkeys(objects))  # set(prompt_list), kept in caption order
    count, cache = 0, set()
    for result in results:
        if result in cache or result not in remaining:
            continue
        cache.add(result)
        count += 1
        remaining.remove(result)
    for result in results:
        if result in cache:
            continue
        matched = _second_pass_match(result, remaining, nouns)
        if matched is not None:
            count += 1
            remaining.remove(matched)
    return count


def image_score(phrases: Sequence[str], objects: Sequence[str], nouns: Nouns) -> float:
    """`min(count / len(prompt_list), 1)`; ZeroDivisionError without objects, as officially."""
    return min(count_matches(phrases, objects, nouns) / len(objects), 1)


def cached(nouns: Nouns) -> Nouns:
    """`nouns` remembered per string (the official code re-parses each object per phrase;
    the parse of a string does not depend on when it is made)."""
    memo = {}

    def lookup(text: str) -> List[str]:
        if text not in memo:
            memo[text] = list(nouns(text))
        return memo[text]
    return lookup
