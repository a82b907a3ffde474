"""MiraBench's metric families: which compute in this version, and why not the others.

Every family is a `FamilySpec`: its name, the code keys it fills, and
`prepare(config) -> (compute, checkpoint refs)` with compute(ctx) -> FamilyResult a
callable on one video's decoded frames (benchmarks/common/family.py), built once per run:
models are loaded once, checkpoints resolved with benchmarks/common/checkpoint_refs and
their refs go into the scorecard. `prepare` raises family.FamilyUnavailable (or
resolver.CheckpointUnavailable) with the reason and the fetch command when it cannot. A
model family plugs in by giving its `prepare` here; the runner does not change.
Set-level families (fid/kid, fvd/kvd) are in set_metrics.py.
"""

import dataclasses
from typing import Callable, Dict, List, Tuple

from benchmarks.common import checkpoint_refs
from benchmarks.common import family as family_lib
from benchmarks.common import scorecard as card_lib
from benchmarks.common import trust
from benchmarks.mirabench import checkpoints as ckpts
from benchmarks.mirabench import consistency_3d
from benchmarks.mirabench import metric_specs
from metrics.checkpoints import resolver
from proto import scorecard_pb2

NOT_WIRED = "model family not wired in this version"
CALIBRATION_3D = "benchmarks/mirabench/calibration/consistency_3d_official.csv"


@dataclasses.dataclass(frozen=True)
class FamilySpec:
    name: str
    metric_ids: Tuple[str, ...]
    prepare: Callable  # config -> (compute: ctx -> FamilyResult, checkpoint refs)
    backend: scorecard_pb2.Backend


def _not_wired(what: str, fetch: str):
    def prepare(config):
        del config
        raise family_lib.FamilyUnavailable(f"{NOT_WIRED}: {what}; official weights: {fetch}")
    return prepare


def _model(name, ids, what, fetch) -> FamilySpec:
    return FamilySpec(name, tuple(ids), _not_wired(what, fetch),
                      scorecard_pb2.Backend(name=name, official=True,
                                            parity=trust.not_verified()))


_CONSISTENCY_BACKEND = scorecard_pb2.Backend(
    name="consistency_3d: OpenCV SIFT(40000) / FLANN / RANSAC(3 px) at 1280x720, seeded",
    official=True, digest_pinned=True,
    implementation="benchmarks/mirabench/consistency_3d.py (weight-free)",
    note="the official pipeline, five values computed once per pair (upstream runs it five "
         "times); OpenCV's RNG seeded per pair (upstream is not reproducible run to run: "
         "FLANN's randomised trees draw random numbers)",
    parity=trust.not_verified(
        "the official EvaluateErrBetweenTwoImage is itself random run to run; its spread on "
        f"synthetic parallax frames is in {CALIBRATION_3D}"))


def _prepare_consistency(config):
    seeds = [config.consistency_3d_seed + k for k in range(config.consistency_3d_repeats)]

    def compute(ctx) -> family_lib.FamilyResult:
        frames = list(ctx.frames)
        try:
            runs = [consistency_3d.video_values(frames, seed) for seed in seeds]
        except consistency_3d.PairFailed as e:
            why = card_lib.OFFICIAL_GAP + f"a frame pair failed ({e}); the official value is None"
            return family_lib.FamilyResult({}, {m: why for m in consistency_3d.COLUMNS})
        first = runs[0]
        if not first.pairs:
            why = (card_lib.OFFICIAL_GAP + f"no frame pair for {len(frames)} frames (needs "
                   "at least 15); the official value is NaN (an empty cell)")
            return family_lib.FamilyResult({}, {m: why for m in consistency_3d.COLUMNS})
        columns = dict(first.values)
        if len(runs) > 1:
            for run in runs:
                columns.update({f"seed{run.seed}:{k}": v for k, v in run.values.items()})
        return family_lib.FamilyResult(columns)

    return compute, ()


_TINY_CHECKED = ("the full-size official architecture loading the official file format; the "
                 "family equals its benchmarks/mirabench/model_metrics compute(), checked on "
                 "tiny random weights (model_metrics_test.py, model_families_test.py); never "
                 "run on the real weights here, no parity row. ")


def _model_backend(name, implementation, checked, note) -> scorecard_pb2.Backend:
    return scorecard_pb2.Backend(name=name, official=True, implementation=implementation,
                                 note=note, parity=trust.not_verified(_TINY_CHECKED + checked))


def _resolve_all(config, specs, metric_id):
    """(paths, refs) of `specs`; CheckpointUnavailable with its fetch command if one is absent."""
    found = [checkpoint_refs.resolve(spec, config.common, metric_id) for spec in specs]
    return [f.path for f, _ in found], tuple(ref for _, ref in found)


def _device(config):
    from metrics import device as device_lib  # pylint: disable=import-outside-toplevel
    return device_lib.resolve_device(config.common.device)


def _per_video(metric_id, metric_compute, model):
    def compute(ctx) -> family_lib.FamilyResult:
        return family_lib.FamilyResult({metric_id: metric_compute(ctx.rgb(), model)})
    return compute


def _prepare_dino(config):
    """config.architectures["dino"] (a metrics.dino.vit.DinoConfig) is for tiny test files."""
    # pylint: disable=import-outside-toplevel
    from benchmarks.mirabench.model_metrics import temporal_dino_consistency as metric
    from metrics.dino import vit
    metric_id = "temporal_dino_consistency"
    (path,), refs = _resolve_all(config, ckpts.TEMPORAL_DINO_CONSISTENCY, metric_id)
    arch = (getattr(config, "architectures", None) or {}).get("dino", vit.VIT_B16)
    return _per_video(metric_id, metric.compute, vit.load_dino(path, _device(config), arch)), refs


def _prepare_clip(config):
    # pylint: disable=import-outside-toplevel
    from benchmarks.mirabench.model_metrics import temporal_clip_consistency as metric
    from metrics.clip import vision
    metric_id = "temporal_clip_consistency"
    (folder,), refs = _resolve_all(config, ckpts.TEMPORAL_CLIP_CONSISTENCY, metric_id)
    tower = vision.load_clip_vision(folder, _device(config), activation=metric.ACTIVATION)
    return _per_video(metric_id, metric.compute, tower), refs


def _prepare_aesthetic(config):
    # pylint: disable=import-outside-toplevel
    from benchmarks.mirabench.model_metrics import aesthetic_quality as metric
    from metrics.clip import aesthetic
    metric_id = "aesthetic_quality"
    (folder, head), refs = _resolve_all(config, ckpts.AESTHETIC_QUALITY, metric_id)
    model = aesthetic.load_aesthetic_linear(folder, head, _device(config),
                                            activation=metric.ACTIVATION)
    return _per_video(metric_id, metric.compute, model), refs


def _prepare_raft(config):
    # pylint: disable=import-outside-toplevel
    from benchmarks.mirabench.model_metrics import dynamic_degree as metric
    from metrics.flow import raft_things
    metric_id = "dynamic_degree"
    (path,), refs = _resolve_all(config, ckpts.DYNAMIC_DEGREE, metric_id)
    return _per_video(metric_id, metric.compute,
                      raft_things.load_raft_things(path, _device(config))), refs


def _prepare_amt(config):
    """AMT-S at the official memory rule's scale on the run's device (1 on CPU)."""
    # pylint: disable=import-outside-toplevel
    from benchmarks.mirabench.model_metrics import temporal_motion_smoothness as metric
    from metrics.frame_interpolation import amt
    metric_id = "temporal_motion_smoothness"
    (path,), refs = _resolve_all(config, ckpts.MOTION_SMOOTHNESS, metric_id)
    device = _device(config)
    model = amt.load_amt_s(path, device)

    def compute(frames, loaded):
        return metric.compute(frames, loaded, scale=None, device=device)

    return _per_video(metric_id, compute, model), refs


_AMT_BACKEND = _model_backend(
    "amt_s", "metrics/frame_interpolation/amt.py (our AMT-S, official keys, cfgs/AMT-S.yaml)",
    "Scratch run: upstream MCG-NKU/AMT @ 70f988fb AMT-S on seeded random weights, max "
    "|imgt_pred diff| 0.0 at 128x192 (scale 1) and 256x320 (scales 1 and 0.5); the numbers "
    "are metrics/frame_interpolation/testdata/amt_s_parity.json, checked by amt_test.py",
    "scale: the official memory rule (smoothness.memory_scale): 1 on CPU and on a GPU large "
    "enough for the clip, else 1/floor(16/sqrt(s))*16; frames padded to int(16/scale); "
    "needs 128 px per side after the scale (upstream gives NaN below)")


def _prepare_musiq(config):
    """config.architectures["musiq"] (a metrics.iqa.musiq.MusiqConfig) is for tiny test files."""
    # pylint: disable=import-outside-toplevel
    from benchmarks.mirabench.model_metrics import imaging_quality as metric
    from metrics.iqa import musiq
    metric_id = "imaging_quality"
    (path,), refs = _resolve_all(config, ckpts.IMAGING_QUALITY, metric_id)
    arch = (getattr(config, "architectures", None) or {}).get("musiq", musiq.SPAQ)
    model = musiq.load_musiq(path, _device(config), arch)
    return _per_video(metric_id, metric.compute, model), refs


_MUSIQ_PARITY = "metrics/iqa/testdata/musiq_parity.json"


def _prepare_viclip(config):
    """config.architectures["viclip"] (a metrics.viclip.model.ViClipConfig) is for tiny files."""
    # pylint: disable=import-outside-toplevel
    from benchmarks.mirabench import sample
    from benchmarks.mirabench.model_metrics import text_video_alignment as metric
    from metrics.viclip import loader
    from metrics.viclip import model as viclip_model
    from metrics.viclip import tokenizer as viclip_tokenizer
    (weights, bpe), refs = _resolve_all(config, ckpts.TEXT_VIDEO_ALIGNMENT, metric.METRIC_IDS[0])
    arch = (getattr(config, "architectures", None) or {}).get("viclip", viclip_model.VICLIP_L14)
    device = _device(config)
    scorer = metric.ViClipScorer(loader.load_viclip(weights, device, arch),
                                 viclip_tokenizer.load_tokenizer(str(bpe)), device)

    def compute(ctx) -> family_lib.FamilyResult:
        captions, unavailable = {}, {}
        for metric_id in metric.METRIC_IDS:
            text, why = _viclip_caption(ctx.row, sample.CAPTION_OF[metric_id])
            if text:
                captions[metric_id] = text
            elif why:
                unavailable[metric_id] = why
            # else no caption at all: sample.score records caption_problem as the reason
        return family_lib.FamilyResult(metric.compute(ctx.rgb(), captions, scorer), unavailable)

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


def _prepare_cotracker(config):
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
    model = cotracker2_loader.load_cotracker2_online(path, _device(config), arch)
    return _per_video(metric_id, metric.compute, model), refs


_COTRACKER_BACKEND = _model_backend(
    "cotracker2_online", "metrics/tracking/cotracker2 (our CoTracker2 and co-tracker's "
    "CoTrackerOnlinePredictor(window_len=8, v2=True) procedure, official keys)",
    "Scratch run: upstream facebookresearch/co-tracker @ 82e02e8 (main) CoTracker2 online on "
    "seeded random full-size weights, 14 frames at 96x128, grid 10, official chunking: max "
    "|track diff| 0.0 px in every call, same visibility flags; the numbers are "
    "metrics/tracking/cotracker2/testdata/calibration.json",
    "no torch.hub at run time: cotracker2.pth through the checkpoint resolver; 6 iterations at "
    "384x512; the official mean over the concatenated cumulative histories (visibility "
    "ignored); a clip of at most 4 frames has no value (upstream fails on it)")


def _specs() -> List[FamilySpec]:
    ids = metric_specs.TABLE.of_family
    return [
        FamilySpec("dino_temporal", ids("dino_temporal"), _prepare_dino, _model_backend(
            "dino_vitb16", "metrics/dino/vit.py (timm ViT-B/16, DINO's token preparation)",
            "Scratch run: full-size official DINO module on random weights, max |diff| 1.8e-7 "
            "(metrics/dino/vit_test.py docstring)", "DINO ViT-B/16 (v1) class tokens")),
        FamilySpec("clip_temporal", ids("clip_temporal"), _prepare_clip, _model_backend(
            "clip_vit_b32_quick_gelu", "metrics/clip/vision.py (transformers CLIP tower, "
            "QuickGELU)", "The tower is the transformers conversion of the OpenAI weights "
            "(metrics/clip/vision.py docstring); no scratch run against clip.load recorded",
            "float32 (clip.load gives fp16 on CUDA)")),
        FamilySpec("amt_smoothness", ids("amt_smoothness"), _prepare_amt, _AMT_BACKEND),
        FamilySpec("raft_dynamic", ids("raft_dynamic"), _prepare_raft, _model_backend(
            "raft_things", "metrics/flow/raft_things.py (torchvision raft_large, official "
            "keys renamed)", "Scratch run: full-size official RAFT on random weights, 20 "
            "iterations, max |flow diff| 0.0 (metrics/flow/raft_things_test.py docstring)",
            "20 iterations on InputPadder-padded frames at native size; torchvision refuses "
            "padded frames under 128 x 128")),
        FamilySpec("cotracker_strength", ids("cotracker_strength"), _prepare_cotracker,
                   _COTRACKER_BACKEND),
        FamilySpec("consistency_3d", consistency_3d.COLUMNS, _prepare_consistency,
                   _CONSISTENCY_BACKEND),
        FamilySpec("laion_aesthetic", ids("laion_aesthetic"), _prepare_aesthetic,
                   _model_backend(
                       "clip_vit_l14_quick_gelu+laion_linear_v1",
                       "metrics/clip/aesthetic.py (transformers CLIP ViT-L/14, QuickGELU, "
                       "LAION nn.Linear(768, 1))",
                       "The tower is the transformers conversion of the OpenAI weights "
                       "(metrics/clip/vision.py docstring); no scratch run against clip.load "
                       "recorded", "float32 (clip.load gives fp16 on CUDA, head cast to it)")),
        FamilySpec("musiq", ids("musiq"), _prepare_musiq, _model_backend(
            "musiq_spaq", "metrics/iqa/musiq.py (worldeval's MUSIQ, not the pyiqa package: "
            "pyiqa's parameter names, its checkpoint loads unchanged, strict)",
            "Scratch run: full-size pyiqa 0.1.16 MUSIQ behind MiraData's 'longer' transform on "
            f"seeded random weights, 5 synthetic frames, max |score diff| 0.0 ({_MUSIQ_PARITY}, "
            "re-checked by metrics/iqa/musiq_test.py)",
            "Resize without antialias (torchvision 0.13.1, the README's pin; >= 0.17 "
            "antialiases and moves scores by 0.1-2 points); 4 frames per call (upstream 1)")),
        FamilySpec("viclip", ids("viclip"), _prepare_viclip, _model_backend(
            "viclip_internvid_10m_flt", "metrics/viclip/model.py (own ViCLIP-L/14 module, "
            "official keys, strict load) + metrics/viclip/tokenizer.py (transformers "
            "CLIPTokenizer over bpe_simple_vocab_16e6.txt.gz)", "Scratch run: full-size "
            "official ViCLIP modules (Miradata 7ad0579) on random weights, loaded through our "
            "loader (metrics/viclip/testdata/viclip_parity.json)",
            "8 middle frames of the runner's OpenCV decode (official: decord; same pixels, "
            "metrics/viclip/testdata/decord_decode.json), tensor bicubic resize without "
            "antialias, 32-token context; no ftfy text repair")),
    ]


SPECS = tuple(_specs())
BY_METRIC: Dict[str, FamilySpec] = {m: s for s in SPECS for m in s.metric_ids}


def prepare(config, metric_ids) -> family_lib.Prepared:
    """The per-video families of the selected metrics, and why each other one is not."""
    families, unavailable = [], {}
    for spec in SPECS:
        wanted = [m for m in spec.metric_ids if m in metric_ids]
        if not wanted:
            continue
        try:
            compute, refs = spec.prepare(config)
        except (family_lib.FamilyUnavailable, resolver.CheckpointUnavailable, OSError,
                ValueError) as e:
            unavailable.update({m: (str(e), spec.backend) for m in wanted})
            continue
        families.append(family_lib.FunctionFamily(spec.name, spec.metric_ids, compute,
                                                  spec.backend, refs))
    return family_lib.Prepared(families, unavailable)
