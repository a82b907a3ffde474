"""MemoBench Step 3 (VQA): `run_vqa(...) -> VqaResult`, llm-vqa.py over a model's clips.

For each failure-cases.csv row: the generated clip named by `folder`, re-encoded as the
official script does, goes to the judge with the clip's question bank; the answer is
scored with compute_scores. Per clip, a SampleScore is appended to
`{output_dir}/vqa_per_sample_scores.jsonl` as soon as it is known (resume skips scored
clips made with the same settings and retries failed ones) and, when scored, llm-vqa.py's
`{output_dir}/vqa_results/{model}/{scene}-{id}.csv`; overall.csv is written at the end.

Fail closed: no API key, no endpoint or no VQA data make the four metrics unavailable
with the reason and write nothing; a clip whose answer fails gets an error, not a score.
MetricResults are on the leaderboard's 0-100 scale: the mean over clips of the 0-1
per-clip values times 100 (leaderboard.py).
"""

import dataclasses
import json
import os
import pathlib
import tempfile
from typing import Callable, Dict, List, Mapping, Optional

from absl import logging

from benchmarks.common import engine
from benchmarks.common import input_digest as input_digest_lib
from benchmarks.common import sample_loop
from benchmarks.common import scorecard as card_lib
from benchmarks.common.errors import InputError
from benchmarks.common.flags import CommonConfig
from benchmarks.memobench import metric_specs
from benchmarks.memobench.vqa import cases as cases_lib
from benchmarks.memobench.vqa import clip as clip_lib
from benchmarks.memobench.vqa import judges as judges_lib
from benchmarks.memobench.vqa import official
from benchmarks.memobench.vqa import results_csv
from benchmarks.memobench.vqa import video as video_lib
from metrics.judges import judge as judge_lib
from metrics.video import frames as frames_lib
from proto import scorecard_pb2

# Bump when a change moves a number; say why in benchmarks/memobench/CHANGELOG.md.
VQA_VERSION = "memobench-vqa/1"
PER_SAMPLE = "vqa_per_sample_scores.jsonl"
METRIC_IDS = tuple(official.DIMENSION_METRICS.values())


@dataclasses.dataclass
class VqaResult:
    """What run_vqa found; the runner folds it into the scorecard.

    Attributes:
        samples: One per failure case whose generated clip exists, in file order.
        metrics: The four VQA MetricResults (0-100), available or with the reason.
        expected_ids / found_ids: Generated clip ids of all cases / of those found.
        backend: The judge as reported; `backend.official` is the protocol flag.
        deviations: Departures from llm-vqa.py that can change numbers.
        notes: Facts worth a scorecard note (retries, resumed clips, ...).
        output_files: name -> path of what was written.
        resumed: Clips reused from an earlier run's store.
    """

    samples: List[scorecard_pb2.SampleScore]
    metrics: List[scorecard_pb2.MetricResult]
    expected_ids: List[str]
    found_ids: List[str]
    backend: scorecard_pb2.Backend
    deviations: List[str] = dataclasses.field(default_factory=list)
    notes: List[str] = dataclasses.field(default_factory=list)
    output_files: Dict[str, str] = dataclasses.field(default_factory=dict)
    resumed: int = 0


def _unavailable(reason: str, backend: scorecard_pb2.Backend, expected_ids=()) -> VqaResult:
    metrics = [card_lib.unavailable(metric_specs.BY_ID[m], reason, backend) for m in METRIC_IDS]
    return VqaResult(samples=[], metrics=metrics, expected_ids=list(expected_ids), found_ids=[],
                     backend=backend)


def _in_percent(samples) -> List[scorecard_pb2.SampleScore]:
    """Copies with the VQA values x100 per clip, as leaderboard.py scales before the mean."""
    copies = []
    for sample in samples:
        copy = scorecard_pb2.SampleScore()
        copy.CopyFrom(sample)
        for metric in METRIC_IDS:
            if metric in copy.metrics:
                copy.metrics[metric] *= 100.0
        copies.append(copy)
    return copies


def run_vqa(generated_dir: pathlib.Path, output_dir: pathlib.Path, model_name: str,
            judge: judges_lib.JudgeSettings = judges_lib.JudgeSettings(),
            data_root: Optional[pathlib.Path] = None,
            failure_cases: Optional[pathlib.Path] = None,
            questions_dir: Optional[pathlib.Path] = None, resume: bool = False,
            stored_only: bool = False, select: Optional[Callable] = None,
            env: Mapping[str, str] = os.environ, sleep=None,
            ctx: Optional[engine.Context] = None) -> VqaResult:
    """Runs MemoBench Step 3 over the synthetic generated clips in `generated_dir`.

    Args:
        generated_dir: The model's synthetic output root (e.g. output/<model>/Synthetic).
        output_dir: Receives vqa_per_sample_scores.jsonl and vqa_results/<model_name>/.
        model_name: The folder name under vqa_results/ (leaderboard.py's model key).
        judge: Which judge and how to call it.
        data_root: MemoBench checkout or data/ folder holding vqa_questions/.
        failure_cases / questions_dir: Explicit paths (default: under data_root).
        resume: Reuse clips already scored with the same settings.
        stored_only: Call no judge (`--stored_only`, `worldeval merge`): clips not stored
            become error rows saying so.
        select: `select(cases, key) -> cases`, the failure cases this run judges (a
            shard's: shards.select with --num_shards); default all. `key(case)` is the
            clip's (split, sample id).
        env: Where API keys are read (never recorded).
        sleep: Replaces time.sleep in the judge's backoff and polling (tests).
        ctx: the run's engine context (its store and loop); None: one of this step's own
            in `output_dir`, from `resume` and `stored_only`.
    """
    settings_backend = judges_lib.settings_backend(judge)
    try:
        if failure_cases is None or questions_dir is None:
            if data_root is None:
                raise InputError("--data_root", "the MemoBench data (vqa_questions/) or "
                                 "explicit failure-cases and questions paths", "none given")
            default_cases, default_questions = cases_lib.default_paths(data_root)
            failure_cases = failure_cases or default_cases
            questions_dir = questions_dir or default_questions
        cases = cases_lib.read_failure_cases(failure_cases)
        if select is not None:
            cases = select(cases, lambda case: _ref(case).key)
        results_dir = results_csv.model_dir(output_dir, model_name)
    except (InputError, ValueError) as e:
        return _unavailable(f"VQA inputs unusable: {e}", settings_backend)
    expected_ids = [c.generated_id for c in cases]
    try:
        judge_obj = judges_lib.make_judge(judge, env, sleep)
    except judge_lib.JudgeUnavailable as e:
        return _unavailable(f"{e}; fix: {judges_lib.fix_hint(judge)}", settings_backend,
                            expected_ids)
    try:
        clips = video_lib.discover(generated_dir)
    except InputError as e:
        return _unavailable(f"VQA inputs unusable: {e}", settings_backend, expected_ids)
    standalone = ctx is None  # then this step notes what it resumed (else the engine does)
    if standalone:
        ctx = engine.Context(CommonConfig(resume=resume, stored_only=stored_only), output_dir)
    result = _run(ctx, cases, clips, pathlib.Path(questions_dir), judge_obj, judge,
                  results_dir, expected_ids)
    if result.resumed and standalone:
        result.notes.append(f"VQA resumed: {result.resumed} clip(s) reused from an earlier run")
    return result


def input_digests(case, clip, questions_dir: pathlib.Path) -> Dict[str, str]:
    """A clip's resume key: its generated frames' content, and its question bank and
    failure-case row (by stat and value)."""
    bank = cases_lib.bank_path(questions_dir, case)
    return {sample_loop.GENERATED: frames_lib.source_digest(clip.source),
            "reference": input_digest_lib.files_digest([bank], dataclasses.asdict(case))}


def _ref(case) -> sample_loop.SampleRef:
    return sample_loop.SampleRef(case.generated_id, clip_lib.SPLIT,
                                 case.generated_id.rsplit("_", 1)[0])


def _run(ctx, cases, clips, questions_dir, judge_obj, settings, results_dir,
         expected_ids) -> VqaResult:
    backend = judges_lib.backend(judge_obj)
    # The endpoint's address is left out: a local server moved to another port still
    # serves the same model (the Gemini judge's name carries a non-default address).
    digest = {"version": VQA_VERSION, "judge": judge_obj.name,
              "model_id": judge_obj.model_id, "prompt": official.prompt_digest()}
    output_dir = ctx.output_dir
    found = [c for c in cases if c.generated_id in clips]
    missing = [c.clip_id for c in cases if c.generated_id not in clips]
    results_dir.mkdir(parents=True, exist_ok=True)
    store_path = output_dir / PER_SAMPLE
    with ctx.store(PER_SAMPLE, digest, checkpoints=None) as store, \
            tempfile.TemporaryDirectory(prefix="memobench-vqa-") as scratch:
        for case in found:
            if _ref(case).key in store:
                clip_lib.write_official_csv(store.get(_ref(case).key), results_dir)

        def digests(case):
            return input_digests(case, clips[case.generated_id], questions_dir)

        def score(case, _):
            # Never leave an earlier run's score behind for a clip that fails now.
            results_csv.clip_csv_path(results_dir, case.clip_id).unlink(missing_ok=True)
            sample = clip_lib.evaluate(case, clips[case.generated_id], questions_dir,
                                       judge_obj, pathlib.Path(scratch), results_dir)
            sample_loop.record_digests(sample, digests(case))
            if sample.error:
                logging.warning("%s", sample.error)
            return sample

        outcome = ctx.loop(store, engine.Pass(
            label="VQA", items=found, ref=_ref, load=lambda case: None, score=score,
            prefetch=False, digest=digests))
        resumed = outcome.resumed
    samples = outcome.samples
    files = {"vqa_per_sample_scores": str(store_path)}
    overall = results_dir / results_csv.OVERALL
    scored = [s for s in samples if not s.error]
    if scored:
        files["vqa_overall_csv"] = str(results_csv.write_overall(overall, [
            {"scene": s.diagnostics["vqa_scene"], "video_id": s.diagnostics["vqa_video_id"],
             **json.loads(s.diagnostics[clip_lib.SCORE_JSON])} for s in scored]))
    else:
        overall.unlink(missing_ok=True)
    files["vqa_results_dir"] = str(results_dir)

    seconds = sum(s.seconds for s in samples)
    none_scored = ""
    if not scored:
        failed = [s for s in samples if s.error]
        none_scored = (f"no VQA clip was scored: {len(failed)} of {len(cases)} failed"
                       + (f" (first: {failed[0].error})" if failed else "")
                       + (f"; no generated clip for {len(missing)}" if missing else ""))
    percent = _in_percent(samples)
    metrics = [card_lib.aggregate(metric_specs.BY_ID[m], percent, backend, seconds,
                                  unavailable_reason=none_scored) for m in METRIC_IDS]
    result = VqaResult(samples=samples, metrics=metrics, expected_ids=expected_ids,
                       found_ids=[c.generated_id for c in found], backend=backend,
                       output_files=files)
    if not judge_obj.official:
        result.deviations.append(f"VQA judge {judge_obj.describe()} is not the official "
                                 "Gemini gemini-3.1-pro-preview via google-genai")
    result.notes.append(
        f"VQA: up to {settings.max_attempts} attempts per judge request on timeouts, "
        "connection errors and HTTP 408/429/5xx (llm-vqa.py: 1 attempt)")
    if missing:
        result.notes.append(f"VQA: no generated clip for {len(missing)} failure case(s): "
                            + ", ".join(missing))
    result.resumed = resumed
    return result
