"""MemoBench Step 2, the Object Revisit Score: `run_ors(...) -> OrsOutcome`.

Reproduces evaluation/compute_ors.py (spec §6) for one model: for each clip with a
SAM-3 metadata row, a phase-sheet row and a GT frame count (clips.plan), SAM-3 looks
for the clip's text prompt (metadata.MetadataRow.text_prompt) in every R-phase frame
(metrics.segmentation). Each clip's result is appended, as soon as it is computed, to
`ors_per_sample_scores.jsonl` (SampleScore, metric "ORS" on the official 0-1 scale;
`resume` skips clips already there) and to the official `ors_scores.csv`. The
MetricResult is the leaderboard's `mean(ors) * 100`.

Where this differs from compute_ors.py, on inputs it does not handle the same way:
a frame folder holding only JPEGs is scored (compute_ors globs `*.png` and would skip
the clip); frame names must be consistently numbered (metrics.video.frames), where
compute_ors sorts any names; a generated clip without a metadata row gets an error
sample (compute_ors never looks at it). Upstream writes the CSV once at the end; we
append row by row (same bytes).
"""

import dataclasses
import hashlib
import json
import pathlib
import time
from typing import Dict, List, Optional, Sequence

from absl import logging

from benchmarks.common import calibration
from benchmarks.common import engine
from benchmarks.common import input_digest as input_digest_lib
from benchmarks.common import model_recipe
from benchmarks.common import sample_loop
from benchmarks.common import scorecard as card_lib
from benchmarks.common import trust
from benchmarks.common.errors import InputError
from benchmarks.common.flags import CommonConfig
from benchmarks.memobench import clip_eval
from benchmarks.memobench import dataset
from benchmarks.memobench import metric_specs
from benchmarks.memobench.generated import GeneratedClip
from benchmarks.memobench.ors import clips as clips_lib
from benchmarks.memobench.ors import metadata as metadata_lib
from benchmarks.memobench.ors import ors_csv
from benchmarks.common import checkpoint_refs
from benchmarks.memobench.step1.prepare import Step1Settings
from metrics.checkpoints import resolver
from benchmarks.memobench.ors import revisit
from metrics.segmentation import sam3_spec
from proto import scorecard_pb2

# Bump when a change moves a number; say why in benchmarks/memobench/CHANGELOG.md.
ORS_VERSION = "memobench-ors/1"
SAMPLES_FILE = "ors_per_sample_scores.jsonl"
METRIC_ID = ors_csv.METRIC_ID
PREFIX = ors_csv.PREFIX
BACKEND = scorecard_pb2.Backend(
    name=sam3_spec.BACKEND_NAME, official=True, checkpoint_id=sam3_spec.SAM3.hf_repo,
    note="transformers Sam3Model on facebook/sam3's model.safetensors (the official code "
         "runs the facebookresearch/sam3 package on sam3.pt from the same repository), "
         "with Sam3Processor's preprocessing, 0-padded 32-token text, the geometry-encoder "
         "CLS token the official image model adds to text prompts (transformers' text-only "
         "forward omits it), score/mask post-processing and TF32 reproduced; parity with "
         "the package on the real weights is not verified here",
    implementation="transformers Sam3Model (driven as the official Sam3Processor)",
    parity=calibration.parity(sam3_spec.BACKEND_NAME, otherwise=(
        "tiny random SAM-3 through the real loader; geometry-encoder CLS equality with "
        "transformers forced to add it")))


@dataclasses.dataclass
class OrsOutcome:
    """What run_ors gives the runner."""

    samples: List[scorecard_pb2.SampleScore]   # one per generated clip, in compute_ors order
    metric: scorecard_pb2.MetricResult          # ORS, 0-100, or unavailable with the reason
    expected_ids: List[str]                     # "split/clip" upstream would score
    checkpoints: List[scorecard_pb2.CheckpointRef] = dataclasses.field(default_factory=list)
    output_files: Dict[str, str] = dataclasses.field(default_factory=dict)


def _unavailable(reason: str, expected=(), checkpoints=()) -> OrsOutcome:
    logging.warning("ORS unavailable: %s", reason)
    spec = metric_specs.BY_ID[METRIC_ID]
    return OrsOutcome([], card_lib.unavailable(spec, reason, BACKEND), list(expected),
                      list(checkpoints))


def _file_digests(paths) -> Dict[str, str]:
    """sha256 of the metadata CSVs and phase sheets, by file name: --resume redoes clips
    when their content changes (not when the same files are read from another folder)."""
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest()[:16]
            for p in paths if p is not None and p.is_file()}


def _leaderboard_metric(samples, seconds: float, checkpoints) -> scorecard_pb2.MetricResult:
    """Mean of the clips' official 0-1 ORS, times 100 (leaderboard.py)."""
    result = card_lib.aggregate(metric_specs.BY_ID[METRIC_ID], samples,
                                trust.with_digests(BACKEND, checkpoints), seconds)
    if result.available:
        result.value *= 100
        if result.HasField("ci95"):
            result.ci95.low *= 100
            result.ci95.high *= 100
    return result


def _scored_sample(item: clips_lib.OrsClip, detector: model_recipe.ModelRecipe
                   ) -> scorecard_pb2.SampleScore:
    """One clip's SampleScore; raises InputError/FrameInputError/ValueError. SAM-3 is
    `detector`'s model, built on first use in this process (a Ray actor builds its own)."""
    clip = item.clip
    if clip.error:
        raise InputError(clip.source, clip.expected, clip.error)
    problem = item.problem()
    if problem:
        raise InputError(clip.source, "a clip ORS can score", problem)
    from benchmarks.memobench.ors import object_revisit  # pylint: disable=import-outside-toplevel  (torch)
    start = time.perf_counter()
    frames = object_revisit.open_clip(item.source)
    r = clips_lib.r_start(item.keyframes, item.gt_frames, frames.num_frames)
    prompt = item.meta.text_prompt
    result = object_revisit.object_revisit_score(frames, r, detector.get(), prompt)
    sample = scorecard_pb2.SampleScore(sample_id=clip.clip_id, split=clip.split,
                                       scene=clip.scene)
    sample_loop.record_digests(sample, input_digests(item))
    sample.metrics[METRIC_ID] = result.ors
    for key in ("detection_rate", "mean_confidence", "n_r_frames", "n_detected"):
        sample.metrics[PREFIX + key] = getattr(result, key)
    per_frame = [None if v is None else (v.confidence if v.detected else False)
                 for v in result.frames]
    sample.diagnostics.update({
        PREFIX + "n_gen": str(frames.num_frames), PREFIX + "r_start": str(r),
        PREFIX + "gt_frames": str(item.gt_frames), PREFIX + "prompt": prompt,
        PREFIX + "source": str(item.source),
        PREFIX + "unreadable_frames": str(sum(v is None for v in result.frames)),
        PREFIX + "frames": json.dumps(per_frame),
    })
    if frames.note:
        sample.diagnostics[PREFIX + "note"] = frames.note
    for index, verdict in enumerate(result.frames):
        if verdict is None and frames.paths:  # the number is upstream's: named, not changed
            sample_loop.add_warning(sample, f"{frames.paths[r + index]}: not a readable "
                                    "image (cv2.imread gives None); counted as an R-phase "
                                    "frame without a detection, as compute_ors.py counts it")
    sample.seconds = round(time.perf_counter() - start, 4)
    return sample


def input_digests(item: clips_lib.OrsClip) -> Dict[str, str]:
    """The clip's resume key: its generated frames' content, and what ORS takes from the
    ground truth (the GT frame count, the phase-sheet keyframes, the metadata prompt)."""
    facts = {"gt_frames": item.gt_frames, "source": str(item.source),
             "keyframes": None if item.keyframes is None else [item.keyframes.h_gt,
                                                                item.keyframes.r_gt],
             "prompt": None if item.meta is None else item.meta.text_prompt}
    generated = clip_eval.input_digest(item.source) if item.source.exists() else ""
    return {clip_eval.GENERATED: generated,
            clip_eval.REFERENCE: input_digest_lib.files_digest([], facts)}


def _ref(item: clips_lib.OrsClip) -> sample_loop.SampleRef:
    return sample_loop.SampleRef(item.clip.clip_id, item.clip.split, item.clip.scene)


def resolve_checkpoint(settings: Step1Settings):
    """(found, CheckpointRef) for SAM-3, or the reason it is unavailable (a str). The
    runner calls this before the first clip of any step, with every other checkpoint."""
    try:
        return checkpoint_refs.resolve(sam3_spec.SAM3, settings, METRIC_ID)
    except resolver.CheckpointUnavailable as e:
        return (f"SAM-3 weights unavailable: {e} (facebook/sam3 is a gated repository: "
                "accept its terms on the hub and run `huggingface-cli login` first)")


def run_ors(clips: Sequence[GeneratedClip], data_root: pathlib.Path,
            settings: Step1Settings, output_dir: pathlib.Path, resume: bool = False,
            metadata_dir: Optional[pathlib.Path] = None,
            synthetic_sheet: Optional[pathlib.Path] = None,
            real_sheet: Optional[pathlib.Path] = None, resolved=None,
            stored_only: bool = False, ctx: Optional[engine.Context] = None) -> OrsOutcome:
    """Scores ORS on the generated `clips`; see the module docstring.

    Args:
        clips: From benchmarks.memobench.generated's discovery (already filtered).
        data_root: MemoBench's data/ folder, or the checkout containing it.
        settings: Device, --checkpoint_dir, --offline and explicit checkpoint paths
            (`settings.checkpoints["sam3"]`: a facebook/sam3 snapshot folder).
        output_dir: Where ors_scores.csv and ors_per_sample_scores.jsonl go.
        resume: Keep clips already scored under the same settings.
        stored_only: Score nothing (`--stored_only`, `worldeval merge`): clips not stored
            become error rows saying so.
        metadata_dir: The sam3_metadata folder (default: metadata.metadata_dir).
        synthetic_sheet, real_sheet: Phase sheets (default: the official locations).
        resolved: resolve_checkpoint's result, when the caller resolved it already.
        ctx: the run's engine context (its store and loop); None: one of this step's own
            in `output_dir`, from `resume` and `stored_only`.

    Returns:
        OrsOutcome; its metric is unavailable, with the reason and the fetch command,
        when SAM-3 or the metadata cannot be had.

    Raises:
        InputError: data_root or a given sheet is not usable.
    """
    data_root = dataset.resolve_data_root(pathlib.Path(data_root))
    meta_dir = metadata_lib.metadata_dir(data_root, metadata_dir)
    try:
        metadata = metadata_lib.read_metadata(meta_dir)
    except InputError as e:
        return _unavailable(f"ORS needs the SAM-3 metadata CSVs: {e}")
    sheets = clips_lib.sheet_paths(data_root, synthetic_sheet, real_sheet)
    work, expected = clips_lib.plan(clips, metadata, clips_lib.load_sheets(sheets), data_root)
    resolved = resolved or resolve_checkpoint(settings)
    if isinstance(resolved, str):
        return _unavailable(resolved, expected)
    found, ref = resolved

    if ctx is None:
        ctx = engine.Context(CommonConfig(resume=resume, stored_only=stored_only), output_dir)
    stored_only = ctx.common.stored_only
    output_dir = ctx.output_dir
    csv_path = output_dir / ors_csv.FILE_NAME
    digest_settings = {
        "version": ORS_VERSION, "backend": BACKEND.name, "checkpoint": ref.sha256,
        "coverage": (revisit.MIN_COVERAGE, revisit.MAX_COVERAGE,
                     revisit.FALLBACK_MAX_COVERAGE),
        "inputs": _file_digests([meta_dir / name for name in metadata_lib.CSV_NAMES.values()]
                                + list(sheets.values()))}
    with ctx.store(SAMPLES_FILE, digest_settings, checkpoints=None) as store:
        recomputed = sample_loop.discard_changed(work, _ref, store, input_digests, "ORS")
        ors_csv.rewrite(csv_path, store.samples())
        scorable = [item for item in work if not item.problem()
                    and _ref(item).key not in store and not stored_only]
        detector = None
        if scorable:
            try:
                from metrics.segmentation import sam3  # pylint: disable=import-outside-toplevel  (torch)
                path = found.path
                detector = model_recipe.prepared(  # local run: now; Ray: on each actor
                    lambda device: sam3.load_sam3(path, device), settings.device, "sam3")
            except (OSError, ValueError) as e:
                return _unavailable(f"SAM-3 could not be loaded from {found.path}: {e}",
                                    expected, [ref])

        def append_row(_, sample):
            if not sample.error:
                ors_csv.append(csv_path, sample)

        outcome = ctx.loop(store, engine.Pass(
            label="ORS", items=work, ref=_ref, load=lambda item: None,
            score=lambda item, _: _scored_sample(item, detector), on_sample=append_row,
            prefetch=False, digest=input_digests))
        if recomputed:  # the rows in clip order, as a fresh run writes them
            ors_csv.rewrite(csv_path, outcome.samples)
    samples = outcome.samples
    metric = _leaderboard_metric(samples, sum(s.seconds for s in samples), [ref])
    return OrsOutcome(samples, metric, expected, [ref], {
        "ors_scores": str(csv_path), "ors_per_sample_scores": str(output_dir / SAMPLES_FILE)})
