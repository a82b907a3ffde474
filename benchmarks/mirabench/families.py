"""MiraBench's metric families: which compute in this version, and why not the others.

Every family is a `family.Wiring` (benchmarks/common/family.py), built by `_function(
prepare, backend)` from a `prepare(config) -> (compute, checkpoint refs)` with
compute(ctx) -> FamilyResult a callable on one video's decoded frames, built once per run:
models are loaded once, checkpoints resolved with benchmarks/common/checkpoint_refs and
their refs go into the scorecard. `prepare` raises family.FamilyUnavailable (or
resolver.CheckpointUnavailable) with the reason and the fetch command when it cannot. The
model families' `prepare` functions are in model_families.py; the runner does not change.
Set-level families (fid/kid, fvd/kvd) are in set_metrics.py.
"""

from typing import Dict, List

from benchmarks.common import calibration
from benchmarks.common import family as family_lib
from benchmarks.common import scorecard as card_lib
from benchmarks.common import trust
from benchmarks.mirabench import consistency_3d
from benchmarks.mirabench import metric_specs
from benchmarks.mirabench import model_families as mf
from proto import scorecard_pb2

CALIBRATION_3D = "benchmarks/mirabench/calibration/consistency_3d_official.csv"


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


def _wiring(name, metric_ids, prepare, backend) -> family_lib.Wiring:
    """A family from `prepare(config) -> (compute, refs)` or, where a setting changes the
    backend, (compute, refs, backend)."""
    def build(config, wanted):
        del wanted  # one family fills all its keys
        compute, refs, *chosen = prepare(config)
        return family_lib.FunctionFamily(name, metric_ids, compute,
                                         chosen[0] if chosen else backend, refs)
    return family_lib.Wiring(name, tuple(metric_ids), build, backend)


def _specs() -> List[family_lib.Wiring]:
    ids = metric_specs.TABLE.of_family
    return [
        _wiring("dino_temporal", ids("dino_temporal"), mf.prepare_dino, mf.model_backend(
            "dino_vitb16", "metrics/dino/vit.py (timm ViT-B/16, DINO's token preparation)",
            "Scratch run: full-size official DINO module on random weights, max |diff| 1.8e-7 "
            "(metrics/dino/vit_test.py docstring)", "DINO ViT-B/16 (v1) class tokens")),
        _wiring("clip_temporal", ids("clip_temporal"), mf.prepare_clip, mf.model_backend(
            "clip_vit_b32_quick_gelu", "metrics/clip/vision.py (transformers CLIP tower, "
            "QuickGELU)", "The tower is the transformers conversion of the OpenAI weights "
            "(metrics/clip/vision.py docstring); no scratch run against clip.load recorded",
            "float32 (clip.load gives fp16 on CUDA)")),
        _wiring("amt_smoothness", ids("amt_smoothness"), mf.prepare_amt, mf.AMT_BACKEND),
        _wiring("raft_dynamic", ids("raft_dynamic"), mf.prepare_raft, mf.model_backend(
            "raft_things", "metrics/flow/raft_things.py (torchvision raft_large, official "
            "keys renamed)", "Scratch run: full-size official RAFT on random weights, 20 "
            "iterations, max |flow diff| 0.0 (metrics/flow/raft_things_test.py docstring)",
            "20 iterations on InputPadder-padded frames at native size; torchvision refuses "
            "padded frames under 128 x 128")),
        _wiring("cotracker_strength", ids("cotracker_strength"), mf.prepare_cotracker,
                   mf.COTRACKER_BACKEND),
        _wiring("consistency_3d", consistency_3d.COLUMNS, _prepare_consistency,
                   _CONSISTENCY_BACKEND),
        _wiring("laion_aesthetic", ids("laion_aesthetic"), mf.prepare_aesthetic,
                   mf.model_backend(
                       "clip_vit_l14_quick_gelu+laion_linear_v1",
                       "metrics/clip/aesthetic.py (transformers CLIP ViT-L/14, QuickGELU, "
                       "LAION nn.Linear(768, 1))",
                       "The tower is the transformers conversion of the OpenAI weights "
                       "(metrics/clip/vision.py docstring); no scratch run against clip.load "
                       "recorded", "float32 (clip.load gives fp16 on CUDA, head cast to it)")),
        _wiring("musiq", ids("musiq"), mf.prepare_musiq, mf.model_backend(
            "musiq_spaq", "metrics/iqa/musiq.py (worldeval's MUSIQ, not the pyiqa package: "
            "pyiqa's parameter names, its checkpoint loads unchanged, strict)",
            "Scratch run: full-size pyiqa 0.1.16 MUSIQ behind MiraData's 'longer' transform on "
            f"seeded random weights, 5 synthetic frames, max |score diff| 0.0 ({mf.MUSIQ_PARITY}, "
            "re-checked by metrics/iqa/musiq_test.py)",
            "Resize without antialias (torchvision 0.13.1, the README's pin; >= 0.17 "
            "antialiases and moves scores by 0.1-2 points); 4 frames per call (upstream 1)")),
        _wiring("viclip", ids("viclip"), mf.prepare_viclip, mf.model_backend(
            "viclip_internvid_10m_flt", "metrics/viclip/model.py (own ViCLIP-L/14 module, "
            "official keys, strict load) + metrics/viclip/tokenizer.py (transformers "
            "CLIPTokenizer over bpe_simple_vocab_16e6.txt.gz, ftfy clean-up)", "",
            "8 middle frames of the runner's OpenCV decode (official: decord; same pixels, "
            "checked live by //tools/calibration:decode_parity_test), tensor bicubic resize "
            "without antialias, 32-token context",
            parity=calibration.parity("viclip_internvid_10m_flt"))),
    ]


SPECS = tuple(_specs())
BY_METRIC: Dict[str, family_lib.Wiring] = {m: s for s in SPECS for m in s.metric_ids}


def prepare(config, metric_ids) -> family_lib.Prepared:
    """The per-video families of the selected metrics, and why each other one is not."""
    per_video = [m for m in metric_ids if m in BY_METRIC]
    return family_lib.prepare(SPECS, config, per_video)
