"""Step 1 families on Hugging Face backbones: ObjIdentityConsistency (DINOv2 ViT-B/14),
Geo3DConsistency (Depth Anything V2 Small), the LAION aesthetic half of VisualQuality
(CLIP ViT-L/14) and GTRevisitSim (CLIP ViT-B/32). Each builder resolves its checkpoints
and loads its model once, or raises CheckpointUnavailable.
"""

from benchmarks.memobench.step1 import checkpoints as step1_checkpoints
from benchmarks.memobench.step1 import family
from metrics.video import frames as frames_lib
from proto import scorecard_pb2


def _backend(name: str, checkpoint: str, note: str = "") -> scorecard_pb2.Backend:
    return scorecard_pb2.Backend(name=name, official=True, checkpoint_id=checkpoint, note=note)


def object_identity(settings, device) -> family.Family:
    from metrics.dinov2 import backbone, identity  # pylint: disable=import-outside-toplevel
    found, ref = step1_checkpoints.resolve(backbone.DINOV2_BASE, settings,
                                           "ObjIdentityConsistency")
    model = backbone.load_dinov2(found.path, device)

    def compute(ctx):
        mean, minimum = identity.object_identity(ctx.frames, ctx.r, model, device)
        return family.FamilyResult({"ObjIdentityMean": mean, "ObjIdentityMin": minimum})

    return family.FunctionFamily(
        "object_identity", ("ObjIdentityConsistency",), compute,
        _backend("dinov2-vitb14", "facebook/dinov2-base",
                 "transformers Dinov2Model with torch.hub's position-embedding interpolation; "
                 "official: torch.hub facebookresearch/dinov2 dinov2_vitb14"), (ref,))


def geo3d(settings, device) -> family.Family:
    from metrics.depth import depth_anything, geo_consistency  # pylint: disable=import-outside-toplevel
    found, ref = step1_checkpoints.resolve(depth_anything.DEPTH_ANYTHING_V2_SMALL, settings,
                                           "Geo3DConsistency")
    model, processor = depth_anything.load_depth_anything(found.path, device)

    def compute(ctx):
        mean, minimum = geo_consistency.geo_consistency(ctx.frames, ctx.h, ctx.r, model,
                                                        processor, device)
        return family.FamilyResult({"GeoConsistencyMean": mean, "GeoConsistencyMin": minimum})

    return family.FunctionFamily(
        "geo3d", ("Geo3DConsistency",), compute,
        _backend("depth-anything-v2-small", "depth-anything/Depth-Anything-V2-Small-hf"),
        (ref,))


def aesthetic(settings, device) -> family.Family:
    """Only the AestheticScore column: VisualQuality also needs CLIP-IQA+ (not built yet)."""
    from metrics.clip import aesthetic as aesthetic_lib  # pylint: disable=import-outside-toplevel
    tower, tower_ref = step1_checkpoints.resolve(aesthetic_lib.CLIP_VIT_L14, settings,
                                                 "AestheticScore")
    head, head_ref = step1_checkpoints.resolve(aesthetic_lib.AESTHETIC_HEAD, settings,
                                               "AestheticScore")
    model = aesthetic_lib.load_aesthetic(tower.path, head.path, device)

    def compute(ctx):
        score = aesthetic_lib.aesthetic_score(ctx.frames, ctx.sample_step, model, device)
        return family.FamilyResult({"AestheticScore": score})

    return family.FunctionFamily(
        "aesthetic", ("AestheticScore",), compute,
        _backend("laion-aesthetic-clip-vit-l14", "openai/clip-vit-large-patch14 + "
                 "sac+logos+ava1-l14-linearMSE.pth",
                 "transformers CLIP with open_clip's OpenAI preprocessing reproduced; GELU "
                 "activation as current open_clip builds ViT-L-14/'openai' (older open_clip "
                 "used QuickGELU for these weights: the official number depends on the "
                 "open_clip version, which MemoBench does not pin)"),
        (tower_ref, head_ref))


def _gt_frames_at(source):
    def frames_at(indices):
        if source.is_dir():
            files = frames_lib.list_frame_files(source)
            return [frames_lib.read_image(files[i]) for i in indices]
        return frames_lib.read_video_frames(source, list(indices))
    return frames_at


def gt_revisit(settings, device) -> family.Family:
    from metrics.clip import revisit, vision  # pylint: disable=import-outside-toplevel
    found, ref = step1_checkpoints.resolve(revisit.CLIP_VIT_B32, settings, "GTRevisitSim")
    encoder = vision.load_clip_vision(found.path, device)

    def compute(ctx):
        value = revisit.gt_revisit_similarity(ctx.frames, _gt_frames_at(ctx.gt.source), ctx.r,
                                              ctx.gt.r_gt, ctx.gt.gt_total, encoder, device)
        return family.FamilyResult({"GTRevisitSim": value})

    return family.FunctionFamily(
        "gt_revisit", ("GTRevisitSim",), compute,
        _backend("clip-vit-b32", "openai/clip-vit-base-patch32",
                 "GELU activation as current open_clip builds ViT-B-32/'openai' (see "
                 "AestheticScore's note)"), (ref,))
