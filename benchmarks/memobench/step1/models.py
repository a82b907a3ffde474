"""Step 1 families on model backbones: ObjIdentityConsistency (DINOv2 ViT-B/14),
Geo3DConsistency (Depth Anything V2 Small), VisualQuality (the LAION aesthetic predictor
on CLIP ViT-L/14 and CLIP-IQA+ on CLIP RN50) and GTRevisitSim (CLIP ViT-B/32). Each
builder resolves its checkpoints, or raises CheckpointUnavailable, and holds its model as a
benchmarks/common/model_recipe (loaded once per process where compute runs: at prepare
time in a local run, by each Ray actor on its own device otherwise).

The per-frame models (DINOv2, Depth Anything, and VisualQuality's aesthetic tower and
CLIP-IQA+: each frame through the network alone) also give `frame_calls(sample_step)`:
with --sample_batch the frames of several clips share their calls (evaluate.py's stage)
and each family reduces its clip's rows from `ctx.shared`, as alone.
"""

from benchmarks.common import calibration
from benchmarks.common import checkpoint_refs
from benchmarks.common import model_recipe
from benchmarks.common import sample_batch
from benchmarks.memobench.step1 import family
from benchmarks.memobench.step1 import visual_quality as vq
from metrics.video import sampling
from proto import scorecard_pb2

AESTHETIC_FRAMES = "AestheticScore:frame_scores"  # the shared rows' names (ctx.shared)
IQA_FRAMES = "ImageQuality:frame_scores"
DINO_TOKENS = "ObjIdentityConsistency:patch_tokens"
DEPTH_MAPS = "Geo3DConsistency:depth_maps"


_TINY = ("against numpy/reference transcriptions on tiny random weights of the official "
         "architecture, loaded through the real loader")


def _backend(name: str, checkpoint: str, note: str = "",
             implementation: str = "") -> scorecard_pb2.Backend:
    return scorecard_pb2.Backend(name=name, official=True, checkpoint_id=checkpoint, note=note,
                                 implementation=implementation,
                                 parity=calibration.parity(name, otherwise=_TINY))


def _phase_frames(select):
    """loaded clip -> its frames select(h, r, N) (ValueError when it has no phases)."""
    def frames(loaded):
        from benchmarks.memobench import clip_eval  # pylint: disable=import-outside-toplevel
        h, r = clip_eval.keyframes_of(loaded)
        return [loaded.frames[i] for i in select(h, r, len(loaded.frames))]
    return frames


def object_identity(settings) -> family.Family:
    from benchmarks.memobench.step1 import model_formulas  # pylint: disable=import-outside-toplevel
    from metrics.dinov2 import backbone  # pylint: disable=import-outside-toplevel
    found, ref = checkpoint_refs.resolve(backbone.DINOV2_BASE, settings,
                                           "ObjIdentityConsistency")
    model = model_recipe.prepared(lambda device: backbone.load_dinov2(found.path, device),
                                  settings.device, "dinov2")

    def compute(ctx):
        mean, minimum = model_formulas.obj_identity(ctx.frames, ctx.r, model.get(),
                                                    model.device(), ctx.shared.get(DINO_TOKENS))
        return family.FamilyResult({"ObjIdentityMean": mean, "ObjIdentityMin": minimum})

    call = sample_batch.FrameCall(  # every frame is resized and cropped to 224: any sizes
        DINO_TOKENS, _phase_frames(lambda h, r, n: model_formulas.obj_identity_frames(r, n)),
        lambda frames: backbone.patch_tokens(model.get(), frames, model.device()).cpu().numpy())
    return family.FunctionFamily(
        "object_identity", ("ObjIdentityConsistency",), compute,
        _backend("dinov2-vitb14", "facebook/dinov2-base",
                 "transformers Dinov2Model with torch.hub's position-embedding interpolation; "
                 "official: torch.hub facebookresearch/dinov2 dinov2_vitb14"), (ref,),
        frame_calls=lambda step: [call])


def geo3d(settings) -> family.Family:
    from benchmarks.memobench.step1 import model_formulas  # pylint: disable=import-outside-toplevel
    from metrics.depth import depth_anything  # pylint: disable=import-outside-toplevel
    found, ref = checkpoint_refs.resolve(depth_anything.DEPTH_ANYTHING_V2_SMALL, settings,
                                           "Geo3DConsistency")
    loaded = model_recipe.prepared(
        lambda device: depth_anything.load_depth_anything(found.path, device),
        settings.device, "depth_anything")

    def compute(ctx):
        model, processor = loaded.get()
        mean, minimum = model_formulas.geo_consistency(ctx.frames, ctx.h, ctx.r, model,
                                                       processor, loaded.device(),
                                                       ctx.shared.get(DEPTH_MAPS))
        return family.FamilyResult({"GeoConsistencyMean": mean, "GeoConsistencyMin": minimum})

    def depths(frames):
        return [depth.cpu().numpy()
                for depth in depth_anything.depth_maps(*loaded.get(), frames, loaded.device())]

    call = sample_batch.FrameCall(  # the map's size follows the frame's: one size per call
        DEPTH_MAPS, _phase_frames(model_formulas.geo_frames), depths, sample_batch.frame_shape)
    return family.FunctionFamily(
        "geo3d", ("Geo3DConsistency",), compute,
        _backend("depth-anything-v2-small", "depth-anything/Depth-Anything-V2-Small-hf"),
        (ref,), frame_calls=lambda step: [call])


_AESTHETIC_BACKEND = _backend(
    "laion-aesthetic-clip-vit-l14", "openai/clip-vit-large-patch14 + "
    "sac+logos+ava1-l14-linearMSE.pth",
    "transformers CLIP with open_clip's OpenAI preprocessing reproduced; GELU activation as "
    "current open_clip builds ViT-L-14/'openai' (older open_clip used QuickGELU for these "
    "weights: the official number depends on the open_clip version, which MemoBench does not "
    "pin)")
_VISUAL_QUALITY_BACKEND = _backend(
    "laion-aesthetic-clip-vit-l14 + clipiqa+-rn50",
    "openai/clip-vit-large-patch14 + sac+logos+ava1-l14-linearMSE.pth; RN50.pt (OpenAI) + "
    "CLIP-IQA+_learned_prompts-603f3273.pth (pyiqa)",
    "mean of AestheticScore_pct and ImageQuality_pct. AestheticScore: see its backend (GELU vs "
    "QuickGELU depends on the open_clip version). ImageQuality: pyiqa's clipiqa+, its CLIP RN50 "
    "tower open_clip's (open-clip-torch 3.3.0: OpenAI's ModifiedResNet and text transformer, "
    "weights float16-rounded as pyiqa's loader leaves them; metrics/clip/openai_clip.py) and "
    "CLIP-IQA+'s prompts and head worldeval's (metrics/clip/clipiqa.py: learned context "
    "spliced around 'good/bad photo ..', no positional embedding in the attention pool, "
    "frames at their 640-max size), compared "
    "with pyiqa 0.1.16 on identical random weights (see parity), not on the real weights. "
    "pyiqa's code for clipiqa+ is the same across the versions "
    "read (it moved the prompts file from a GitHub release to Hugging Face, same name); on GPU, "
    "torch's default TF32 convolutions apply to both")


def _aesthetic_checkpoints(settings, metric_id):
    from metrics.clip import aesthetic as aesthetic_lib  # pylint: disable=import-outside-toplevel
    return [checkpoint_refs.resolve(spec, settings, metric_id)
            for spec in (aesthetic_lib.CLIP_VIT_L14, aesthetic_lib.AESTHETIC_HEAD)]


def aesthetic(settings) -> family.Family:
    """AestheticScore alone (built when VisualQuality is not selected or cannot be had)."""
    from metrics.clip import aesthetic as aesthetic_lib  # pylint: disable=import-outside-toplevel
    (tower, tower_ref), (head, head_ref) = _aesthetic_checkpoints(settings, "AestheticScore")
    model = model_recipe.prepared(
        lambda device: aesthetic_lib.load_aesthetic(tower.path, head.path, device),
        settings.device, "aesthetic")

    def compute(ctx):
        return family.FamilyResult({"AestheticScore": _aesthetic_score(ctx, model)})

    return family.FunctionFamily("aesthetic", ("AestheticScore",), compute, _AESTHETIC_BACKEND,
                                 (tower_ref, head_ref),
                                 frame_calls=lambda step: [_aesthetic_call(model, step)])


def _strided_frames(sample_step: int):
    """loaded clip -> its frames iter_indices(0, N-1, sample_step), as visual_quality samples."""
    def frames(loaded):
        n = len(loaded.frames)
        return [loaded.frames[i] for i in sampling.iter_indices(0, n - 1, sample_step, n)]
    return frames


def _aesthetic_call(model, sample_step: int) -> sample_batch.FrameCall:
    from metrics.clip import aesthetic as aesthetic_lib  # pylint: disable=import-outside-toplevel
    return sample_batch.FrameCall(  # CLIP resizes every frame to 224: any sizes share a call
        AESTHETIC_FRAMES, _strided_frames(sample_step),
        lambda frames: aesthetic_lib.frame_scores(frames, model.get(), model.device()))


def _iqa_call(model, sample_step: int) -> sample_batch.FrameCall:
    from metrics.clip import clipiqa  # pylint: disable=import-outside-toplevel
    return sample_batch.FrameCall(  # frames_to_pixels stacks frames at their own size
        IQA_FRAMES, _strided_frames(sample_step),
        lambda frames: clipiqa.frame_scores(frames, model.get()), sample_batch.frame_shape)


def _aesthetic_score(ctx, model) -> float:
    scores = ctx.shared.get(AESTHETIC_FRAMES)
    if scores is None:
        return vq.aesthetic_score(ctx.frames, ctx.sample_step, model.get(), model.device()).score
    return vq.clip_mean(scores)


def _image_quality(ctx, model) -> float:
    scores = ctx.shared.get(IQA_FRAMES)
    if scores is None:
        return vq.image_quality(ctx.frames, ctx.sample_step, model.get()).score
    return vq.clip_mean(scores, clip_to_unit=True)


class _VisualQualityFamily(family.FunctionFamily):
    """VisualQuality's two halves; AestheticScore keeps its own backend."""

    def backend_for(self, metric_id: str) -> scorecard_pb2.Backend:
        return _AESTHETIC_BACKEND if metric_id == "AestheticScore" else self.backend

    def checkpoints_for(self, metric_id: str):
        # The aesthetic half loads the CLIP ViT-L/14 tower and the LAION head.
        return tuple(self.checkpoints[:2] if metric_id == "AestheticScore" else self.checkpoints)


def visual_quality(settings) -> family.Family:
    """AestheticScore and ImageQuality (CLIP-IQA+), the eval-CSV columns VisualQuality
    averages; every checkpoint is resolved before any model loads."""
    from metrics.clip import aesthetic as aesthetic_lib  # pylint: disable=import-outside-toplevel
    from metrics.clip import clipiqa  # pylint: disable=import-outside-toplevel
    (tower, tower_ref), (head, head_ref) = _aesthetic_checkpoints(settings, "VisualQuality")
    rn50, rn50_ref = checkpoint_refs.resolve(clipiqa.CLIP_RN50, settings, "VisualQuality")
    prompts, prompts_ref = checkpoint_refs.resolve(clipiqa.CLIPIQA_PLUS_PROMPTS, settings,
                                                     "VisualQuality")
    aesthetic_model = model_recipe.prepared(
        lambda device: aesthetic_lib.load_aesthetic(tower.path, head.path, device),
        settings.device, "aesthetic")
    iqa_model = model_recipe.prepared(
        lambda device: clipiqa.load_clipiqa(rn50.path, prompts.path, device),
        settings.device, "clipiqa+")

    def compute(ctx):
        return family.FamilyResult({"AestheticScore": _aesthetic_score(ctx, aesthetic_model),
                                    "ImageQuality": _image_quality(ctx, iqa_model)})

    return _VisualQualityFamily(
        "visual_quality", ("VisualQuality", "AestheticScore"), compute, _VISUAL_QUALITY_BACKEND,
        (tower_ref, head_ref, rn50_ref, prompts_ref),
        frame_calls=lambda step: [_aesthetic_call(aesthetic_model, step),
                                  _iqa_call(iqa_model, step)])


def gt_revisit(settings) -> family.Family:
    from benchmarks.memobench.step1 import gt_revisit as revisit  # pylint: disable=import-outside-toplevel
    from metrics.clip import frame_similarity, vision  # pylint: disable=import-outside-toplevel
    found, ref = checkpoint_refs.resolve(frame_similarity.CLIP_VIT_B32, settings,
                                           "GTRevisitSim")
    encoder = model_recipe.prepared(lambda device: vision.load_clip_vision(found.path, device),
                                    settings.device, "clip_vit_b32")

    def compute(ctx):
        value = revisit.gt_revisit_similarity(ctx.frames, ctx.reference.frames_at, ctx.r,
                                              ctx.gt.r_gt, ctx.gt.gt_total, encoder.get(),
                                              encoder.device())
        return family.FamilyResult({"GTRevisitSim": value})

    return family.FunctionFamily(
        "gt_revisit", ("GTRevisitSim",), compute,
        _backend("clip-vit-b32", "openai/clip-vit-base-patch32",
                 "GELU activation as current open_clip builds ViT-B-32/'openai' (see "
                 "AestheticScore's note)"), (ref,))
