"""MiraBench's model families: one `prepare_*` per official network, and its backend.

Each `prepare_*(config) -> (compute, checkpoint refs)` resolves the network's official
files with benchmarks/common/checkpoint_refs (CheckpointUnavailable with the fetch command
when one is absent) and returns compute(ctx) -> FamilyResult on one video's decoded
frames; the arithmetic is benchmarks/mirabench/model_metrics'. The model is a
benchmarks/common/model_recipe: loaded once per process where compute runs (in a local
run at prepare time; on Ray by each actor, on its device), never pickled with compute.
`config.architectures` (tests only) swaps in tiny architectures for tiny checkpoint
files. families.py lists which family fills which code keys.
"""

import functools

import numpy as np

from benchmarks.common import calibration
from benchmarks.common import checkpoint_refs
from benchmarks.common import family as family_lib
from benchmarks.common import model_recipe
from benchmarks.common import sample_batch
from benchmarks.common import scorecard as card_lib
from benchmarks.common import trust
from benchmarks.mirabench import checkpoints as ckpts
from proto import scorecard_pb2

_TINY_CHECKED = ("the full-size official architecture loading the official file format; the "
                 "family equals its benchmarks/mirabench/model_metrics compute(), checked on "
                 "tiny random weights (model_metrics_test.py, model_families_test.py); never "
                 "run on the real weights here, no parity row. ")


def model_backend(name, implementation, checked, note,
                  parity=None) -> scorecard_pb2.Backend:
    """An official-model backend; its parity is `parity` (from the calibration table) when
    given, else not verified, saying what `checked` instead."""
    return scorecard_pb2.Backend(
        name=name, official=True, implementation=implementation, note=note,
        parity=parity if parity is not None else trust.not_verified(_TINY_CHECKED + checked))


def _resolve_all(config, specs, metric_id):
    return checkpoint_refs.resolve_all(specs, config.common, metric_id)


def _recipe(config, build, name) -> model_recipe.ModelRecipe:
    """`build(device)` as a recipe on --device, built now in a local run."""
    return model_recipe.prepared(build, config.common.device, name)


def _per_video(metric_id, metric_compute, model: model_recipe.ModelRecipe):
    def compute(ctx) -> family_lib.FamilyResult:
        return family_lib.FamilyResult({metric_id: metric_compute(ctx.rgb(), model.get())})
    return compute


class PerFrame:
    """compute(ctx) of a metric whose network sees each frame alone (`metric`: a
    model_metrics module with checked / per_frame / from_frame_values), so that the
    frames of several videos may share its calls (--sample_batch, batching.py): the
    video's per-frame values are taken from `ctx.shared` when the stage computed them,
    else computed for this video alone by `metric.compute`, the official path."""

    def __init__(self, metric_id: str, metric, model: model_recipe.ModelRecipe):
        self.metric_id, self.metric, self.model = metric_id, metric, model

    def frame_call(self) -> sample_batch.FrameCall:
        """Its network as a --sample_batch call: a video's checked RGB frames, keyed by
        shape where the network stacks frames at their own size."""
        metric = self.metric
        return sample_batch.FrameCall(
            self.metric_id,
            frames=lambda loaded: metric.checked(np.ascontiguousarray(loaded.frames[..., ::-1])),
            fn=lambda frames: metric.per_frame(frames, self.model.get()),
            key=sample_batch.frame_shape if metric.ONE_SIZE_PER_CALL else sample_batch.any_size)

    def __call__(self, ctx) -> family_lib.FamilyResult:
        values = ctx.shared.get(self.metric_id)
        value = (self.metric.compute(ctx.rgb(), self.model.get()) if values is None
                 else self.metric.from_frame_values(values))
        return family_lib.FamilyResult({self.metric_id: value})


def prepare_dino(config):
    """config.architectures["dino"] (a metrics.dino.vit.DinoConfig) is for tiny test files."""
    # pylint: disable=import-outside-toplevel
    from benchmarks.mirabench.model_metrics import temporal_dino_consistency as metric
    from metrics.dino import vit
    metric_id = "temporal_dino_consistency"
    (path,), refs = _resolve_all(config, ckpts.TEMPORAL_DINO_CONSISTENCY, metric_id)
    arch = (getattr(config, "architectures", None) or {}).get("dino", vit.VIT_B16)
    model = _recipe(config, lambda device: vit.load_dino(path, device, arch), metric_id)
    return PerFrame(metric_id, metric, model), refs


def prepare_clip(config):
    # pylint: disable=import-outside-toplevel
    from benchmarks.mirabench.model_metrics import temporal_clip_consistency as metric
    from metrics.clip import vision
    metric_id = "temporal_clip_consistency"
    (folder,), refs = _resolve_all(config, ckpts.TEMPORAL_CLIP_CONSISTENCY, metric_id)
    tower = _recipe(config, lambda device: vision.load_clip_vision(
        folder, device, activation=metric.ACTIVATION), metric_id)
    return PerFrame(metric_id, metric, tower), refs


def prepare_aesthetic(config):
    # pylint: disable=import-outside-toplevel
    from benchmarks.mirabench.model_metrics import aesthetic_quality as metric
    from metrics.clip import aesthetic
    metric_id = "aesthetic_quality"
    (folder, head), refs = _resolve_all(config, ckpts.AESTHETIC_QUALITY, metric_id)
    model = _recipe(config, lambda device: aesthetic.load_aesthetic_linear(
        folder, head, device, activation=metric.ACTIVATION), metric_id)
    return PerFrame(metric_id, metric, model), refs


def prepare_raft(config):
    # pylint: disable=import-outside-toplevel
    from benchmarks.mirabench.model_metrics import dynamic_degree as metric
    from metrics.flow import raft_things
    metric_id = "dynamic_degree"
    (path,), refs = _resolve_all(config, ckpts.DYNAMIC_DEGREE, metric_id)
    model = _recipe(config, lambda device: raft_things.load_raft_things(path, device),
                    metric_id)
    return _per_video(metric_id, metric.compute, model), refs


def prepare_amt(config):
    """AMT-S at config.amt_scale (--amt_scale), or else at the official memory rule's scale
    on the run's device (1 on CPU), so that a CPU run can reproduce a GPU run's scale."""
    # pylint: disable=import-outside-toplevel
    from benchmarks.mirabench.model_metrics import temporal_motion_smoothness as metric
    from metrics.frame_interpolation import amt
    metric_id = "temporal_motion_smoothness"
    (path,), refs = _resolve_all(config, ckpts.MOTION_SMOOTHNESS, metric_id)
    model = _recipe(config, lambda device: amt.load_amt_s(path, device), metric_id)
    scale = getattr(config, "amt_scale", None)

    def compute(frames, loaded):
        return metric.compute(frames, loaded, scale=scale, device=model.device())

    return _per_video(metric_id, compute, model), refs


AMT_BACKEND = model_backend(
    "amt_s", "metrics/frame_interpolation/amt.py (our AMT-S, official keys, cfgs/AMT-S.yaml)",
    "Scratch run: upstream MCG-NKU/AMT @ 70f988fb AMT-S on seeded random weights, max "
    "|imgt_pred diff| 0.0 at 128x192 (scale 1) and 256x320 (scales 1 and 0.5); the numbers "
    "are metrics/frame_interpolation/testdata/amt_s_parity.json, checked by amt_test.py",
    "scale: the official memory rule (smoothness.memory_scale): 1 on CPU and on a GPU large "
    "enough for the clip, else 1/floor(16/sqrt(s))*16; frames padded to int(16/scale); "
    "needs 128 px per side after the scale (upstream gives NaN below)")


def prepare_musiq(config):
    """config.architectures["musiq"] (a metrics.iqa.musiq.MusiqConfig) is for tiny test files."""
    # pylint: disable=import-outside-toplevel
    from benchmarks.mirabench.model_metrics import imaging_quality as metric
    from metrics.iqa import musiq
    metric_id = "imaging_quality"
    (path,), refs = _resolve_all(config, ckpts.IMAGING_QUALITY, metric_id)
    arch = (getattr(config, "architectures", None) or {}).get("musiq", musiq.SPAQ)
    model = _recipe(config, lambda device: musiq.load_musiq(path, device, arch), metric_id)
    return _per_video(metric_id, metric.compute, model), refs


MUSIQ_PARITY = "metrics/iqa/testdata/musiq_parity.json"


def prepare_viclip(config):
    """config.architectures["viclip"] (a metrics.viclip.model.ViClipConfig) is for tiny files."""
    # pylint: disable=import-outside-toplevel
    from benchmarks.mirabench import sample
    from benchmarks.mirabench.model_metrics import text_video_alignment as metric
    from metrics.viclip import loader
    from metrics.viclip import model as viclip_model
    from metrics.viclip import tokenizer as viclip_tokenizer
    (weights, bpe), refs = _resolve_all(config, ckpts.TEXT_VIDEO_ALIGNMENT, metric.METRIC_IDS[0])
    arch = (getattr(config, "architectures", None) or {}).get("viclip", viclip_model.VICLIP_L14)
    scorer = _recipe(config, lambda device: metric.ViClipScorer(
        loader.load_viclip(weights, device, arch), viclip_tokenizer.load_tokenizer(str(bpe)),
        device), metric.METRIC_IDS[0])

    def compute(ctx) -> family_lib.FamilyResult:
        captions, unavailable = {}, {}
        for metric_id in metric.METRIC_IDS:
            text, why = _viclip_caption(ctx.row, sample.CAPTION_OF[metric_id])
            if text:
                captions[metric_id] = text
            elif why:
                unavailable[metric_id] = why
            # else no caption at all: sample.score records caption_problem as the reason
        return family_lib.FamilyResult(metric.compute(ctx.rgb(), captions, scorer.get()),
                                       unavailable)

    return compute, refs


def _viclip_caption(row, columns):
    """(caption, None), (None, reason) or (None, None) for a metric reading `columns`.

    The official code takes row["dense_caption"] and falls back to short_caption only when
    it `is None`, which a pandas cell never is: a NaN dense_caption is scored, raises, and
    the value is None (spec §3.5 [I]). So a later column is used only when the earlier one
    is absent from the meta CSV (where the official code stops with a KeyError instead).
    """
    for position, column in enumerate(columns):
        if row.captions.get(column):
            return row.captions[column], None
        problem = row.caption_problems.get(column, "")
        if position + 1 < len(columns) and problem and not problem.endswith(
                f"has no {column} column"):  # layout.rows' reason for an absent column
            return None, (card_lib.OFFICIAL_GAP + f"{problem}; the official code scores the "
                          f"NaN {column} (no fallback to {columns[position + 1]}), raises and "
                          "records None")
    return None, None


def prepare_cotracker(config):
    """CoTracker2 online, loaded once; config.architectures["cotracker2"] (a
    metrics.tracking.cotracker2.config.CoTracker2Config) is for tiny test files."""
    # pylint: disable=import-outside-toplevel
    from benchmarks.mirabench.model_metrics import tracking_strength as metric
    from metrics.tracking.cotracker2 import config as cotracker2_config
    from metrics.tracking.cotracker2 import loader as cotracker2_loader
    metric_id = "tracking_strength"
    (path,), refs = _resolve_all(config, ckpts.TRACKING_STRENGTH, metric_id)
    arch = (getattr(config, "architectures", None) or {}).get(
        "cotracker2", cotracker2_config.ONLINE_DEFAULT)
    model = _recipe(config, lambda device: cotracker2_loader.load_cotracker2_online(
        path, device, arch), metric_id)
    history = getattr(config, "tracking_history", OFFICIAL_HISTORY)
    if history == OFFICIAL_HISTORY:
        return _per_video(metric_id, metric.compute, model), refs
    compute = functools.partial(metric.compute, corrected=True)
    return _per_video(metric_id, compute, model), refs, FINAL_HISTORY_BACKEND


COTRACKER_BACKEND = model_backend(
    "cotracker2_online", "metrics/tracking/cotracker2 (our CoTracker2 and co-tracker's "
    "CoTrackerOnlinePredictor(window_len=8, v2=True) procedure, official keys)",
    "Scratch run: upstream facebookresearch/co-tracker @ 82e02e8 (main) CoTracker2 online on "
    "seeded full-size weights (two parts scaled so the refinements settle), 14 frames at "
    "96x128, grid 10, official chunking: tracks and flags bit-equal on this CPU, 3e-5 px "
    "under AVX2 kernels; the numbers are tools/calibration/cotracker2_official.json",
    "no torch.hub at run time: cotracker2.pth through the checkpoint resolver; 6 iterations at "
    "384x512; the official mean over the concatenated cumulative histories (visibility "
    "ignored); a clip of at most 4 frames has no value (upstream fails on it)",
    parity=calibration.parity("cotracker2_online"))

# --tracking_history: "official" (every online call's cumulative history concatenated,
# early frames counted once per call: the official quirk) or "final" (the last history
# only, each frame once: tracking_strength_final_history, NOT the official number).
OFFICIAL_HISTORY, FINAL_HISTORY = "official", "final"
FINAL_HISTORY_BACKEND = scorecard_pb2.Backend()
FINAL_HISTORY_BACKEND.CopyFrom(COTRACKER_BACKEND)
FINAL_HISTORY_BACKEND.name = "cotracker2_online, tracking_strength_final_history"
FINAL_HISTORY_BACKEND.official = False
FINAL_HISTORY_BACKEND.note = (
    "--tracking_history=final: the mean displacement over the LAST online call's history "
    "only (each frame once), the corrected variant of the official concatenation; NOT the "
    "official number")
