"""VBench's families: one per official network (and the weight-free temporal
flickering), each computing the dimensions of its table family on one video.

A family's compute runs, for each of its dimensions that the video's prompt entries list,
that dimension's `compute(video, model)` (benchmarks/vbench/dimensions/, motion/) and
stores the value in the row (dimension.columns / diagnostics), with the dimension's time
under diagnostics `seconds:vbench/<dimension>` and its peak memory (benchmarks/common/
peak_memory.py: the process's RSS, and CUDA's allocated bytes when a model runs there)
under `peak_host_mib:vbench/<dimension>` and `peak_device_mib:vbench/<dimension>`. Models are benchmarks/common/model_recipe
recipes: loaded once per process where compute runs; the CLIP ViT-B/32 image tower is
one recipe for background_consistency and appearance_style. `config.architectures`
(tests only) swaps in tiny architectures for tiny checkpoint files.
"""

import functools
import time
from typing import Callable, Dict, Sequence

from benchmarks.common import calibration
from benchmarks.common import checkpoint_refs
from benchmarks.common import family as family_lib
from benchmarks.common import model_recipe
from benchmarks.common import peak_memory
from benchmarks.common import sample_loop
from benchmarks.common import trust
from benchmarks.vbench import checkpoints as ckpts
from benchmarks.vbench import dimension
from benchmarks.vbench import metric_specs
from proto import scorecard_pb2

SECONDS_KEY = sample_loop.SECONDS + "vbench/"  # timings: set aside by every comparison
PEAK_HOST_KEY = sample_loop.PEAK_HOST_MIB + "vbench/"  # peak memory per dimension, likewise
PEAK_DEVICE_KEY = sample_loop.PEAK_DEVICE_MIB + "vbench/"
_TINY_CHECKED = ("the official architecture loading the official file format; the "
                 "dimension's arithmetic is checked against a transcription of the official "
                 "code on tiny random weights (benchmarks/vbench/dimensions, motion); never "
                 "run on the real weights here. ")


def _backend(name, implementation, note, checked="", parity=None) -> scorecard_pb2.Backend:
    return scorecard_pb2.Backend(
        name=name, official=True, implementation=implementation, note=note,
        parity=parity if parity is not None else trust.not_verified(_TINY_CHECKED + checked))


def _family(name: str, dims: Sequence[str], fns: Dict[str, Callable], backend, refs
            ) -> family_lib.FunctionFamily:
    """A family computing `fns[d](video)` for each of `dims` the video's entries list."""
    def compute(ctx) -> family_lib.FamilyResult:
        columns, diagnostics = {}, {}
        for dim in dims:
            if dim not in ctx.item.dimensions:
                continue
            start = time.perf_counter()
            with peak_memory.Measure() as peak:
                value = fns[dim](ctx.video(dim))
            diagnostics[SECONDS_KEY + dim] = f"{time.perf_counter() - start:.4f}"
            columns.update(dimension.columns(dim, value))
            diagnostics.update(dimension.diagnostics(dim, value))
            for key, measured in ((PEAK_HOST_KEY, peak.host_bytes),
                                  (PEAK_DEVICE_KEY, peak.device_bytes)):
                if measured is not None:
                    diagnostics[key + dim] = peak_memory.mib(measured)
        return family_lib.FamilyResult(columns, diagnostics=diagnostics)
    return family_lib.FunctionFamily(name, tuple(dims), compute, backend, refs)


def _recipe(config, build, name) -> model_recipe.ModelRecipe:
    return model_recipe.prepared(build, config.common.device, name)


def _arch(config, key, default):
    return (getattr(config, "architectures", None) or {}).get(key, default)


# --- one build per family: (config, wanted) -> Family -------------------------------

def _flickering(config, wanted):
    del config
    # pylint: disable=import-outside-toplevel
    from benchmarks.vbench.motion import temporal_flickering
    return _family("flickering", wanted, {"temporal_flickering": temporal_flickering.compute},
                   FLICKERING_BACKEND, ())


def _dino(config, wanted):
    # pylint: disable=import-outside-toplevel
    from benchmarks.vbench.dimensions import subject_consistency
    from metrics.dino import vit
    (path,), refs = checkpoint_refs.resolve_all(ckpts.SUBJECT_CONSISTENCY, config.common,
                                                "subject_consistency")
    arch = _arch(config, "dino", vit.VIT_B16)
    model = _recipe(config, lambda device: vit.load_dino(path, device, arch),
                    "subject_consistency")
    return _family("dino_subject", wanted, {
        "subject_consistency": lambda v: subject_consistency.compute(v, model.get())},
        DINO_BACKEND, refs)


@functools.lru_cache(maxsize=4)
def _clip_b32_tower(folder: str, device: str) -> model_recipe.ModelRecipe:
    """The one CLIP ViT-B/32 image tower of a run (background and appearance share it)."""
    # pylint: disable=import-outside-toplevel
    from benchmarks.vbench.dimensions import background_consistency
    from metrics.clip import vision
    return model_recipe.prepared(lambda d: vision.load_clip_vision(
        folder, d, activation=background_consistency.ACTIVATION), device, "clip_vit_b32")


def _clip_background(config, wanted):
    # pylint: disable=import-outside-toplevel
    from benchmarks.vbench.dimensions import background_consistency
    (folder,), refs = checkpoint_refs.resolve_all(ckpts.BACKGROUND_CONSISTENCY,
                                                  config.common, "background_consistency")
    tower = _clip_b32_tower(str(folder), config.common.device)
    return _family("clip_background", wanted, {
        "background_consistency": lambda v: background_consistency.compute(v, tower.get())},
        CLIP_BACKGROUND_BACKEND, refs)


def _clip_style(config, wanted):
    # pylint: disable=import-outside-toplevel
    from benchmarks.vbench.dimensions import appearance_style
    from benchmarks.vbench.dimensions import clip_image_text
    (folder, bpe), refs = checkpoint_refs.resolve_all(ckpts.APPEARANCE_STYLE, config.common,
                                                      "appearance_style")
    tower = _clip_b32_tower(str(folder), config.common.device)
    model = _recipe(config, lambda device: clip_image_text.load_clip_image_text(
        folder, bpe, device, tower=tower.get()), "appearance_style")
    return _family("clip_style", wanted, {
        "appearance_style": lambda v: appearance_style.compute(v, model.get())},
        CLIP_STYLE_BACKEND, refs)


def _aesthetic(config, wanted):
    # pylint: disable=import-outside-toplevel
    from benchmarks.vbench.dimensions import aesthetic_quality
    from metrics.clip import aesthetic
    (folder, head), refs = checkpoint_refs.resolve_all(ckpts.AESTHETIC_QUALITY, config.common,
                                                       "aesthetic_quality")
    model = _recipe(config, lambda device: aesthetic.load_aesthetic_linear(
        folder, head, device, activation=aesthetic_quality.ACTIVATION), "aesthetic_quality")
    return _family("laion_aesthetic", wanted, {
        "aesthetic_quality": lambda v: aesthetic_quality.compute(v, model.get())},
        AESTHETIC_BACKEND, refs)


def _musiq(config, wanted):
    # pylint: disable=import-outside-toplevel
    from benchmarks.vbench.dimensions import imaging_quality
    from metrics.iqa import musiq
    (path,), refs = checkpoint_refs.resolve_all(ckpts.IMAGING_QUALITY, config.common,
                                                "imaging_quality")
    arch = _arch(config, "musiq", musiq.SPAQ)
    model = _recipe(config, lambda device: musiq.load_musiq(path, device, arch),
                    "imaging_quality")
    return _family("musiq", wanted, {
        "imaging_quality": lambda v: imaging_quality.compute(v, model.get())},
        MUSIQ_BACKEND, refs)


def _amt(config, wanted):
    # pylint: disable=import-outside-toplevel
    from benchmarks.vbench.motion import motion_smoothness
    from metrics.frame_interpolation import amt
    (path,), refs = checkpoint_refs.resolve_all(ckpts.MOTION_SMOOTHNESS, config.common,
                                                "motion_smoothness")
    model = _recipe(config, lambda device: amt.load_amt_s(path, device), "motion_smoothness")
    return _family("amt_smoothness", wanted, {
        "motion_smoothness": lambda v: motion_smoothness.compute(v, model.get())},
        AMT_BACKEND, refs)


def _raft(config, wanted):
    # pylint: disable=import-outside-toplevel
    from benchmarks.vbench.motion import dynamic_degree
    from metrics.flow import raft_things
    (path,), refs = checkpoint_refs.resolve_all(ckpts.DYNAMIC_DEGREE, config.common,
                                                "dynamic_degree")
    model = _recipe(config, lambda device: raft_things.load_raft_things(path, device),
                    "dynamic_degree")
    return _family("raft_dynamic", wanted, {
        "dynamic_degree": lambda v: dynamic_degree.compute(v, model.get())},
        RAFT_BACKEND, refs)


def _viclip(config, wanted):
    # pylint: disable=import-outside-toplevel
    from benchmarks.vbench.dimensions import viclip_cosine
    from metrics.viclip import loader
    from metrics.viclip import model as viclip_model
    from metrics.viclip import similarity
    from metrics.viclip import tokenizer as viclip_tokenizer
    (weights, bpe), refs = checkpoint_refs.resolve_all(ckpts.VICLIP, config.common,
                                                       wanted[0])
    arch = _arch(config, "viclip", viclip_model.VICLIP_L14)
    scorer = _recipe(config, lambda device: similarity.ViClipScorer(
        loader.load_viclip(weights, device, arch), viclip_tokenizer.load_tokenizer(str(bpe)),
        str(device)), wanted[0])
    def cosine(video):  # temporal_style and overall_consistency: only their prompts differ
        return viclip_cosine.compute(video, scorer.get())
    return _family("viclip", wanted, {"temporal_style": cosine, "overall_consistency": cosine},
                   VICLIP_BACKEND, refs)


FLICKERING_BACKEND = scorecard_pb2.Backend(
    name=metric_specs.BACKENDS["flickering"][0], official=True, digest_pinned=True,
    implementation="benchmarks/vbench/motion/temporal_flickering.py (weight-free)",
    note="every frame of the runner's OpenCV decode, BGR as cv2 reads it",
    parity=trust.verified(
        "//benchmarks/vbench/motion:temporal_flickering_test (recomputed in CI against "
        "benchmarks/vbench/motion/testdata/temporal_flickering_official.json, the official "
        "vbench/temporal_flickering.py at 45e79ec on 5 seeded mp4 clips)",
        "weight-free: every per-pair MAE and video value equal on those clips"))
DINO_BACKEND = _backend("dino_vitb16", "metrics/dino/vit.py (timm ViT-B/16, DINO's token "
                        "preparation)", "every frame, dino_transform(224): no crop",
                        parity=calibration.parity("dino_vitb16"))
CLIP_BACKGROUND_BACKEND = _backend(
    "clip_vit_b32_quick_gelu", "metrics/clip/vision.py (transformers CLIP tower, QuickGELU)",
    "float32 (clip.load gives fp16 on CUDA); every frame, clip_transform(224)",
    parity=calibration.parity("clip_vit_b32_quick_gelu"))
CLIP_STYLE_BACKEND = _backend(
    metric_specs.BACKENDS["clip_style"][0], "benchmarks/vbench/dimensions/clip_image_text.py "
    "(transformers CLIP image and text towers, QuickGELU; CLIP BPE tokenizer, 77 tokens)",
    "float32 (clip.load gives fp16 on CUDA); every frame as PIL, clip_transform_Image(224)",
    parity=calibration.parity(metric_specs.BACKENDS["clip_style"][0]))
AESTHETIC_BACKEND = _backend(
    "clip_vit_l14_quick_gelu+laion_linear_v1", "metrics/clip/aesthetic.py (transformers CLIP "
    "ViT-L/14, QuickGELU, LAION nn.Linear(768, 1))", "float32; batches of 32 frames",
    parity=calibration.parity("clip_vit_l14_quick_gelu+laion_linear_v1"))
MUSIQ_BACKEND = _backend(
    "musiq_spaq", "metrics/iqa/musiq.py (worldeval's MUSIQ with pyiqa's parameter names, "
    "strict)", "the 'longer' preprocessing (int() sizes, bilinear without antialias)",
    parity=calibration.parity("musiq_spaq"))
AMT_BACKEND = _backend(
    "amt_s", "metrics/frame_interpolation/amt.py (our AMT-S, official keys)",
    "scale 1 on every device (upstream's CUDA memory rule never applies: spec §5.2)",
    parity=calibration.parity("amt_s"))
RAFT_BACKEND = _backend(
    "raft_things", "metrics/flow/raft_things.py (torchvision raft_large, official keys)",
    "20 iterations on InputPadder-padded frames at native size, every round(fps/8)-th frame",
    parity=calibration.parity("raft_things"))
VICLIP_BACKEND = _backend(
    "viclip_internvid_10m_flt", "metrics/viclip/model.py (own ViCLIP-L/14, official keys, "
    "strict) + metrics/viclip/tokenizer.py", "8 middle frames, 32-token context",
    parity=calibration.parity("viclip_internvid_10m_flt"))

WIRINGS = (
    family_lib.Wiring("dino_subject", ("subject_consistency",), _dino, DINO_BACKEND),
    family_lib.Wiring("clip_background", ("background_consistency",), _clip_background,
                      CLIP_BACKGROUND_BACKEND),
    family_lib.Wiring("flickering", ("temporal_flickering",), _flickering, FLICKERING_BACKEND),
    family_lib.Wiring("amt_smoothness", ("motion_smoothness",), _amt, AMT_BACKEND),
    family_lib.Wiring("raft_dynamic", ("dynamic_degree",), _raft, RAFT_BACKEND),
    family_lib.Wiring("laion_aesthetic", ("aesthetic_quality",), _aesthetic,
                      AESTHETIC_BACKEND),
    family_lib.Wiring("musiq", ("imaging_quality",), _musiq, MUSIQ_BACKEND),
    family_lib.Wiring("clip_style", ("appearance_style",), _clip_style, CLIP_STYLE_BACKEND),
    family_lib.Wiring("viclip", ("temporal_style", "overall_consistency"), _viclip,
                      VICLIP_BACKEND),
)

NOT_IN_THIS_VERSION = ("not in this version: {dimension} needs {model}, which worldeval "
                       "does not run yet (VBench part 2)")
_PART_2_MODELS = {"grit": "GRiT-B (DenseCap + ObjectDet)", "umt": "UMT ViT-L/16 (K400)",
                  "tag2text": "Tag2Text Swin-B"}


def prepare(config, dimensions) -> family_lib.Prepared:
    """The families of the selected computable dimensions, and why each other one is not."""
    return family_lib.prepare(WIRINGS, config, dimensions, no_family={
        d: NOT_IN_THIS_VERSION.format(
            dimension=d, model=_PART_2_MODELS[metric_specs.BY_ID[d].family])
        for d in metric_specs.NOT_IN_THIS_VERSION})
