"""One VQA clip end to end: bank, video, judge, parse, score, the official CSV, a SampleScore.

The SampleScore holds the four leaderboard metrics on llm-vqa.py's 0-1 scale (the x100 is
the aggregation's), one per dimension the judge answered under its exact official name;
a dimension with no answer under that name is unavailable for the clip (leaderboard.py
reads NaN there). Anything that keeps a clip from being scored (no bank, unreadable
frames, a judge error after its retries, an answer that is not JSON or cannot be scored)
makes an error sample and no official CSV: never a score.
"""

import json
import pathlib
import time

from benchmarks.common.errors import InputError
from benchmarks.memobench import generated as generated_lib
from benchmarks.memobench.vqa import cases as cases_lib
from benchmarks.memobench.vqa import official
from benchmarks.memobench.vqa import results_csv
from benchmarks.memobench.vqa import video as video_lib
from metrics.checkpoints import resolver
from metrics.judges import judge as judge_lib
from metrics.video import frames as frames_lib
from proto import scorecard_pb2

SPLIT = "synthetic"  # the VQA subset is 45 synthetic clips (spec §2.5)
SCORE_JSON = "vqa_score_json"
EVALUATION_JSON = "vqa_evaluation_json"
_RAW_ANSWER_CHARS = 4000


def new_sample(case: cases_lib.FailureCase) -> scorecard_pb2.SampleScore:
    sample = scorecard_pb2.SampleScore(
        sample_id=case.generated_id, split=SPLIT, scene=case.generated_id.rsplit("_", 1)[0])
    sample.diagnostics.update({"vqa_clip_id": case.clip_id, "vqa_scene": case.scene,
                               "vqa_video_id": case.video_id, "vqa_folder": case.folder})
    return sample


_sha256 = resolver.sha256_of


def _answer_facts(evaluation: list, bank: cases_lib.QuestionBank) -> dict:
    asked = {json.dumps(q["ID"]) for q in bank.questions}
    answered = {json.dumps(item.get("ID")) for item in evaluation}
    return {"vqa_questions": str(len(bank.questions)), "vqa_answered": str(len(evaluation)),
            "vqa_dropped": str(len(asked - answered)),
            "vqa_unknown_ids": str(len(answered - asked)),
            "vqa_items_without_answer": str(sum("Answer" not in item for item in evaluation))}


def fill_metrics(sample: scorecard_pb2.SampleScore, score: dict) -> None:
    """The four metrics from llm-vqa.py's score dict (0-1), by exact dimension name."""
    for dim, metric in official.DIMENSION_METRICS.items():
        if dim in score:
            sample.metrics[metric] = float(score[dim])
        else:
            sample.unavailable[metric] = (f"the judge answered no question under '{dim}' "
                                          f"(dimensions answered: {sorted(map(str, score))})")


def evaluate(case: cases_lib.FailureCase, clip: generated_lib.GeneratedClip,
             questions_dir: pathlib.Path, judge: judge_lib.VideoJudge,
             scratch_dir: pathlib.Path, results_dir: pathlib.Path) -> scorecard_pb2.SampleScore:
    """Scores one case; failures become an error sample (see the module docstring)."""
    start = time.perf_counter()
    sample = new_sample(case)
    sample.diagnostics.update({"source": str(clip.source), "layout": clip.layout,
                               "vqa_judge": judge.name, "vqa_model_id": judge.model_id})
    encoded = None
    try:
        bank = cases_lib.read_question_bank(questions_dir, case)
        encoded = video_lib.judge_video(clip, scratch_dir)
        sample.diagnostics.update(encoded.diagnostics())
        sample.diagnostics["vqa_video_sha256"] = _sha256(encoded.path)
        reply = judge.ask(encoded.path, official.build_prompt(bank.raw))
        sample.diagnostics.update({"vqa_attempts": str(reply.attempts),
                                   "vqa_judge_seconds": f"{reply.seconds:.3f}"})
        sample.diagnostics.update({"vqa_judge_" + k: v for k, v in reply.details.items()})
        try:
            evaluation = official.extract_json(reply.text)
            score = official.compute_scores(evaluation, bank.questions)
        except (json.JSONDecodeError, official.ScoringError) as e:
            sample.diagnostics["vqa_raw_answer"] = reply.text[:_RAW_ANSWER_CHARS]
            raise official.ScoringError(f"the judge's answer cannot be scored: {e}") from None
        sample.diagnostics.update(_answer_facts(evaluation, bank))
        sample.diagnostics[EVALUATION_JSON] = json.dumps(evaluation)
        sample.diagnostics[SCORE_JSON] = json.dumps(score)
        fill_metrics(sample, score)
        write_official_csv(sample, results_dir)
    except judge_lib.JudgeError as e:
        sample.diagnostics["vqa_attempts"] = str(e.attempts)
        sample.error = f"VQA judge {judge.name}: {type(e).__name__}: {e}"
    except (InputError, frames_lib.FrameInputError, official.ScoringError) as e:
        sample.error = f"VQA {case.clip_id}: {e}"
    finally:
        if encoded is not None and encoded.re_encoded:
            encoded.path.unlink(missing_ok=True)  # llm-vqa.py deletes its temp mp4 too
    sample.seconds = time.perf_counter() - start
    return sample


def write_official_csv(sample: scorecard_pb2.SampleScore, results_dir: pathlib.Path):
    """llm-vqa.py's per-clip CSV, from a scored sample's diagnostics."""
    d = sample.diagnostics
    return results_csv.write_clip(results_csv.clip_csv_path(results_dir, d["vqa_clip_id"]),
                                  d["vqa_scene"], d["vqa_video_id"], d["vqa_folder"],
                                  d[EVALUATION_JSON], d[SCORE_JSON])
