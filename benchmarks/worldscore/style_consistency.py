"""style_consistency.gram_matrix: VGG19 Gram-matrix distance of the scene-end anchor
frames to input_image.png (spec §4.6; third_party/gram_matrix_metrics.py).

Images as the official `image_loader` reads them: PIL, `transforms.Resize(imsize)`
(shorter side to imsize, bilinear) then ToTensor; imsize is 512 when CUDA is available
and 128 otherwise (`512 if torch.cuda.is_available() else 128`, whatever device the
run uses; on --executor=ray, whether the actors get a GPU). `--gram_resize=auto` keeps
that rule; 512 or 128 force one. Both are named
in the backend: 512 is what the leaderboard's GPU runs used; 128 (the official code's
CPU behaviour) is recorded as NOT the leaderboard setting. Score: the mean over
anchor_frame_idx[1:] of metrics.style.gram.style_distance (5 pre-ReLU conv layers).
The reference is opened without convert("RGB"), as the official code does: a reference
that is not 3-channel fails the metric (the official evaluator's fallback would score 0).
"""

from benchmarks.common import calibration
from benchmarks.common import checkpoint_refs
from benchmarks.common import family
from benchmarks.common import model_recipe
from benchmarks.common import run_device
from benchmarks.common.errors import InputError
from benchmarks.worldscore import metric_specs
from benchmarks.worldscore import prompts
from metrics.style import pins as style_pins
from proto import scorecard_pb2

METRIC_IDS = (metric_specs.metric_id("style_consistency", "gram_matrix"),)
RESIZE_CHOICES = ("auto", "512", "128")
OFFICIAL_SIZE, CPU_SIZE = 512, 128

VGG19 = style_pins.VGG19


def image_size(choice: str, cuda_available: bool) -> int:
    """The official `imsize` rule, or a forced size."""
    if choice == "auto":
        return OFFICIAL_SIZE if cuda_available else CPU_SIZE
    if choice not in RESIZE_CHOICES:
        raise InputError("--gram_resize", " or ".join(RESIZE_CHOICES), repr(choice))
    return int(choice)


def backend(size: int) -> scorecard_pb2.Backend:
    name = f"vgg19-gram-resize{size}"
    note = ("torchvision VGG19 IMAGENET1K_V1 features, conv1_1..conv3_1 pre-ReLU Gram "
            f"matrices, Resize({size}) on the shorter side")
    if size != OFFICIAL_SIZE:
        note += ("; 128 is what the official code uses without CUDA, NOT the 512 of the "
                 "leaderboard's GPU runs")
    return scorecard_pb2.Backend(
        name=name, official=size == OFFICIAL_SIZE, checkpoint_id=VGG19.url, note=note,
        implementation="metrics/style/gram.py",
        parity=calibration.parity(name, otherwise=(
            "Gram matrix and style loss against direct computations, tiny random VGG19 "
            "loaded through the real loader")))


def load_tensor(image, size: int):
    """The official image_loader's tensor: Resize(size) (shorter side) + ToTensor, (1, 3, h, w)."""
    from torchvision import transforms  # pylint: disable=import-outside-toplevel
    loader = transforms.Compose([transforms.Resize(size), transforms.ToTensor()])
    return loader(image).unsqueeze(0)


def build(config, metric_ids) -> family.Family:
    """The family; loads VGG19 `features` (config.architectures["vgg19_widths"] in tests)."""
    del metric_ids
    from PIL import Image  # pylint: disable=import-outside-toplevel
    from metrics.style import gram  # pylint: disable=import-outside-toplevel
    # "CUDA is available" where the metric runs: this process locally, the actors on Ray.
    size = image_size(config.gram_resize,
                      run_device.resolve("auto").startswith("cuda"))
    found, ref = checkpoint_refs.resolve(VGG19, config.common, METRIC_IDS[0])
    widths = (config.architectures or {}).get("vgg19_widths", (64, 128, 256, 512))
    features = model_recipe.prepared(lambda device: gram.load_features(found.path, device,
                                                                       widths),
                                     config.common.device, "vgg19")

    def compute(ctx) -> family.FamilyResult:
        device = features.device()
        with Image.open(ctx.input_image) as ref_image:
            reference = load_tensor(ref_image, size).to(device)
        if reference.shape[1] != 3:
            raise InputError(ctx.input_image, "a 3-channel RGB reference image",
                             f"{reference.shape[1]} channels")
        anchors = prompts.anchor_frames("gram_matrix", ctx.image_data["anchor_frame_idx"])
        if not anchors:
            raise family.FamilyUnavailable("anchor_frame_idx has no frame after the first")
        scores = [gram.style_distance(features.get(), reference,
                                      load_tensor(ctx.image(i), size).to(device))
                  for i in anchors]
        return family.FamilyResult({METRIC_IDS[0]: sum(scores) / len(scores)})

    return family.FunctionFamily("style_consistency", METRIC_IDS, compute, backend(size), (ref,))

