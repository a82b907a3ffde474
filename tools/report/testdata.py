"""Hand-made runs for the report's and the comparison's tests, with known answers.

Run A and run B of benchmark "toybench", samples s1..s4 in split "x" (B also s5):
  score (higher better): A 1, 2, 3, 4; B 2, 4, 3, 6 (and 9 on s5, which A lacks)
      -> paired over s1..s4: differences 1, 2, 0, 2, mean 1.25
  err (lower better): A 0.5 on every sample; B 0.25 on every sample
      -> differences all -0.25: the interval is exactly [-0.25, -0.25], B better
  fid (a set-level metric): no per-sample values in either run
  judge: unavailable in B (no API key)
B ran `score` with another backend. A also has a failed sample, s9.
"""

import pathlib
from typing import Dict, List, Optional

from proto import schema
from proto import scorecard_pb2

A_SCORE = {"s1": 1.0, "s2": 2.0, "s3": 3.0, "s4": 4.0}
B_SCORE = {"s1": 2.0, "s2": 4.0, "s3": 3.0, "s4": 6.0, "s5": 9.0}
A_ERR = {k: 0.5 for k in A_SCORE}
B_ERR = {k: 0.25 for k in B_SCORE}


def _metric(card, metric_id, values: Optional[Dict[str, float]], higher=True,
            backend="toy-backend", reason="") -> scorecard_pb2.MetricResult:
    m = card.metrics.add(id=metric_id, display_name=metric_id.title(), unit="0-1",
                         higher_is_better=higher, available=values is not None or not reason,
                         unavailable_reason=reason)
    m.backend.name, m.backend.official, m.backend.digest_pinned = backend, True, True
    m.backend.parity.verified = True
    m.backend.parity.evidence = "tools/calibration/parity.csv"
    if values:
        vals = list(values.values())
        m.value, m.sample_count = sum(vals) / len(vals), len(vals)
        m.ci95.low, m.ci95.high = m.value - 0.1, m.value + 0.1
    elif not reason:
        m.value, m.sample_count = 12.5, 0
    return m


def card(model: str, score: Dict[str, float], err: Dict[str, float], score_backend: str,
         judge_reason: str = "") -> scorecard_pb2.Scorecard:
    c = scorecard_pb2.Scorecard(benchmark_id="toybench", benchmark_version="toybench/1",
                                model_name=model)
    c.provenance.code_revision = "abc123"
    c.verification.scope = scorecard_pb2.BOUNDED
    c.verification.blocking.add(reason=scorecard_pb2.NOT_OFFICIAL_DATA, detail="hand-made")
    c.coverage.expected, c.coverage.evaluated = 5, len(score)
    _metric(c, "score", score, backend=score_backend)
    _metric(c, "err", err, higher=False)
    _metric(c, "fid", None)
    if judge_reason:
        _metric(c, "judge", None, reason=judge_reason)
    else:
        _metric(c, "judge", {k: 0.7 for k in score})
    return c


def samples(score: Dict[str, float], err: Dict[str, float],
            failed: List[str] = ()) -> List[scorecard_pb2.SampleScore]:
    out = []
    for key in score:
        s = scorecard_pb2.SampleScore(sample_id=key, split="x", scene=f"scene-{key}")
        s.metrics["score"], s.metrics["err"], s.metrics["judge"] = score[key], err[key], 0.7
        s.diagnostics["frames"] = "8"
        out.append(s)
    for key in failed:
        out.append(scorecard_pb2.SampleScore(sample_id=key, split="x",
                                             error="ValueError: clip has no frames"))
    return out


def write_run(folder: pathlib.Path, c: scorecard_pb2.Scorecard,
              rows: Optional[List[scorecard_pb2.SampleScore]]) -> pathlib.Path:
    folder.mkdir(parents=True, exist_ok=True)
    schema.write_json(folder / "scorecard.json", c)
    if rows is not None:
        with open(folder / "per_sample_scores.jsonl", "w", encoding="utf-8") as f:
            f.writelines(schema.to_json_line(r) for r in rows)
    return folder / "scorecard.json"


def write_pair(root: pathlib.Path):
    """Writes runs A and B under `root`; returns their scorecard paths."""
    a = write_run(root / "a", card("model-a", A_SCORE, A_ERR, "toy-backend"),
                  samples(A_SCORE, A_ERR, failed=["s9"]))
    b = write_run(root / "b", card("model-b", B_SCORE, B_ERR, "other-backend",
                                   judge_reason="no API key: set JUDGE_API_KEY"),
                  samples(B_SCORE, B_ERR))
    return a, b
