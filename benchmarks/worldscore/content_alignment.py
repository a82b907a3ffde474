"""content_alignment.clip_score: torchmetrics CLIPScore on CLIP ViT-B/16 (spec §4.3;
metrics/torchmetrics/clip_score_metrics.py, the class evaluator.py ends up importing).

Per scene i = 0..num_scenes (a prompt-type metric): the anchor frame
anchor_frame_idx[i] as a PIL RGB image, `transforms.Resize((512, 512))` and ToTensor,
then `(img * 255).to(torch.uint8)` exactly as the official code converts it (float32
x / 255 * 255 then truncation, so a value can drop by one level), scored against the
RAW prompt_list[i] (no style, no camera text); the instance score is the mean over the
scenes. Skipped for intra layouts (the runner leaves it out of evaluation.json, as the
official evaluator does, via instance_eval). With --sample_batch the scene images of
several instances share the image tower's calls (float rounding only).
"""

from benchmarks.common import calibration
from benchmarks.common import checkpoint_refs
from benchmarks.common import family
from benchmarks.common import model_recipe
from benchmarks.common import sample_batch
from benchmarks.worldscore import aspects
from benchmarks.worldscore import instance_eval
from benchmarks.worldscore import metric_specs
from benchmarks.worldscore import prompts
from proto import scorecard_pb2

METRIC_IDS = (metric_specs.metric_id("content_alignment", "clip_score"),)
SQUASH = (512, 512)
IMAGE_FEATURES = "content_alignment.clip_score:image_features"  # ctx.shared's rows
BACKEND = "torchmetrics-clipscore-vit-b16"


def official_uint8(image):
    """BaseMetric._process_image then `(imgs * 255).to(torch.uint8)`: (3, 512, 512)."""
    from torchvision import transforms  # pylint: disable=import-outside-toplevel
    tensor = transforms.Compose([transforms.Resize(SQUASH), transforms.ToTensor()])(image)
    import torch  # pylint: disable=import-outside-toplevel
    return (tensor * 255).to(torch.uint8)


def _backend() -> scorecard_pb2.Backend:
    return scorecard_pb2.Backend(
        name=BACKEND, official=True, checkpoint_id="openai/clip-vit-base-patch16",
        implementation="metrics/clip/clip_score.py",
        note="torchmetrics CLIPScore's update/compute on transformers' CLIPModel and "
        "CLIPProcessor (the installed transformers; WorldScore pins no version)",
        parity=calibration.parity(BACKEND, otherwise=(
            "against CLIPModel.forward's logits on a tiny random CLIP through the real "
            "loader")))


def build(config, metric_ids) -> family.Family:
    del metric_ids
    # pylint: disable=import-outside-toplevel  (torch)
    from metrics.clip import clip_score
    found, ref = checkpoint_refs.resolve(clip_score.CLIP_VIT_B16, config.common, METRIC_IDS[0])
    model = model_recipe.prepared(
        lambda device: clip_score.load_clip_score(found.path, device), config.common.device,
        "clip_vit_b16")

    def compute(ctx) -> family.FamilyResult:
        if instance_eval.skipped(ctx.movement, ctx.image_data.get("camera_path") or []):
            return family.FamilyResult({})  # intra layout: the sample row says why
        scenes = prompts.scene_inputs(ctx.image_data, "clip_score")
        features = ctx.shared.get(IMAGE_FEATURES)  # from calls shared with other instances
        scores = [clip_score.clip_score(model.get(), official_uint8(ctx.image(s["frame"])),
                                        s["text"], None if features is None else features[i])
                  for i, s in enumerate(scenes)]
        return family.FamilyResult({METRIC_IDS[0]: sum(scores) / len(scores)})

    def image_rows(images):
        import torch  # pylint: disable=import-outside-toplevel
        return clip_score.image_features(
            model.get(), [torch.from_numpy(image) for image in images]).cpu().numpy()

    call = sample_batch.FrameCall(IMAGE_FEATURES, scene_images, image_rows)  # CLIP resizes
    return family.FunctionFamily("content_alignment", METRIC_IDS, compute, _backend(), (ref,),
                                 frame_calls=lambda: [call])


def scene_images(loaded):
    """The official uint8 images (numpy (3, 512, 512)) of a loaded instance's scenes;
    ValueError where clip_score does not run."""
    from PIL import Image  # pylint: disable=import-outside-toplevel
    inst = loaded.instance
    if ("content_alignment" not in aspects.ASPECTS_OF[inst.movement]
            or instance_eval.skipped(inst.movement, inst.image_data.get("camera_path") or [])):
        raise ValueError(f"{inst.path}: no clip_score")
    return [official_uint8(Image.fromarray(loaded.rgb(s["frame"]))).numpy()
            for s in prompts.scene_inputs(inst.image_data, "clip_score")]
